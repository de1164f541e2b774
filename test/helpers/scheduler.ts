/**
 * The scheduler against a real API server, for end-to-end tests: `startTestScheduler(server)`
 * runs `startScheduler` in the test process over HTTPS (its own client and informers), with the
 * default configuration unless one is given, and returns typed helpers to create nodes and pods
 * and wait for bindings. The daemon itself (a process) is exercised by test/e2e/scheduler-daemon.
 */
import { pino } from 'pino';
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import { SharedInformerFactory } from '../../src/client/informer-factory.js';
import { resources, typed } from '../../src/client/typed.js';
import { defaultConfiguration } from '../../src/scheduler/config/defaults.js';
import { DEFAULT_FEATURES, type SchedulerConfiguration, type SchedulerFeatures } from '../../src/scheduler/config/types.js';
import { startScheduler, type RunningScheduler } from '../../src/scheduler/start.js';
import type { ApiClient } from '../../src/client/types.js';
import type { ApiServerProcess } from './apiserver.js';
import { clientFor, eventually } from './client.js';

export interface TestScheduler {
  running: RunningScheduler;
  /** The scheduler's own client (for the test's other objects). */
  client: ApiClient;
  pods: ReturnType<typeof typed<Pod>>;
  nodes: ReturnType<typeof typed<Node>>;
  /** Creates the object (builders set a uid for unit tests; the server assigns its own). */
  createPod(p: Pod): Promise<Pod>;
  createNode(n: Node): Promise<Node>;
  /** Waits until the pod is bound; resolves to its node. */
  boundNode(namespace: string, name: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export async function startTestScheduler(
  server: ApiServerProcess,
  edit?: (c: SchedulerConfiguration) => void,
  features?: Partial<SchedulerFeatures>,
): Promise<TestScheduler> {
  const conn = clientFor(server);
  const configuration = defaultConfiguration();
  edit?.(configuration);
  const informers = new SharedInformerFactory(conn.client);
  const running = startScheduler({
    client: conn.client,
    informers,
    configuration,
    logger: pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' }),
    leaderElection: false,
    features: { ...DEFAULT_FEATURES, ...features },
  });
  const pods = typed<Pod>(conn.client, resources.pods);
  const nodes = typed<Node>(conn.client, resources.nodes);
  await eventually(() => running.actor.getSnapshot().matches('scheduling'), 30_000, 'scheduler caches synced');
  return {
    running,
    client: conn.client,
    pods,
    nodes,
    createPod: (p) => pods.create(p.metadata.namespace ?? 'default', { ...p, metadata: { ...p.metadata, uid: undefined } }),
    createNode: (n) => nodes.create('', { ...n, metadata: { ...n.metadata, uid: undefined } }),
    async boundNode(namespace, name, timeoutMs = 10_000) {
      let node = '';
      await eventually(async () => {
        const p = await pods.get(namespace, name);
        node = p.spec?.nodeName ?? '';
        return node !== '';
      }, timeoutMs, `pod ${namespace}/${name} bound`);
      return node;
    },
    async stop() {
      await running.stop();
      informers.stop();
      await conn.close();
    },
  };
}
