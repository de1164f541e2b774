// Debian's python3-kubernetes (the official Python client) drives `svc up` unmodified: GET /version/
// (with its trailing slash), list, create, and a watch with bookmarks (it sends `watch=True` and
// `allowWatchBookmarks=True`). The client script is test/fixtures/python/client_check.py. Then
// `utils.create_from_yaml` of objects that exist: its FailToCreateError carries the 409 bodies as
// the established server writes them, byte for byte (test/fixtures/python/create_from_yaml_twice.py).
// Missing /usr/bin/python3 or its kubernetes module: the test fails (.ci/run installs them).
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import { ROOT } from '../helpers/apiserver.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

const SCRIPT = join(ROOT, 'test', 'fixtures', 'python', 'client_check.py');
const CREATE_TWICE = join(ROOT, 'test', 'fixtures', 'python', 'create_from_yaml_twice.py');
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

test('python3-kubernetes: create_from_yaml of existing objects raises FailToCreateError with the established 409 bodies', async () => {
  const manifest = up.manifest(
    'objects.yaml',
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  a: "1"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector:
    matchLabels: {app: d}
  template:
    metadata:
      labels: {app: d}
    spec:
      containers:
      - name: c
        image: nginx:1
---
apiVersion: v1
kind: Secret
metadata:
  name: s
stringData:
  k: v
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: r
rules:
- apiGroups: [""]
  resources: [pods]
  verbs: [get]
`,
  );
  const r = await python([CREATE_TWICE, up.kubeconfig, manifest, 'twice']);
  assert.is(r.code, 0, `python client failed:\n${r.stdout}\n${r.stderr}`);
  const failures = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { status: number; reason: string; body: string });
  // The established server's bytes: Go's struct order (details before code; name, group, kind),
  // no empty group, a trailing newline; an aliased group in the spelling the request used.
  const conflict = (message: string, details: string) =>
    `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":${JSON.stringify(message)},"reason":"AlreadyExists","details":${details},"code":409}\n`;
  assert.equal(failures, [
    { status: 409, reason: 'Conflict', body: conflict('configmaps "x" already exists', '{"name":"x","kind":"configmaps"}') },
    { status: 409, reason: 'Conflict', body: conflict('deployments.apps "d" already exists', '{"name":"d","group":"apps","kind":"deployments"}') },
    { status: 409, reason: 'Conflict', body: conflict('secrets "s" already exists', '{"name":"s","kind":"secrets"}') },
    { status: 409, reason: 'Conflict', body: conflict('roles.rbac.authorization.k8s.io "r" already exists', '{"name":"r","group":"rbac.authorization.k8s.io","kind":"roles"}') },
  ]);
});

test.run();
