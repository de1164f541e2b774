// PodPreset's merge rules (the established plugin's), without a server: which presets match, what is
// merged where, what is a conflict (nothing applied then), what is left alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../../src/api/generated/kinds.js';
import { podPresetDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { matchingPodPresets, mergePodPresets, podPresetAdmission, type PodPresetLike } from '../../../src/apiserver/admission/pod-preset.js';
import { admit, podAttrs } from './plugin-harness.js';

const pp = (name: string, spec: PodPresetLike['spec'], rv = '7'): PodPresetLike => ({ metadata: { name, resourceVersion: rv }, spec });
const podOf = (spec: Record<string, unknown>, labels: Record<string, string> = { app: 'web' }): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels }, spec }) as unknown as Pod;

test('selectors: matchLabels and expressions as label selectors; a preset without one matches every pod', () => {
  const list = [
    pp('all', { env: [] }),
    pp('web', { selector: { matchLabels: { app: 'web' } } }),
    pp('not-db', { selector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['db'] }] } }),
    pp('db', { selector: { matchLabels: { app: 'db' } } }),
  ];
  assert.equal(matchingPodPresets(list, { app: 'web' }).map((p) => p.metadata.name), ['all', 'web', 'not-db']);
  assert.equal(matchingPodPresets(list, undefined).map((p) => p.metadata.name), ['all', 'not-db']);
});

test('merge: env, envFrom and mounts into containers and init containers, volumes into the pod, the pod\'s own first', () => {
  const pod = podOf({
    initContainers: [{ name: 'init', image: 'i' }],
    containers: [{ name: 'c', image: 'x', env: [{ name: 'OWN', value: '1' }], envFrom: [{ secretRef: { name: 's' } }] }],
    volumes: [{ name: 'own', emptyDir: {} }],
  });
  const a = pp('a', { env: [{ name: 'A', value: 'a' }], envFrom: [{ configMapRef: { name: 'cm' } }], volumeMounts: [{ name: 'v', mountPath: '/v' }], volumes: [{ name: 'v', emptyDir: {} }] }, '11');
  const b = pp('b', { env: [{ name: 'A', value: 'a' }, { name: 'B', value: 'b' }], envFrom: [{ configMapRef: { name: 'cm' } }] }, '12');
  const { pod: out, conflicts } = mergePodPresets(pod, [a, b]);
  assert.equal(conflicts, []);
  const c = (out!.spec!.containers![0]! as unknown) as Record<string, unknown>;
  assert.equal(c['env'], [{ name: 'OWN', value: '1' }, { name: 'A', value: 'a' }, { name: 'B', value: 'b' }]);
  // envFrom never conflicts: every preset's sources are appended, even an equal one.
  assert.equal(c['envFrom'], [{ secretRef: { name: 's' } }, { configMapRef: { name: 'cm' } }, { configMapRef: { name: 'cm' } }]);
  assert.equal(c['volumeMounts'], [{ name: 'v', mountPath: '/v' }]);
  const init = (out!.spec!.initContainers![0] as unknown) as Record<string, unknown>;
  assert.equal(init['env'], [{ name: 'A', value: 'a' }, { name: 'B', value: 'b' }]);
  assert.equal(init['volumeMounts'], [{ name: 'v', mountPath: '/v' }]);
  assert.equal(out!.spec!.volumes, [{ name: 'own', emptyDir: {} }, { name: 'v', emptyDir: {} }]);
  assert.equal(out!.metadata.annotations, { 'podpreset.admission.svc.io/podpreset-a': '11', 'podpreset.admission.svc.io/podpreset-b': '12' });
  // The input is not changed.
  assert.is(pod.metadata.annotations, undefined);
});

test('an identical entry already there is no conflict and is not added twice', () => {
  const pod = podOf({ containers: [{ name: 'c', image: 'x', env: [{ name: 'A', value: 'a' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', emptyDir: {} }] });
  const { pod: out } = mergePodPresets(pod, [pp('a', { env: [{ name: 'A', value: 'a' }], volumeMounts: [{ name: 'v', mountPath: '/v' }], volumes: [{ name: 'v', emptyDir: {} }] })]);
  assert.equal((out!.spec!.containers![0]! as unknown as Record<string, unknown>)['env'], [{ name: 'A', value: 'a' }]);
  assert.equal(out!.spec!.volumes, [{ name: 'v', emptyDir: {} }]);
});

test('conflicts: env value, volume source, mount by name, mount by path, between presets: nothing applied', () => {
  const base = { containers: [{ name: 'c', image: 'x', env: [{ name: 'A', value: '1' }], volumeMounts: [{ name: 'v', mountPath: '/v' }] }], volumes: [{ name: 'v', emptyDir: {} }] };
  const cases: [PodPresetLike[], RegExp][] = [
    [[pp('e', { env: [{ name: 'A', value: '2' }] })], /merging env for e has a conflict on A/],
    [[pp('vol', { volumes: [{ name: 'v', hostPath: { path: '/x' } }] })], /merging volumes for vol has a conflict on v/],
    [[pp('m', { volumeMounts: [{ name: 'v', mountPath: '/other' }] })], /merging volume mounts for m has a conflict on v/],
    [[pp('path', { volumeMounts: [{ name: 'w', mountPath: '/v' }] })], /merging volume mounts for path has a conflict on mount path \/v/],
    [[pp('x', { env: [{ name: 'B', value: '1' }] }), pp('y', { env: [{ name: 'B', value: '2' }] })], /merging env for y has a conflict on B/],
  ];
  for (const [presets, why] of cases) {
    const { pod, conflicts } = mergePodPresets(podOf(base), presets);
    assert.is(pod, undefined, String(why));
    assert.match(conflicts.join('\n'), why);
  }
});

function plugin(presets: SvcObject[]) {
  return podPresetAdmission({ presets: async (ns) => presets.filter((p) => p.metadata.namespace === ns) });
}
const stored = (name: string, spec: Record<string, unknown>, namespace = 'ns'): SvcObject =>
  ({ apiVersion: 'settings.svc.io/v1alpha1', kind: 'PodPreset', metadata: { name, namespace, resourceVersion: '3' }, spec });

test('the plugin: pod creates only, not mirror pods, not excluded pods, presets of the pod\'s namespace only', async () => {
  const p = plugin([stored('env', { env: [{ name: 'A', value: 'a' }] }), stored('elsewhere', { env: [{ name: 'Z', value: 'z' }] }, 'other')]);
  const spec = () => ({ containers: [{ name: 'c', image: 'x' }] });
  const envOf = (a: Awaited<ReturnType<typeof admit>>) => (a.object!.spec as { containers: { env?: unknown }[] }).containers[0]!.env;
  assert.equal(envOf(await admit(p, podAttrs(spec()))), [{ name: 'A', value: 'a' }]);
  assert.is(envOf(await admit(p, podAttrs(spec(), { operation: 'UPDATE' }))), undefined);
  assert.is(envOf(await admit(p, podAttrs(spec(), { subresource: 'status' }))), undefined);
  assert.is(envOf(await admit(p, podAttrs(spec(), {}, { annotations: { 'svc.io/config.mirror': 'abc' } }))), undefined);
  assert.is(envOf(await admit(p, podAttrs(spec(), {}, { annotations: { 'podpreset.admission.svc.io/exclude': 'true' } }))), undefined);
  assert.equal(envOf(await admit(p, podAttrs(spec(), {}, { annotations: { 'podpreset.admission.svc.io/exclude': 'false' } }))), [{ name: 'A', value: 'a' }]);
  // A rerun of the mutating chain (a webhook changed the pod) does not apply the presets again.
  const values = new Map<string, unknown>();
  const first = await admit(p, podAttrs(spec(), { reinvocation: { isReinvoke: false, shouldReinvoke: true, values } }));
  const again = await admit(p, { ...first, reinvocation: { isReinvoke: true, shouldReinvoke: false, values } });
  assert.equal(envOf(again), [{ name: 'A', value: 'a' }]);
});

test('the kind\'s validation: at least one thing to inject, mounts of its own volumes, names', () => {
  const v = (spec: Record<string, unknown>) => podPresetDefinition.validate!(stored('x', spec)).map((e) => `${e.field}: ${e.message}`);
  assert.equal(v({ selector: {} }), ['spec.volumes.env.envFrom.volumeMounts: Required value: must specify at least one']);
  assert.equal(v({ env: [{ name: 'A', value: '1' }] }), []);
  assert.equal(v({ volumeMounts: [{ name: 'v', mountPath: '/v' }] }), ['spec.volumeMounts[0].name: Not found: "v"']);
  assert.ok(v({ volumes: [{ name: 'Bad_Name', emptyDir: {} }] })[0]!.startsWith('spec.volumes[0].name: Invalid value'));
  assert.ok(v({ env: [{ name: '1=x' }] })[0]!.startsWith('spec.env[0].name: Invalid value'));
  assert.ok(v({ env: [], selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] } })[0]!.startsWith('spec.selector'));
});

test.run();
