// `svc new controller <name>` creates a project that works as generated: `npm install` (svc as a
// file: dependency on this package), then `npm test` builds it with tsc and runs its test against a
// test cluster. Bad names and existing folders are refused with a clear message.
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { SVC_BIN } from '../helpers/svc-process.js';

let dir: string;
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-new-'));
});
test.after(() => {
  rmSync(dir, { recursive: true, force: true });
});

test('the generated project installs, builds and passes its own test', () => {
  const project = join(dir, 'my-copier');
  const out = execFileSync(process.execPath, [SVC_BIN, 'new', 'controller', 'my-copier', '--dir', project], { encoding: 'utf8' });
  assert.match(out, `created ${project}`);
  for (const f of ['package.json', 'tsconfig.json', 'src/my-copier.ts', 'test/my-copier.test.ts', 'README.md']) assert.ok(existsSync(join(project, f)), f);
  assert.match(readFileSync(join(project, 'src', 'my-copier.ts'), 'utf8'), "import { defineController, done, resources } from 'svc';");
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' };
  const install = spawnSync('npm', ['install', '--prefer-offline'], { cwd: project, encoding: 'utf8', env, timeout: 300_000 });
  assert.is(install.status, 0, `npm install:\n${install.stdout}\n${install.stderr}`);
  const run = spawnSync('npm', ['test'], { cwd: project, encoding: 'utf8', env, timeout: 300_000 });
  assert.is(run.status, 0, `npm test:\n${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /# pass 1/);
  assert.match(run.stdout, /# fail 0/);
});

test('a bad name or an existing folder is refused, naming the problem', () => {
  const bad = spawnSync(process.execPath, [SVC_BIN, 'new', 'controller', 'My_Controller', '--dir', join(dir, 'x')], { encoding: 'utf8' });
  assert.is(bad.status, 1);
  assert.match(bad.stderr, 'invalid controller name "My_Controller"');
  const taken = spawnSync(process.execPath, [SVC_BIN, 'new', 'controller', 'again', '--dir', dir], { encoding: 'utf8' });
  assert.is(taken.status, 1);
  assert.match(taken.stderr, 'already exists');
});

test.run();
