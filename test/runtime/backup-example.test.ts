// The guide's backup controller and its test (docs/examples/backup-controller{,.test}.ts): the
// example test runs as the guide says (`node --test`, against a test cluster) and passes, and the
// guide shows both files as they are.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/apiserver.js';

test('node --test dist/docs/examples/backup-controller.test.js passes', () => {
  const r = spawnSync(process.execPath, ['--test', join(ROOT, 'dist', 'docs', 'examples', 'backup-controller.test.js')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.is(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /# pass 1/);
  assert.match(r.stdout, /# fail 0/);
});

test('docs/writing-controllers.md shows the controller and its test as they are', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'writing-controllers.md'), 'utf8');
  for (const file of ['backup-controller.ts', 'backup-controller.test.ts']) {
    assert.ok(doc.includes(readFileSync(join(ROOT, 'docs', 'examples', file), 'utf8')), `${file} is out of date in the guide`);
  }
});

test.run();
