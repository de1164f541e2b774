// Loading controller modules for `svc run` / `svc up --controller-module`: the export forms that
// count, the errors for bad modules, and the default lock name derived from controller names.
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import { resources } from '../../src/client/index.js';
import { ControllerModuleError, defaultLockName, definitionsOf, loadControllerModules } from '../../src/cli/controller-modules.js';
import { defineController, done } from '../../src/runtime/index.js';

const def = (name: string) => defineController({ name, watches: resources.configmaps, reconcile: () => done() });
const RUNTIME = pathToFileURL(new URL('../../src/runtime/index.js', import.meta.url).pathname).href;
const CLIENT = pathToFileURL(new URL('../../src/client/index.js', import.meta.url).pathname).href;

let dir: string;
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-modules-'));
});
test.after(() => rmSync(dir, { recursive: true, force: true }));

function moduleFile(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, `import { defineController, done } from '${RUNTIME}';\nimport { resources } from '${CLIENT}';\n` +
    `const mk = (name) => defineController({ name, watches: resources.configmaps, reconcile: () => done() });\n${body}\n`);
  return file;
}

test('definitionsOf: a default export (one or an array), a controllers array and named definitions, each once', () => {
  const a = def('a');
  const b = def('b');
  const c = def('c');
  assert.equal(definitionsOf({ default: a }).map((d) => d.name), ['a']);
  assert.equal(definitionsOf({ default: [a, b] }).map((d) => d.name), ['a', 'b']);
  assert.equal(definitionsOf({ controllers: [a, b], c, again: a, helper: () => 1, n: 3 }).map((d) => d.name), ['a', 'b', 'c']);
  assert.equal(definitionsOf({ notOne: { name: 'x', start: () => {} } }), []);
});

test('loadControllerModules: ES module forms, in order across files', async () => {
  const one = moduleFile('one.mjs', `export default [mk('first'), mk('second')];`);
  const two = moduleFile('two.mjs', `export const controllers = [mk('third')];\nexport const fourth = mk('fourth');`);
  const defs = await loadControllerModules([one, two]);
  assert.equal(defs.map((d) => d.name), ['first', 'second', 'third', 'fourth']);
});

test('loadControllerModules: a CommonJS module (module.exports = { controllers } or a definition)', async () => {
  const file = join(dir, 'common.cjs');
  const runtime = new URL('../../src/runtime/index.js', import.meta.url).pathname;
  const client = new URL('../../src/client/index.js', import.meta.url).pathname;
  // CommonJS cannot require() the ES runtime here: an ES module makes the definitions and hands
  // them over through a global, as a bundled module would carry its own copy.
  const esm = join(dir, 'made.mjs');
  writeFileSync(esm, `import { defineController, done } from '${pathToFileURL(runtime).href}';\nimport { resources } from '${pathToFileURL(client).href}';\n` +
    `globalThis.__cjsDefs = [defineController({ name: 'cjs-one', watches: resources.configmaps, reconcile: () => done() })];\n`);
  await import(pathToFileURL(esm).href);
  writeFileSync(file, `module.exports = { controllers: globalThis.__cjsDefs, other: 1 };\n`);
  const defs = await loadControllerModules([file]);
  assert.equal(defs.map((d) => d.name), ['cjs-one']);
});

test('loadControllerModules: clear errors for missing, broken, empty modules and duplicate names', async () => {
  const cases: Array<[string[], RegExp]> = [
    [[join(dir, 'missing.js')], /controller module .*missing\.js: cannot read it/],
    [[moduleFile('broken.mjs', 'export const = ;')], /controller module .*broken\.mjs: failed to load/],
    [[moduleFile('empty.mjs', 'export const x = 1;')], /exports no controllers/],
    [[moduleFile('d1.mjs', `export default mk('same');`), moduleFile('d2.mjs', `export default mk('same');`)], /controller name "same" is used twice/],
  ];
  for (const [paths, message] of cases) {
    try {
      await loadControllerModules(paths);
      assert.unreachable(`loaded ${paths.join(', ')}`);
    } catch (e) {
      assert.instance(e, ControllerModuleError);
      assert.match((e as Error).message, message);
    }
  }
});

test('defaultLockName: sorted names joined by ".", made a valid object name, long sets hashed', () => {
  assert.is(defaultLockName([def('b-ctl'), def('a-ctl')]), 'a-ctl.b-ctl');
  assert.is(defaultLockName([def('My_Controller')]), 'my-controller');
  const many = Array.from({ length: 30 }, (_, i) => def(`controller-number-${i}`));
  const long = defaultLockName(many);
  assert.ok(long.length <= 200, long);
  assert.match(long, /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/);
  assert.is.not(long, defaultLockName(many.slice(1)), 'different sets, different locks');
});

test.run();
