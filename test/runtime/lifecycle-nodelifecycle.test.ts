// The node lifecycle's decision order (machines/lifecycles/nodelifecycle.ts) over the facts the
// controller computes (controllers/nodelifecycle/lifecycle-facts.ts, with the taint manager's
// `judgePod`): pure, no server.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import type { Taint } from '../../src/api/kind-parts.js';
import { evaluateLifecycle, lifecycleStates } from '../../src/runtime/lifecycle.js';
import { nodeLifecycle } from '../../machines/lifecycles/nodelifecycle.js';
import { nodeFacts, planEvictions } from '../../controllers/nodelifecycle/lifecycle-facts.js';
import { noScheduleDiff, UNREACHABLE_NO_EXECUTE } from '../../controllers/nodelifecycle/taints.js';

const node = (ready: string | undefined, taints: Taint[] = []): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n' },
  spec: { taints },
  status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] },
});
const pod = (name: string, tolerationSeconds?: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName: 'n', containers: [], ...(tolerationSeconds === undefined ? {} : { tolerations: [{ key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds }] }) },
});
const zone = { zone: '', state: 'Normal', qps: 0.1, queued: true };
const state = (n: Node, pods: Pod[] = []) => {
  const plan = planEvictions(pods, (n.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute'), new Map(), 1_000);
  return evaluateLifecycle(nodeLifecycle, nodeFacts(n, noScheduleDiff(n), zone, true, plan, 1_000));
};
const UNREACHABLE_NS: Taint = { key: 'node.svc.io/unreachable', effect: 'NoSchedule' };

test('the chart draws the states the controller acts on', () => {
  assert.equal(lifecycleStates(nodeLifecycle), ['taintingNoSchedule', 'noExecute.evicting', 'noExecute.tolerating', 'noExecute.tainted', 'notReady', 'unreachable', 'ready']);
});

test('NoSchedule taints first, then the taint manager (evict now, tolerating, nothing), then readiness', () => {
  assert.equal(state(node('Unknown')), { state: 'taintingNoSchedule', holds: 'add node.svc.io/unreachable (Ready Unknown)' });
  const tainted = node('Unknown', [UNREACHABLE_NS, UNREACHABLE_NO_EXECUTE]);
  assert.equal(state(tainted, [pod('a'), pod('b', 5)]), { state: 'noExecute.evicting', holds: 'node.svc.io/unreachable:NoExecute: 1 pod to delete now, 1 tolerating' });
  assert.equal(state(tainted, [pod('b', 5)]), { state: 'noExecute.tolerating', holds: 'node.svc.io/unreachable:NoExecute: 1 pod tolerating it, the first evicted in 5 s' });
  assert.equal(state(tainted, [pod('c', undefined)].map((p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }))).state, 'noExecute.tainted');
  assert.equal(state(node('Unknown', [UNREACHABLE_NS])), { state: 'unreachable', holds: 'Ready Unknown; zone (no zone) Normal at 0.1 nodes/s: queued for node.svc.io/unreachable:NoExecute' });
  assert.is(state(node('False', [{ key: 'node.svc.io/not-ready', effect: 'NoSchedule' }])).state, 'notReady');
  assert.is(state(node(undefined)).state, 'unreachable');
  assert.is(state(node('True')).state, 'ready');
});

test.run();
