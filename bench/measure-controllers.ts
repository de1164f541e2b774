/**
 * The controller-manager benchmark (BENCH_ONLY=controllers): a whole cluster in one process, as
 * `svc up` runs it (the API server on its embedded store, the deployment, replicaset and garbage
 * collector controllers, the scheduler and 500 simulated nodes with no simulated pull or start
 * delay), then:
 *
 * 1. a Deployment of 1,000 replicas: time to its Available condition and to all 1,000 available;
 * 2. a rolling update of it (new image) to completion;
 * 3. 100 Deployments x 10 replicas created at once: time until all are fully available;
 * 4. the process RSS at the end, and where the CPU went during 1-3 (a V8 profile of the process
 *    grouped by layer: the controller machine, queue and runtime; the controllers' own code; the
 *    API server; the scheduler; the nodes).
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Deployment } from '../src/api/generated/kinds.js';
import { resources } from '../src/client/index.js';
import { startTestCluster } from '../src/testing/index.js';
import { inclusiveMs, summarizeCpuProfile } from './profile-summary.js';

export interface ControllersBenchSettings {
  nodes: number;
  bigReplicas: number;
  smallDeployments: number;
  smallReplicas: number;
}

export interface ControllersBenchFigures {
  settings: ControllersBenchSettings;
  bigToAvailableConditionS: number;
  bigToAllAvailableS: number;
  rollingUpdateS: number;
  smallAllAvailableS: number;
  rssMiB: number;
  /** Share of the process's busy CPU time per layer (0..1). */
  layers: Record<string, number>;
  /** Of the time in the controller machine, queue and runtime plus the controllers' own code, the machine/queue/runtime part (xstate itself not counted). */
  frameworkShareOfControllerTime: number;
  /**
   * The lifecycle evaluation (machines/lifecycles/, src/runtime/lifecycle*, the controllers' `*Facts`
   * functions, with the xstate transition they call), inclusive, in ms; and the rest of the
   * controller side (machine, queue, runtime and the controllers' own code, self time) in ms.
   */
  lifecycleMs: number;
  controllerSideWithoutLifecycleMs: number;
}

function deployment(name: string, replicas: number, image: string): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { terminationGracePeriodSeconds: 0, containers: [{ name: 'c', image }] } },
    },
  };
}

const RECONCILE_HELPERS = ['src/runtime/owner-references.', 'src/runtime/conditions.', 'src/runtime/create-or-update.', 'src/runtime/finalizers.'];

/** The layer a profiled file belongs to. */
export function layerOf(file: string): string {
  // The reconcile helpers of src/runtime (adoption, conditions, create-or-update, finalizers) do a
  // controller's own work on its behalf: counted with the controllers, not with the machinery.
  if (RECONCILE_HELPERS.some((h) => file.startsWith(h))) return "controllers' own logic";
  if (file.startsWith('machines/controller.') || file.startsWith('machines/worker.') || file.startsWith('machines/leader-election.') || file.startsWith('src/runtime/')) return 'controller machine, queue and runtime';
  if (file.startsWith('xstate/')) return 'xstate (every machine: controllers, scheduler, node agents)';
  if (file.startsWith('controllers/')) return "controllers' own logic";
  if (file.startsWith('src/client/') || file.startsWith('rxjs/')) return 'client and informers';
  if (file.startsWith('src/apiserver/') || file.startsWith('src/storage/') || file.startsWith('src/api/') || file.startsWith('src/codec/') || file.startsWith('better-sqlite3/') || file.startsWith('ajv/')) return 'API server and store';
  if (file.startsWith('src/scheduler/') || file.startsWith('machines/scheduler.')) return 'scheduler';
  if (file.startsWith('src/nodes/') || file.startsWith('machines/node-agent.')) return 'simulated nodes';
  return 'Node.js, GC and other';
}

export async function measureControllers(parent: string, s: ControllersBenchSettings, log: (m: string) => void): Promise<ControllersBenchFigures> {
  const cluster = await startTestCluster({
    controllers: ['deployment', 'replicaset', 'garbagecollector'],
    nodes: s.nodes,
    nodeShape: { cpu: '64', memory: '256Gi', pods: '110' },
    nodeTimings: { imagePullMs: 0, containerStartMs: 0, leaseRenewMs: 10_000, statusReportMs: 60_000 },
  });
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 1000 });
  await session.post('Profiler.start');
  const { client } = cluster;
  const getD = (name: string) => client.get<Deployment>(resources.deployments, 'default', name);
  const poll = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
    for (const end = performance.now() + timeoutMs; !(await check()); ) {
      if (performance.now() > end) throw new Error(`controllers bench: ${what} not reached in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const fully = (d: Deployment, replicas: number, image?: string) =>
    d.status?.availableReplicas === replicas && d.status.updatedReplicas === replicas && d.status.replicas === replicas && (image === undefined || d.spec?.template?.spec?.containers?.[0]?.image === image);
  try {
    log(`controllers: a Deployment of ${s.bigReplicas} on ${s.nodes} nodes`);
    let t = performance.now();
    await client.create(resources.deployments, 'default', deployment('big', s.bigReplicas, 'app:1'));
    let availableAt = 0;
    await poll(async () => {
      const d = await getD('big');
      if (!availableAt && d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True')) availableAt = performance.now();
      return fully(d, s.bigReplicas);
    }, 600_000, 'big: all available');
    const bigToAllAvailableS = (performance.now() - t) / 1000;
    const bigToAvailableConditionS = (availableAt - t) / 1000;
    log(`controllers: Available after ${bigToAvailableConditionS.toFixed(1)} s, all ${s.bigReplicas} after ${bigToAllAvailableS.toFixed(1)} s; rolling update`);

    t = performance.now();
    await client.patch(resources.deployments, 'default', 'big', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'app:2' }] } } } });
    await poll(async () => {
      const d = await getD('big');
      return d.status?.observedGeneration === d.metadata.generation && fully(d, s.bigReplicas) && d.status?.conditions?.some((c) => c.reason === 'NewReplicaSetAvailable') === true;
    }, 600_000, 'big: rolled out');
    const rollingUpdateS = (performance.now() - t) / 1000;
    log(`controllers: rolled out in ${rollingUpdateS.toFixed(1)} s; ${s.smallDeployments} Deployments x ${s.smallReplicas}`);

    t = performance.now();
    await Promise.all(Array.from({ length: s.smallDeployments }, (_, i) => client.create(resources.deployments, 'default', deployment(`small-${i}`, s.smallReplicas, 'app:1'))));
    await poll(async () => {
      const list = (await client.list<Deployment>(resources.deployments, { namespace: 'default' })).items.filter((d) => d.metadata.name?.startsWith('small-'));
      return list.length === s.smallDeployments && list.every((d) => fully(d, s.smallReplicas));
    }, 600_000, 'small: all available');
    const smallAllAvailableS = (performance.now() - t) / 1000;
    log(`controllers: all ${s.smallDeployments} available after ${smallAllAvailableS.toFixed(1)} s`);

    const { profile } = await session.post('Profiler.stop');
    const file = join(parent, 'controllers.cpuprofile');
    writeFileSync(file, JSON.stringify(profile));
    const summary = summarizeCpuProfile(file, 100_000);
    const busy = summary.totalMs - summary.idleMs;
    const layers: Record<string, number> = {};
    for (const f of summary.files) layers[layerOf(f.name)] = (layers[layerOf(f.name)] ?? 0) + f.selfMs / busy;
    const framework = layers['controller machine, queue and runtime'] ?? 0;
    const own = layers["controllers' own logic"] ?? 0;
    const isLifecycle = (f: { functionName: string; url: string }) =>
      f.url.startsWith('machines/lifecycles/') || f.url.startsWith('src/runtime/lifecycle') || (f.url.startsWith('controllers/') && /Facts$/.test(f.functionName));
    const lifecycleMs = inclusiveMs(file, isLifecycle);
    // Its self time inside the two controller-side layers (the xstate part is counted in the xstate layer).
    const lifecycleSelfMs = summary.files.filter((f) => f.name.startsWith('machines/lifecycles/') || f.name.startsWith('src/runtime/lifecycle')).reduce((a, f) => a + f.selfMs, 0);
    return {
      settings: s,
      bigToAvailableConditionS,
      bigToAllAvailableS,
      rollingUpdateS,
      smallAllAvailableS,
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
      layers,
      frameworkShareOfControllerTime: framework + own > 0 ? framework / (framework + own) : 0,
      lifecycleMs,
      controllerSideWithoutLifecycleMs: Math.max(0, (framework + own) * busy - lifecycleSelfMs),
    };
  } finally {
    session.disconnect();
    await cluster.stop();
  }
}
