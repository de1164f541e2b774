// Strategic merge patch under the built-in kinds' schemas: keyed lists merge on their key, sets
// merge as unions, other lists are replaced, and each directive ($patch replace/delete as object
// and as list item, $retainKeys, $deleteFromPrimitiveList, $setElementOrder) does what the
// established clients expect. Bad directives are 400s naming the path.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { statusCodeOf } from '../helpers/status-code.js';
import { builtinResources } from '../../src/api/registry.js';
import { parsePatch } from '../../src/apiserver/handlers/patch.js';
import { DEFAULT_INPUT_LIMITS } from '../../src/apiserver/input-limits.js';
import { applyStrategicMergePatch, applyStrategicMergePatchPausing } from '../../src/apiserver/strategic-merge-patch.js';

const deploymentSchema = builtinResources().find((d) => d.kind === 'Deployment')!.schema;
const podSchema = builtinResources().find((d) => d.kind === 'Pod')!.schema;

function deployment() {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web', tier: 'front' }, finalizers: ['a', 'b'] },
    spec: {
      replicas: 2,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'app', image: 'app:1', args: ['--a', '--b'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] },
            { name: 'sidecar', image: 'side:1' },
          ],
          tolerations: [{ key: 'x', operator: 'Exists' }],
        },
      },
    },
  };
}

const patch = (p: unknown, schema = deploymentSchema, original: unknown = deployment()) => applyStrategicMergePatch(original, p, schema) as ReturnType<typeof deployment>;

const code = statusCodeOf;

test('keyed lists merge on their key: one container changes, the other stays; a new one is appended', () => {
  const out = patch({ spec: { template: { spec: { containers: [{ name: 'app', image: 'app:2' }, { name: 'extra', image: 'x:1' }] } } } });
  const cs = out.spec.template.spec.containers;
  assert.equal(cs.map((c) => c.name), ['app', 'sidecar', 'extra']);
  assert.is(cs[0]!.image, 'app:2');
  assert.equal(cs[0]!.args, ['--a', '--b'], 'fields the patch leaves out are kept');
  assert.is(cs[1]!.image, 'side:1');
});

test('nested keyed lists merge too (env by name); atomic lists are replaced (args, tolerations)', () => {
  const out = patch({ spec: { template: { spec: { containers: [{ name: 'app', args: ['--c'], env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] }], tolerations: [{ key: 'y', operator: 'Exists' }] } } } });
  const app = out.spec.template.spec.containers[0]!;
  assert.equal(app.args, ['--c']);
  assert.equal(app.env, [{ name: 'A', value: '1' }, { name: 'B', value: '3' }, { name: 'C', value: '4' }]);
  assert.equal(out.spec.template.spec.tolerations, [{ key: 'y', operator: 'Exists' }]);
});

test('maps merge key by key and null deletes', () => {
  const out = patch({ metadata: { labels: { tier: null, env: 'prod' } }, spec: { replicas: 5 } });
  assert.equal(out.metadata.labels, { app: 'web', env: 'prod' });
  assert.is(out.spec.replicas, 5);
});

test('$patch: delete as a list item removes the item with that key', () => {
  const out = patch({ spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } });
  assert.equal(out.spec.template.spec.containers.map((c) => c.name), ['app']);
});

test('$patch: replace as a list item replaces the list with the other items', () => {
  const out = patch({ spec: { template: { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1' }] } } } });
  assert.equal(out.spec.template.spec.containers, [{ name: 'only', image: 'o:1' }]);
});

test('$patch: replace on an object replaces it whole; $patch: delete on an object removes it', () => {
  const replaced = patch({ metadata: { labels: { $patch: 'replace', only: 'this' } } });
  assert.equal(replaced.metadata.labels, { only: 'this' });
  const deleted = patch({ spec: { strategy: { $patch: 'delete' } } });
  assert.is((deleted.spec as { strategy?: unknown }).strategy, undefined);
});

test('$retainKeys drops the keys not listed (a Deployment strategy switched to Recreate)', () => {
  const out = patch({ spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } });
  assert.equal(out.spec.strategy, { type: 'Recreate' });
  assert.is(code(() => patch({ spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } })), 400);
});

test('set lists merge as unions; $deleteFromPrimitiveList removes values', () => {
  const added = patch({ metadata: { finalizers: ['b', 'c'] } });
  assert.equal(added.metadata.finalizers, ['a', 'b', 'c']);
  const removed = patch({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } });
  assert.equal(removed.metadata.finalizers, ['b']);
});

test('$setElementOrder orders the merged list', () => {
  const out = patch({ spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'app:3' }] } } } });
  assert.equal(out.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`), ['sidecar=side:1', 'app=app:3']);
});

test('a pod: volumes by name, ports by containerPort', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { volumes: [{ name: 'a', emptyDir: {} }], containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 443 }] }] } };
  const out = applyStrategicMergePatch(pod, { spec: { volumes: [{ name: 'b', emptyDir: {} }], containers: [{ name: 'c', ports: [{ containerPort: 80, name: 'http' }] }] } }, podSchema) as typeof pod;
  assert.equal(out.spec.volumes.map((v) => v.name), ['a', 'b']);
  assert.equal(out.spec.containers[0]!.ports, [{ containerPort: 80, name: 'http' }, { containerPort: 443 }]);
});

test('neither argument is changed', () => {
  const original = deployment();
  const before = JSON.stringify(original);
  const p = { spec: { template: { spec: { containers: [{ name: 'app', image: 'app:9' }] } } } };
  const pBefore = JSON.stringify(p);
  patch(p, deploymentSchema, original);
  assert.is(JSON.stringify(original), before);
  assert.is(JSON.stringify(p), pBefore);
});

test('bad patches are 400s: not an object, an unknown directive, an item without its merge key', () => {
  assert.is(code(() => patch([])), 400);
  assert.is(code(() => patch({ spec: { $patch: 'merge-harder' } })), 400);
  assert.is(code(() => patch({ spec: { $weird: 1 } })), 400);
  assert.is(code(() => patch({ spec: { template: { spec: { containers: [{ image: 'no-name' }] } } } })), 400);
  assert.is(code(() => patch({ $patch: 'delete' })), 400);
});

test('custom resources (no merge keys in their schemas) refuse the media type with 415', () => {
  const limits = DEFAULT_INPUT_LIMITS;
  assert.is(code(() => parsePatch('application/strategic-merge-patch+json', Buffer.from('{}'), limits, { schema: undefined, strategic: false })), 415);
  const apply = parsePatch('application/strategic-merge-patch+json', Buffer.from('{"metadata":{"labels":{"a":"b"}}}'), limits, { schema: deploymentSchema, strategic: true });
  assert.equal(apply(deployment() as never).metadata.labels, { app: 'web', tier: 'front', a: 'b' });
});

test('repeated keys: a patch item merges into the first holder of its key, a delete removes the first, later items find the rest', () => {
  const original = deployment();
  original.spec.template.spec.containers[0]!.env = [{ name: 'A', value: '1' }, { name: 'B', value: '2' }, { name: 'A', value: '3' }];
  const out = patch({ spec: { template: { spec: { containers: [{ name: 'app', env: [{ name: 'A', value: 'x' }, { name: 'A', $patch: 'delete' }, { name: 'A', value: 'y' }, { name: 'C', value: 'c' }, { name: 'C', value: 'd' }] }] } } } }, deploymentSchema, original);
  assert.equal(out.spec.template.spec.containers[0]!.env, [{ name: 'B', value: '2' }, { name: 'A', value: 'y' }, { name: 'C', value: 'd' }]);
});

test('sets and primitive lists compare values exactly: 1 and "1" differ, objects by content', () => {
  const original = { metadata: { finalizers: ['a', 'b', 'a'] } };
  const out = applyStrategicMergePatch(original, { metadata: { finalizers: ['b', 'c', 'c', 'd'], '$deleteFromPrimitiveList/finalizers': ['a', 'd', 1] } }, deploymentSchema) as { metadata: { finalizers: string[] } };
  assert.equal(out.metadata.finalizers, ['b', 'c']);
});

// Issue 23: 100,000 env entries took 65.8 s (quadratic: a scan of the list per patch item).
test('linear: 100,000 env entries merged into 50,000, and 100,000 finalizers, each in well under the quadratic time', () => {
  const original = deployment();
  original.spec.template.spec.containers[0]!.env = Array.from({ length: 50_000 }, (_, i) => ({ name: `E${i * 2}`, value: 'old' }));
  original.metadata.finalizers = Array.from({ length: 50_000 }, (_, i) => `f${i * 2}`);
  const env = Array.from({ length: 100_000 }, (_, i) => ({ name: `E${i}`, value: 'new' }));
  const finalizers = Array.from({ length: 100_000 }, (_, i) => `f${i}`);
  const order = env.map((e) => ({ name: e.name })).reverse();
  const t = performance.now();
  const out = patch({ metadata: { finalizers }, spec: { template: { spec: { containers: [{ name: 'app', env, '$setElementOrder/env': order }] } } } }, deploymentSchema, original);
  const ms = performance.now() - t;
  const merged = out.spec.template.spec.containers[0]!.env!;
  assert.is(merged.length, 100_000);
  assert.equal(merged[0], { name: 'E99999', value: 'new' });
  assert.equal(merged[99_999], { name: 'E0', value: 'new' });
  assert.is(out.metadata.finalizers.length, 100_000);
  // Quadratic: over a minute on an idle machine (minutes on a loaded one). Linear: well under a
  // second idle; the bound leaves room for a CI box shared many ways.
  assert.ok(ms < 30_000, `took ${ms.toFixed(0)} ms`);
});

test('the pausing form gives the same result and pauses while it works on a large patch', async () => {
  const env = Array.from({ length: 100_000 }, (_, i) => ({ name: `E${i}`, value: String(i) }));
  const p = { spec: { template: { spec: { containers: [{ name: 'app', env }] } } } };
  let pauses = 0;
  const pausing = await applyStrategicMergePatchPausing(deployment(), p, deploymentSchema, async () => {
    pauses++;
    await new Promise((r) => setImmediate(r));
  });
  assert.equal(pausing, applyStrategicMergePatch(deployment(), p, deploymentSchema));
  assert.ok(pauses >= 1, `paused ${pauses} times`);
  // A pause that throws (a request past its deadline) abandons the merge.
  const err = await applyStrategicMergePatchPausing(deployment(), p, deploymentSchema, () => Promise.reject(new Error('deadline'))).catch((e: Error) => e);
  assert.instance(err, Error);
});

test.run();
