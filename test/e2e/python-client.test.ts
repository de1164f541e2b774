// Debian's python3-kubernetes (the official Python client) drives `svc up` unmodified: GET /version/
// (with its trailing slash), list, create, and a watch with bookmarks (it sends `watch=True` and
// `allowWatchBookmarks=True`). The client script is test/fixtures/python/client_check.py.
// Missing /usr/bin/python3 or its kubernetes module: the test fails (.ci/run installs them).
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import { ROOT } from '../helpers/apiserver.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

const SCRIPT = join(ROOT, 'test', 'fixtures', 'python', 'client_check.py');
let up: SvcUp;

test.before(async () => {
  up = await startSvcUp('python-client', ['--nodes=1']);
});

test.after(async () => {
  await up?.stop();
});

function python(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/python3', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: up.dir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: -1, stdout, stderr: `${stderr}${String(err)}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('python3-kubernetes: version, list, create, watch with bookmarks', async () => {
  const r = await python([SCRIPT, up.kubeconfig, 'from-python']);
  assert.is(r.code, 0, `python client failed:\n${r.stdout}\n${r.stderr}`);
  const steps = Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: string } & Record<string, unknown>)
      .map((s) => [s.step, s]),
  );
  assert.match(String(steps['version']?.['gitVersion']), /^v\d+\.\d+\.\d+/);
  assert.ok((steps['list']?.['namespaces'] as string[]).includes('from-python'));
  assert.is(steps['create']?.['name'], 'from-python');
  const events = steps['watch']?.['events'] as { type: string; name: string }[];
  const changes = events.filter((e) => e.type !== 'BOOKMARK');
  assert.equal(changes, [
    { type: 'MODIFIED', name: 'from-python' },
    { type: 'ADDED', name: 'second' },
  ]);
});

test.run();
