// The replicaset controller's pure parts: slow-start batches, the deletion ranking, the status
// the owned pods add up to; and expectations, which keep a slow cache from causing double writes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { Expectations } from '../../controllers/internal/expectations.js';
import { slowStartBatches } from '../../controllers/internal/pod-template.js';
import { podFor, podsToDelete, replicaStatus, sameStatus } from '../../controllers/replicaset/sync.js';

const NOW = Date.UTC(2026, 0, 1, 12);
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

function p(name: string, o: { node?: string; phase?: string; readySince?: number; restarts?: number; created?: number; labels?: Record<string, string> } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, uid: `uid-${name}`, creationTimestamp: iso(o.created ?? NOW - 3_600_000), labels: o.labels ?? { app: 'a' } },
    spec: { containers: [{ name: 'c' }], ...(o.node ? { nodeName: o.node } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: o.readySince !== undefined ? [{ type: 'Ready', status: 'True', lastTransitionTime: iso(o.readySince) }] : [{ type: 'Ready', status: 'False' }],
      containerStatuses: [{ name: 'c', restartCount: o.restarts ?? 0 }],
    },
  };
}

test('slow start: 1, 2, 4 ... summing to the count', () => {
  assert.equal(slowStartBatches(0), []);
  assert.equal(slowStartBatches(1), [1]);
  assert.equal(slowStartBatches(10), [1, 2, 4, 3]);
  assert.equal(slowStartBatches(500).reduce((a, b) => a + b, 0), 500);
});

test('deletion ranking: unscheduled, pending, not ready, crowded node, ready for less time, more restarts, newer first', () => {
  const pods = [
    p('old-ready', { node: 'n1', readySince: NOW - 600_000 }),
    p('young-ready', { node: 'n2', readySince: NOW - 60_000 }),
    p('unscheduled', { phase: 'Pending' }),
    p('pending', { node: 'n3', phase: 'Pending' }),
    p('not-ready', { node: 'n4' }),
  ];
  assert.equal(podsToDelete(pods, 5, NOW).map((x) => x.metadata.name), ['unscheduled', 'pending', 'not-ready', 'young-ready', 'old-ready']);
  const crowded = [p('alone', { node: 'n1', readySince: NOW - 1000 }), p('shared-1', { node: 'n2', readySince: NOW - 9000 }), p('shared-2', { node: 'n2', readySince: NOW - 9000 })];
  assert.equal(podsToDelete(crowded, 1, NOW)[0]!.metadata.name?.startsWith('shared'), true, 'a pod on a crowded node goes first');
  const restarts = [p('calm', { node: 'a', readySince: NOW - 5000 }), p('flaky', { node: 'b', readySince: NOW - 5000, restarts: 4 })];
  assert.is(podsToDelete(restarts, 1, NOW)[0]!.metadata.name, 'flaky');
  const ages = [p('older', { node: 'a', created: NOW - 9000 }), p('newer', { node: 'b', created: NOW - 1000 })];
  assert.is(podsToDelete(ages, 1, NOW)[0]!.metadata.name, 'newer');
});

const rs: ReplicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid', generation: 4 },
  spec: { replicas: 3, minReadySeconds: 10, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a', tier: 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
};

test('status: replicas, fully labelled, ready, available after minReadySeconds, and when the next becomes available', () => {
  const pods = [p('a', { readySince: NOW - 20_000, labels: { app: 'a', tier: 'x' } }), p('b', { readySince: NOW - 4_000 }), p('c')];
  const { status, nextAvailableAt } = replicaStatus(rs, pods, NOW, undefined);
  assert.equal(status, { replicas: 3, fullyLabeledReplicas: 1, readyReplicas: 2, availableReplicas: 1, observedGeneration: 4 });
  assert.is(nextAvailableAt, NOW + 6_000);
  assert.ok(sameStatus(status, status));
  assert.not.ok(sameStatus({ ...status, readyReplicas: 1 }, status));
});

test('status: a failure sets ReplicaFailure, success clears it', () => {
  const failed = replicaStatus(rs, [], NOW, { reason: 'FailedCreate', message: 'quota' }).status;
  assert.equal(failed.conditions?.map((c) => [c.type, c.status, c.reason]), [['ReplicaFailure', 'True', 'FailedCreate']]);
  const cleared = replicaStatus({ ...rs, status: failed }, [], NOW, undefined).status;
  assert.is(cleared.conditions, undefined);
});

test('pods from the template: generated name, template labels, the controller reference; the template is not shared', () => {
  const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true, blockOwnerDeletion: true };
  const made = podFor(rs, ref);
  assert.equal(made.metadata, { generateName: 'web-', namespace: 'ns', labels: { app: 'a', tier: 'x' }, ownerReferences: [ref] });
  made.spec!.containers![0]!.image = 'changed';
  assert.is(rs.spec?.template?.spec?.containers?.[0]?.image, 'i');
});

test('expectations: unseen creations and deletions hold the key until the cache shows them, or the TTL passes', () => {
  let now = 0;
  const e = new Expectations({ now: () => now }, 1000);
  const cache = new Map<string, 'present' | 'deleting'>();
  const view = { state: (uid: string) => cache.get(uid) ?? ('absent' as const) };
  assert.ok(e.satisfied('k', view), 'nothing expected');
  e.created('k', 'u1');
  e.created('k', 'u2');
  e.deleted('k', 'old');
  cache.set('old', 'present');
  assert.not.ok(e.satisfied('k', view));
  cache.set('u1', 'present');
  cache.set('u2', 'present');
  assert.not.ok(e.satisfied('k', view), 'the deletion is not seen yet');
  assert.equal(e.outstanding('k'), { creates: 0, deletes: 1 });
  cache.set('old', 'deleting');
  assert.ok(e.satisfied('k', view), 'a pod being deleted counts as deleted');
  e.created('k', 'lost');
  now = 1000;
  assert.ok(e.satisfied('k', view), 'the TTL releases a key whose event never came');
});

test.run();
