import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinResourceKey, builtinResources, generateKindTypes, kindTypeName, type Pod } from '../../src/api/index.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

test('src/api/generated/kinds.ts is what `npm run gen:types` generates from the schemas', () => {
  const committed = readFileSync(join(ROOT, 'src/api/generated/kinds.ts'), 'utf8');
  assert.ok(committed === generateKindTypes(builtinResources()), 'src/api/generated/kinds.ts is stale: run npm run gen:types');
});

test('every built-in kind has a generated type and an entry in BuiltinKinds', () => {
  const text = generateKindTypes(builtinResources());
  for (const d of builtinResources()) {
    // Another version of a kind with the same fields shares the kind's type (src/api/type-generator.ts).
    const type = kindTypeName(d);
    assert.ok(text.includes(`export interface ${type} extends SvcObject {`), type);
    const k = builtinResourceKey(d);
    assert.ok(text.includes(/^[a-z]+$/.test(k) ? `  ${k}: ${type};` : `  "${k}": ${type};`), k);
  }
});

test('typed fields follow the schema: a pod template spec is the PodSpec, open objects keep other fields', () => {
  const text = generateKindTypes(builtinResources());
  assert.ok(/export interface DeploymentSpec \{[^}]*?template\?: PodTemplateSpec;/.test(text));
  assert.ok(/export interface PodTemplateSpec \{[^}]*?spec\?: PodSpec;/.test(text));
  assert.ok(text.includes('  affinity?: Affinity;'));
  // Compile-time check that the generated type is usable as a user would write it.
  const p: Pod = { metadata: { name: 'x' }, spec: { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '100m' } } }], priority: 5 } };
  assert.is(p.spec?.containers?.[0]?.resources?.requests?.['cpu'], '100m');
});

test.run();
