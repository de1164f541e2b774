// docs/custom-resources.md's examples, run as documented (bash, curl, jq) against the real
// apiserver in the order the page gives them; each output block must be what the command before
// it prints (the page's outputs hold no times, sizes or resourceVersions, so they compare exactly).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, ROOT } from '../helpers/apiserver.js';
import { docExamples, type DocsWorkspace, startDocsWorkspace } from '../helpers/doc-examples.js';

const test = suite('docs/custom-resources.md examples');
let ws: DocsWorkspace | undefined;
let server: ApiServerProcess | undefined;
let cwd = '';

test.before(async () => {
  ws = await startDocsWorkspace('crd');
  ({ server, cwd } = ws);
});

test.after(async () => {
  await ws?.stop();
});

test('every example runs and prints what the page shows', async () => {
  const list = docExamples(readFileSync(join(ROOT, 'docs', 'custom-resources.md'), 'utf8'));
  assert.ok(list.length >= 7, `found ${list.length} examples`);
  const [setup, ...rest] = list;
  assert.ok(setup!.script.startsWith('API='), 'the first block sets API');
  // CA comes from the page's first block; API from the environment (the test server's URL).
  const variables = setup!.script.split('\n').filter((l) => l.startsWith('CA='));
  assert.is(variables.length, 1, 'the first block sets CA');
  assert.ok(rest.every((ex) => ex.output !== undefined), 'every example shows what it prints');
  for (const ex of rest) {
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', [...variables, ex.script].join('\n')], {
      cwd,
      env: { ...process.env, API: server!.url },
      timeout: 20_000,
    });
    assert.is(stdout.trim(), ex.output!.trim(), `"${ex.title}": ${ex.script.split('\n')[0]}`);
  }
});

test.run();
