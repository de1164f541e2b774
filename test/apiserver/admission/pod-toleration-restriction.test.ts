// PodTolerationRestriction: namespace and cluster defaults merged, whitelists enforced, the
// memory-pressure toleration for pods that are not BestEffort (src/apiserver/admission/pod-toleration-restriction.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Toleration } from '../../../src/api/kind-parts.js';
import { AdmissionConfigError } from '../../../src/apiserver/admission/config-file.js';
import { mergeTolerations, parsePodTolerationRestrictionConfiguration, podTolerationRestriction } from '../../../src/apiserver/admission/pod-toleration-restriction.js';
import { admit, namespaces, ns, podAttrs, refusal } from './plugin-harness.js';

const config = parsePodTolerationRestrictionConfiguration({
  plugin: 'PodTolerationRestriction',
  source: 'test.yaml',
  value: {
    apiVersion: 'podtolerationrestriction.admission.svc.io/v1alpha1',
    kind: 'Configuration',
    default: [{ key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' }],
    whitelist: [{ key: 'cluster-default', operator: 'Exists' }, { key: 'gpu', operator: 'Exists' }],
  },
});
const tolerationsOf = (a: Awaited<ReturnType<typeof admit>>) => (a.object!['spec'] as { tolerations?: Toleration[] }).tolerations;
const plugin = podTolerationRestriction(config, {
  namespace: namespaces([
    ns('plain'),
    ns('team', {
      'scheduler.alpha.svc.io/defaultTolerations': '[{"key":"team","operator":"Equal","value":"a","effect":"NoSchedule"}]',
      'scheduler.alpha.svc.io/tolerationsWhitelist': '[{"key":"team","operator":"Exists"}]',
    }),
    ns('legacy', { 'scheduler.alpha.kubernetes.io/defaultTolerations': '[{"key":"old","operator":"Exists"}]', 'scheduler.alpha.kubernetes.io/tolerationsWhitelist': '' }),
    ns('broken', { 'scheduler.alpha.svc.io/defaultTolerations': '{not json' }),
  ]),
});

test("the namespace's default tolerations are merged (both spellings); otherwise the cluster's", async () => {
  const team = await admit(plugin, podAttrs({ containers: [{ name: 'c', image: 'x' }] }, { namespace: 'team' }));
  assert.equal(tolerationsOf(team), [{ key: 'team', operator: 'Equal', value: 'a', effect: 'NoSchedule' }]);
  const plain = await admit(plugin, podAttrs({ containers: [{ name: 'c', image: 'x' }], tolerations: [{ key: 'gpu', operator: 'Exists' }] }, { namespace: 'plain' }));
  assert.equal(tolerationsOf(plain), [{ key: 'gpu', operator: 'Exists' }, { key: 'cluster-default', operator: 'Exists', effect: 'NoSchedule' }]);
  // An empty whitelist annotation means none, so anything goes there.
  const legacy = await admit(plugin, podAttrs({ tolerations: [{ key: 'anything', operator: 'Exists' }] }, { namespace: 'legacy' }));
  assert.equal(tolerationsOf(legacy), [{ key: 'anything', operator: 'Exists' }, { key: 'old', operator: 'Exists' }]);
});

test('a pod that is not BestEffort also tolerates memory pressure', async () => {
  const a = await admit(plugin, podAttrs({ containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] }, { namespace: 'legacy' }));
  assert.equal(tolerationsOf(a), [
    { key: 'old', operator: 'Exists' },
    { key: 'node.svc.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  // The namespace's whitelist must then allow it too, as established.
  await refusal(admit(plugin, podAttrs({ containers: [{ name: 'c', image: 'x', resources: { limits: { memory: '1Gi' } } }] }, { namespace: 'team' })));
});

test('tolerations outside the whitelist are refused with the established plain error', async () => {
  const ns = await refusal(admit(plugin, podAttrs({ tolerations: [{ key: 'gpu', operator: 'Exists' }] }, { namespace: 'team' })));
  assert.is(ns.code, 500);
  assert.is(ns.status.reason, undefined);
  assert.is(ns.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
  const cluster = await refusal(admit(plugin, podAttrs({ tolerations: [{ key: 'other', operator: 'Exists' }] }, { namespace: 'plain' })));
  assert.is(cluster.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist');
  // UPDATE: no defaults, the whitelist still applies.
  const upd = await refusal(admit(plugin, podAttrs({ tolerations: [{ key: 'other', operator: 'Exists' }] }, { namespace: 'plain', operation: 'UPDATE' })));
  assert.match(upd.message, /cluster whitelist/);
  const broken = await refusal(admit(plugin, podAttrs({}, { namespace: 'broken' })));
  assert.is(broken.code, 500);
});

test('merge keeps a toleration only when nothing else covers it', () => {
  const wide = { key: 'k', operator: 'Exists' };
  const narrow = { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' };
  assert.equal(mergeTolerations([narrow], [wide]), [wide]);
  assert.equal(mergeTolerations([wide, wide], []), [wide]);
  assert.equal(mergeTolerations([{ key: 't', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }], [{ key: 't', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 }]).length, 1);
});

test('a configuration with an invalid toleration is refused at start', () => {
  assert.throws(
    () => parsePodTolerationRestrictionConfiguration({ plugin: 'PodTolerationRestriction', source: 'p.yaml', value: { apiVersion: 'podtolerationrestriction.admission.k8s.io/v1alpha1', kind: 'Configuration', default: [{ key: 'k', operator: 'Sometimes' }] } }),
    (e: unknown) => e instanceof AdmissionConfigError && /p\.yaml.*default\[0\]\.operator/.test((e as Error).message),
  );
});

test.run();
