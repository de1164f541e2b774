// docs/apply.md's examples, run as documented (bash, curl, jq) against the real apiserver in the
// order the page gives them; each output block must be what the command before it prints.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, ROOT } from '../helpers/apiserver.js';
import { docExamples, type DocsWorkspace, startDocsWorkspace } from '../helpers/doc-examples.js';

const test = suite('docs/apply.md examples');
let ws: DocsWorkspace | undefined;
let server: ApiServerProcess | undefined;
let cwd = '';

test.before(async () => {
  ws = await startDocsWorkspace('apply');
  ({ server, cwd } = ws);
});

test.after(async () => {
  await ws?.stop();
});

test('every example runs and prints what the page shows', async () => {
  const list = docExamples(readFileSync(join(ROOT, 'docs', 'apply.md'), 'utf8'));
  assert.ok(list.length >= 7, `found ${list.length} examples`);
  assert.ok(list[0]!.script.startsWith('API='), 'the first block sets API');
  for (const ex of list.slice(1)) {
    // Each request in a later second than the one before: output must not depend on timing.
    await new Promise((r) => setTimeout(r, 1100));
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', ex.script], { cwd, env: { ...process.env, API: server!.url }, timeout: 20_000 });
    if (ex.output !== undefined) assert.is(stdout.trim(), ex.output.trim(), `"${ex.title}": ${ex.script.split('\n')[0]}`);
  }
});

test.run();
