/**
 * The scheduler's part of `npm run bench` (`--only=scheduler`): the shape of the established
 * "SchedulingBasic" workload — N nodes, background pods scheduled first, then measured pods —
 * with the throughput from the first measured create to the last binding stored, per-pod latency
 * (create sent -> binding seen on a watch), and the scheduler's memory. Variants: required pod
 * anti-affinity and topology spread on fewer nodes. Runs in-process (API server, scheduler and
 * load in this process) or over HTTPS (apiserver process; the scheduler here with its own client).
 */
import { pino } from 'pino';
import type { Node, Pod } from '../src/api/generated/kinds.js';
import { SharedInformerFactory } from '../src/client/informer-factory.js';
import { resources } from '../src/client/typed.js';
import type { ApiClient } from '../src/client/types.js';
import { defaultConfiguration } from '../src/scheduler/config/defaults.js';
import { startScheduler } from '../src/scheduler/start.js';
import { LABEL_HOSTNAME, LABEL_ZONE } from '../src/api/well-known-labels.js';

export type Variant = 'basic' | 'anti-affinity' | 'topology-spread';

export interface SchedulerBenchCase {
  variant: Variant;
  nodes: number;
  backgroundPods: number;
  measuredPods: number;
  /** Creates in flight at once. */
  createConcurrency: number;
  /** When set, measured pods are created one at a time this far apart (a load below saturation, for latency). */
  createIntervalMs?: number;
}

export interface SchedulerBenchResult extends SchedulerBenchCase {
  transport: 'in-process' | 'HTTPS';
  podsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Growth of this process's RSS from before the scheduler started to the end (MiB). */
  schedulerRssMiB: number;
  seconds: number;
  /** Pods the scheduler could not place (should be 0). */
  unscheduled: number;
  /** Scheduling attempts that found no node (retried later; 0 when the cluster has room). */
  failedAttempts: number;
}

const ZONES = 3;

function nodeObject(i: number): Node {
  const name = `node-${i}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { [LABEL_HOSTNAME]: name, [LABEL_ZONE]: `zone-${i % ZONES}` } },
    spec: {},
    status: {
      capacity: { cpu: '4', memory: '32Gi', pods: '110' },
      allocatable: { cpu: '4', memory: '32Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
    },
  } as Node;
}

function podObject(name: string, variant: Variant, group: string): Pod {
  const labels = { app: group };
  const spec: Record<string, unknown> = {
    containers: [{ name: 'pause', image: 'registry.example/pause:3.2', resources: { requests: { cpu: '100m', memory: '500Mi' } } }],
  };
  if (variant === 'anti-affinity') {
    spec['affinity'] = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: labels }, topologyKey: LABEL_HOSTNAME }] } };
  } else if (variant === 'topology-spread') {
    spec['topologySpreadConstraints'] = [{ maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: labels } }];
  }
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels }, spec } as Pod;
}

async function inPool<T>(items: T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

/**
 * Runs one case against `client` (nodes and pods in namespace `ns`). The scheduler runs in this
 * process with `schedulerClient` (the same client in-process; its own over HTTPS).
 */
export async function measureScheduling(
  c: SchedulerBenchCase,
  client: ApiClient,
  schedulerClient: ApiClient,
  transport: SchedulerBenchResult['transport'],
  ns: string,
): Promise<SchedulerBenchResult> {
  await client.create(resources.namespaces, '', { metadata: { name: ns } }).catch(() => undefined);
  const nodes = Array.from({ length: c.nodes }, (_, i) => nodeObject(i));
  // Nodes a previous case left with the same shape are reused.
  await inPool(nodes, 64, async (n) => void (await client.create(resources.nodes, '', n).catch((e: unknown) => {
    if ((e as { code?: number }).code !== 409) throw e;
  })));

  // Bindings observed on a watch: the pod's MODIFIED event with spec.nodeName set.
  const boundAt = new Map<string, number>();
  let onBound: ((name: string) => void) | undefined;
  const sub = client.watch<Pod>(resources.pods, { namespace: ns }).subscribe({
    next: (ev) => {
      if (ev.type !== 'MODIFIED' || !ev.object.spec?.nodeName) return;
      const name = ev.object.metadata.name!;
      if (!boundAt.has(name)) {
        boundAt.set(name, performance.now());
        onBound?.(name);
      }
    },
  });
  // Counting, not scanning: the check per binding must not cost the number of pods.
  const waitBound = (names: string[], timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const wanted = new Set(names);
      let bound = names.filter((n) => boundAt.has(n)).length;
      const finish = () => {
        onBound = undefined;
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        onBound = undefined;
        reject(new Error(`${wanted.size - bound} pods not bound after ${timeoutMs} ms`));
      }, timeoutMs);
      onBound = (name) => {
        if (wanted.has(name) && ++bound === wanted.size) finish();
      };
      if (bound === wanted.size) finish();
    });

  const rssBefore = rssMiB();
  const informers = new SharedInformerFactory(schedulerClient);
  const running = startScheduler({
    client: schedulerClient,
    informers,
    configuration: defaultConfiguration(),
    logger: pino({ level: process.env['BENCH_SCHEDULER_LOG'] ?? 'silent' }),
    leaderElection: false,
  });
  try {
    while (!running.actor.getSnapshot().matches('scheduling')) await new Promise((r) => setTimeout(r, 20));
    const background = Array.from({ length: c.backgroundPods }, (_, i) => `bg-${i}`);
    await inPool(background, c.createConcurrency, async (name) => void (await client.create(resources.pods, ns, podObject(name, c.variant, `bg-${name}`))));
    await waitBound(background, 120_000);

    const measured = Array.from({ length: c.measuredPods }, (_, i) => `m-${i}`);
    const sentAt = new Map<string, number>();
    const start = performance.now();
    let unscheduled = 0;
    await inPool(measured, c.createIntervalMs ? 1 : c.createConcurrency, async (name) => {
      if (c.createIntervalMs) await new Promise((r) => setTimeout(r, c.createIntervalMs));
      sentAt.set(name, performance.now());
      // Anti-affinity: each pod its own group would be trivial; one group per 1 pod in 1,000 keeps nodes distinct.
      const group = c.variant === 'anti-affinity' ? `g-${Number(name.slice(2)) % Math.max(1, Math.floor(c.nodes / 2))}` : 'measured';
      await client.create(resources.pods, ns, podObject(name, c.variant, group));
    });
    try {
      await waitBound(measured, 300_000);
    } catch {
      unscheduled = measured.filter((n) => !boundAt.has(n)).length;
    }
    const end = Math.max(...measured.map((n) => boundAt.get(n) ?? 0));
    const latencies = measured.filter((n) => boundAt.has(n)).map((n) => boundAt.get(n)! - sentAt.get(n)!).sort((a, b) => a - b);
    const seconds = (end - start) / 1000;
    return {
      ...c,
      transport,
      podsPerSecond: Math.round((measured.length - unscheduled) / seconds),
      p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      schedulerRssMiB: Math.round(rssMiB() - rssBefore),
      seconds: Math.round(seconds * 100) / 100,
      unscheduled,
      failedAttempts: running.scheduler.counters.unschedulable,
    };
  } finally {
    sub.unsubscribe();
    await running.stop();
    informers.stop();
  }
}
