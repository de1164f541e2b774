/**
 * Simulated nodes in `npm run bench` (`--only=nodes`), everything in this process as `svc up`
 * runs it (API server on its embedded store, scheduler, node fleet, each with its own in-process
 * client), plus the load generator:
 *
 * - startup latency: pods created at a steady rate on N nodes, create sent -> `Running` seen on a
 *   watch, with the simulated pull and start delays at 0 (what is measured is the control plane:
 *   create, schedule, bind, the node's status write, the watch);
 * - scale: N nodes registered, then P pods created as fast as the API takes them and all
 *   `Running`; total time, RSS, the API's request latency seen by a probe meanwhile, and the
 *   fleet's heartbeat write rate (leases and node status per second) once idle.
 */
import { pino } from 'pino';
import type { Pod } from '../src/api/generated/kinds.js';
import { connectInProcess } from '../src/cli/in-process-client.js';
import { createInformerFactory } from '../src/client/index.js';
import { resources } from '../src/client/typed.js';
import type { ApiClient } from '../src/client/types.js';
import { groupFromFlags, NodeFleet, nodeShapes } from '../src/nodes/index.js';
import { defaultConfiguration } from '../src/scheduler/config/defaults.js';
import { startScheduler } from '../src/scheduler/start.js';
import { startInProcessServer } from './in-process-server.js';

export interface NodesBenchSettings {
  startupNodes: number;
  startupRatePerSecond: number;
  startupSeconds: number;
  scaleNodes: number;
  scalePods: number;
  /** Creates in flight during the scale run. */
  scaleConcurrency: number;
}

export interface NodesBenchFigures {
  settings: NodesBenchSettings;
  startup: { pods: number; p50Ms: number; p99Ms: number; maxMs: number; notRunning: number };
  scale: {
    registerSeconds: number;
    podsSeconds: number;
    running: number;
    rssMiB: number;
    peakRssMiB: number;
    probeP99Ms: number;
    probeMaxMs: number;
    heartbeatWritesPerSecond: number;
    completed: boolean;
  };
}

const rssMiB = () => Math.round(process.memoryUsage().rss / 2 ** 20);

function pod(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'registry.example/pause:3.9', resources: { requests: { cpu: '10m', memory: '10Mi' } } }] },
  } as Pod;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

interface Cluster {
  client: ApiClient;
  fleet: NodeFleet;
  stop(): Promise<void>;
}

async function startCluster(parent: string, nodes: number, prefix: string): Promise<Cluster> {
  const local = await startInProcessServer(parent);
  const load = connectInProcess(local.server);
  const sched = connectInProcess(local.server, { user: { username: 'system:svc-scheduler', groups: ['system:authenticated'] } });
  const schedInformers = createInformerFactory(sched.client);
  const scheduler = startScheduler({ client: sched.client, informers: schedInformers, configuration: defaultConfiguration(), logger: pino({ level: 'silent' }), leaderElection: false });
  const nodesConn = connectInProcess(local.server, { user: { username: 'system:svc-nodes', groups: ['system:nodes', 'system:authenticated'] } });
  const nodeInformers = createInformerFactory(nodesConn.client);
  const fleet = new NodeFleet({
    client: nodesConn.client,
    informers: nodeInformers,
    shapes: nodeShapes([groupFromFlags({ count: nodes, namePrefix: prefix, cpu: '32', memory: '256Gi', pods: '110' })]),
    logger: pino({ level: 'silent' }),
    timings: { imagePullMs: 0, containerStartMs: 0 },
  });
  fleet.start();
  return {
    client: load.client,
    fleet,
    async stop() {
      await fleet.stop();
      nodeInformers.stop();
      await nodesConn.close();
      await scheduler.stop();
      schedInformers.stop();
      await sched.close();
      await load.close();
      await local.stop();
    },
  };
}

/** Watches pods of `ns`; calls back the first time each is seen Running. */
function watchRunning(client: ApiClient, ns: string, onRunning: (name: string, at: number) => void): { unsubscribe(): void } {
  const seen = new Set<string>();
  return client.watch<Pod>(resources.pods, { namespace: ns }).subscribe({
    next: (ev) => {
      const name = ev.object.metadata.name ?? '';
      if (ev.object.status?.phase === 'Running' && !seen.has(name)) {
        seen.add(name);
        onRunning(name, performance.now());
      }
    },
  });
}

export async function measureStartup(parent: string, s: NodesBenchSettings, log: (m: string) => void): Promise<NodesBenchFigures['startup']> {
  const c = await startCluster(parent, s.startupNodes, 'lat');
  try {
    log(`nodes: startup latency on ${s.startupNodes} nodes, ${s.startupRatePerSecond} pods/s for ${s.startupSeconds} s`);
    await c.fleet.registered(120_000);
    const sentAt = new Map<string, number>();
    const latencies: number[] = [];
    const sub = watchRunning(c.client, 'default', (name, at) => {
      const t = sentAt.get(name);
      if (t !== undefined) latencies.push(at - t);
    });
    const total = s.startupRatePerSecond * s.startupSeconds;
    const start = performance.now();
    const creates: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / s.startupRatePerSecond;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = `lat-${i}`;
      sentAt.set(name, performance.now());
      creates.push(c.client.create(resources.pods, 'default', pod(name)));
    }
    await Promise.all(creates);
    for (const deadline = performance.now() + 30_000; latencies.length < total && performance.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
    sub.unsubscribe();
    const sorted = [...latencies].sort((a, b) => a - b);
    const r = (x: number) => Math.round(x * 10) / 10;
    return { pods: total, p50Ms: r(percentile(sorted, 50)), p99Ms: r(percentile(sorted, 99)), maxMs: r(sorted[sorted.length - 1] ?? 0), notRunning: total - latencies.length };
  } finally {
    await c.stop();
  }
}

export async function measureScale(parent: string, s: NodesBenchSettings, log: (m: string) => void): Promise<NodesBenchFigures['scale']> {
  const t0 = performance.now();
  const c = await startCluster(parent, s.scaleNodes, 'scale');
  let peak = rssMiB();
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB())), 500);
  try {
    const registered = await c.fleet.registered(600_000);
    const registerSeconds = (performance.now() - t0) / 1000;
    log(`nodes: ${registered} of ${s.scaleNodes} nodes registered in ${registerSeconds.toFixed(1)} s; creating ${s.scalePods} pods`);
    // A probe: one small GET every 200 ms, its latency is what any other client sees meanwhile.
    const probe: number[] = [];
    let probing = true;
    const prober = (async () => {
      while (probing) {
        const t = performance.now();
        await c.client.get(resources.namespaces, '', 'default');
        probe.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    let running = 0;
    const sub = watchRunning(c.client, 'default', () => void running++);
    const start = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: s.scaleConcurrency }, async () => {
        while (next < s.scalePods) {
          const i = next++;
          await c.client.create(resources.pods, 'default', pod(`p-${i}`));
          if (i % 10_000 === 0 && i) log(`nodes: ${i} pods created, ${running} running, RSS ${rssMiB()} MiB`);
        }
      }),
    );
    const deadline = performance.now() + 1_800_000;
    while (running < s.scalePods && performance.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const podsSeconds = (performance.now() - start) / 1000;
    probing = false;
    await prober;
    sub.unsubscribe();
    if (process.env['BENCH_NODES_MEMORY']) {
      (globalThis as { gc?: () => void }).gc?.();
      log(`memory with every pod running: ${JSON.stringify(process.memoryUsage())}`);
      const snapshot = process.env['BENCH_NODES_HEAPSNAPSHOT'];
      if (snapshot) log(`heap snapshot: ${(await import('node:v8')).writeHeapSnapshot(snapshot)}`);
    }
    // Heartbeats once nothing else happens: writes the fleet makes in 20 s.
    const before = c.fleet.writer.counts.written;
    await new Promise((r) => setTimeout(r, 20_000));
    const heartbeatWritesPerSecond = Math.round((c.fleet.writer.counts.written - before) / 20);
    const sorted = [...probe].sort((a, b) => a - b);
    return {
      registerSeconds: Math.round(registerSeconds * 10) / 10,
      podsSeconds: Math.round(podsSeconds * 10) / 10,
      running,
      rssMiB: rssMiB(),
      peakRssMiB: peak,
      probeP99Ms: Math.round(percentile(sorted, 99) * 10) / 10,
      probeMaxMs: Math.round((sorted[sorted.length - 1] ?? 0) * 10) / 10,
      heartbeatWritesPerSecond,
      completed: running >= s.scalePods,
    };
  } finally {
    clearInterval(sampler);
    await c.stop();
  }
}
