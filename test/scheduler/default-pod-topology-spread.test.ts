// DefaultPodTopologySpread's count of matching pods on a node: the per-node label counts (one
// lookup for a single `key=value` selector, kept per NodeInfo generation) give exactly what a walk
// of the node's pods gives, for every kind of selector, before and after the node changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { labelSelectorFromMap, labelSelectorFromObject } from '../../src/api/labels.js';
import { NodeInfo } from '../../src/scheduler/framework/node-info.js';
import { newPodInfo } from '../../src/scheduler/framework/pod-info.js';
import { countByWalking, countMatching } from '../../src/scheduler/plugins/default-pod-topology-spread/index.js';
import { node, pod } from '../helpers/objects.js';

function nodeWith(): NodeInfo {
  const ni = new NodeInfo('n1', node('n1'));
  ni.addPod(newPodInfo(pod('a1', { labels: { app: 'a', tier: 'web' } })));
  ni.addPod(newPodInfo(pod('a2', { labels: { app: 'a' } })));
  ni.addPod(newPodInfo(pod('b1', { labels: { app: 'b', tier: 'web' } })));
  ni.addPod(newPodInfo(pod('a-other-ns', { labels: { app: 'a' }, namespace: 'other' })));
  ni.addPod(newPodInfo(pod('a-deleting', { labels: { app: 'a' } }, { metadata: { name: 'a-deleting', namespace: 'default', uid: 'u-del', labels: { app: 'a' }, deletionTimestamp: '2026-01-01T00:00:00Z' } })));
  ni.addPod(newPodInfo(pod('unlabelled')));
  return ni;
}

const selectors = {
  'app=a (matchLabels)': [labelSelectorFromMap({ app: 'a' })],
  'app in (a) (matchExpressions)': [labelSelectorFromObject({ matchExpressions: [{ key: 'app', operator: 'In', values: ['a'] }] })],
  'app in (a, b)': [labelSelectorFromObject({ matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] })],
  'app=a,tier=web': [labelSelectorFromMap({ app: 'a', tier: 'web' })],
  'app notin (a)': [labelSelectorFromObject({ matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }] })],
  'tier exists': [labelSelectorFromObject({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] })],
  'app=a or app=b (two workloads)': [labelSelectorFromMap({ app: 'a' }), labelSelectorFromMap({ app: 'b' })],
  'app=zzz (none)': [labelSelectorFromMap({ app: 'zzz' })],
};

test('every selector counts as a walk of the pods does, per namespace, without pods being deleted', () => {
  const ni = nodeWith();
  for (const [what, sels] of Object.entries(selectors)) {
    for (const ns of ['default', 'other', 'none']) assert.is(countMatching(ni, sels, ns), countByWalking(ni, sels, ns), `${what} in ${ns}`);
  }
  assert.is(countMatching(ni, selectors['app=a (matchLabels)'], 'default'), 2);
  assert.is(countMatching(ni, selectors['app=a (matchLabels)'], 'other'), 1);
});

test('the counts follow the node: a pod added or removed changes the next count', () => {
  const ni = nodeWith();
  const appA = selectors['app=a (matchLabels)'];
  assert.is(countMatching(ni, appA, 'default'), 2);
  const added = newPodInfo(pod('a3', { labels: { app: 'a' } }));
  ni.addPod(added);
  assert.is(countMatching(ni, appA, 'default'), 3);
  assert.ok(ni.removePod(added.uid));
  assert.ok(ni.removePod(ni.pods.find((p) => p.pod.metadata.name === 'a1')!.uid));
  assert.is(countMatching(ni, appA, 'default'), 1);
  assert.is(countMatching(ni, appA, 'default'), countByWalking(ni, appA, 'default'));
});

test.run();
