// The deployment controller's arithmetic: template hash, maxSurge/maxUnavailable, how far a rolling
// update scales up and down, proportional scaling of a resize mid-rollout, history cleanup.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Deployment, ReplicaSet } from '../../src/api/generated/kinds.js';
import {
  historyToDelete, newReplicaSetReplicas, proportionalScale, resolveIntOrPercent, sameTemplate, scaleDownOld, surgeAndUnavailable,
} from '../../controllers/deployment/sync.js';
import { templateHash } from '../../controllers/internal/revisions.js';

const d = (replicas: number, surge: number | string = '25%', unavailable: number | string = '25%', history = 10): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd' },
  spec: { replicas, revisionHistoryLimit: history, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } }, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
});
let n = 0;
const rs = (replicas: number, availableReplicas = replicas, revision = 1): ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: `rs-${++n}`, creationTimestamp: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`, annotations: { 'deployment.svc.io/revision': String(revision) } },
  spec: { replicas },
  status: { replicas, availableReplicas },
});

test('template hash: stable, changes with the template and the collision count, safe characters only', () => {
  const t = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } };
  assert.is(templateHash(t), templateHash(structuredClone(t)));
  assert.is.not(templateHash(t), templateHash({ ...t, spec: { containers: [{ name: 'c', image: 'i:2' }] } }));
  assert.is.not(templateHash(t), templateHash(t, 1));
  assert.match(templateHash(t), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  assert.ok(sameTemplate(t, { ...t, metadata: { labels: { a: 'b', 'pod-template-hash': 'x' } } }), 'the hash label does not count');
});

test('maxSurge rounds up, maxUnavailable down; both 0 makes unavailable 1', () => {
  assert.is(resolveIntOrPercent('25%', 10, true, 0), 3);
  assert.is(resolveIntOrPercent('25%', 10, false, 0), 2);
  assert.equal(surgeAndUnavailable(d(10)), { maxSurge: 3, maxUnavailable: 2 });
  assert.equal(surgeAndUnavailable(d(1, 0, '10%')), { maxSurge: 0, maxUnavailable: 1 });
});

test('rolling update, up: the new ReplicaSet grows within replicas + maxSurge', () => {
  const old = rs(10);
  const fresh = rs(0, 0, 2);
  assert.is(newReplicaSetReplicas(d(10), [old, fresh], fresh), 3);
  assert.is(newReplicaSetReplicas(d(10), [rs(7), rs(6, 0, 2)], rs(6, 0, 2)), 6, 'no room left');
});

test('rolling update, down: unavailable old pods first, then available ones while replicas - maxUnavailable stay available', () => {
  const old = rs(10, 10);
  const fresh = rs(3, 0, 2);
  // 13 pods, 10 available, min available 8, the 3 new ones not available: 13 - 8 - 3 = 2 may go.
  assert.equal([...scaleDownOld(d(10), [old, fresh], fresh, [old]).values()], [8]);
  const sick = rs(10, 6);
  // 10 + 3 pods, 6 available: the 4 unavailable old pods go first (budget 13 - 8 - 3 = 2 of them).
  assert.equal([...scaleDownOld(d(10), [sick, fresh], fresh, [sick]).values()], [8]);
});

test('a resize mid-rollout is spread in proportion, within replicas + maxSurge', () => {
  const a = rs(8);
  const b = rs(5, 0, 2);
  // 10 -> 20 replicas, maxSurge 5: allowed 25, 13 now, 12 to add: 8/13 and 5/13 of it, rest to the largest.
  const sizes = proportionalScale(d(20, 5), [a, b], b);
  assert.is((sizes.get(a) ?? 8) + (sizes.get(b) ?? 5), 25);
  assert.ok((sizes.get(a) ?? 0) > (sizes.get(b) ?? 0));
  assert.equal([...proportionalScale(d(4), [rs(10)], undefined).values()], [4], 'one active set takes the size');
});

test('history: empty old ReplicaSets beyond revisionHistoryLimit go, oldest revision first', () => {
  const old = [rs(0, 0, 1), rs(0, 0, 2), rs(2, 2, 3), rs(0, 0, 4)];
  assert.equal(historyToDelete(d(3, 1, 1, 2), old).map((s) => s.metadata.annotations?.['deployment.svc.io/revision']), ['1', '2']);
  assert.equal(historyToDelete(d(3, 1, 1, 10), old), []);
});

test.run();
