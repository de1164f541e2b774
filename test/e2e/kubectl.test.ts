// A real kubectl 1.31 (JSON request bodies) drives the server: get, get -w, get --chunk-size,
// create namespace, create configmap, label, delete and api-resources.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { kubeconfigFor, kubectl, kubectlStream } from '../helpers/kubectl.js';

forEachEngine('kubectl 1.31', (test, ctx) => {
  let kc = '';
  const ns = uniqueName('kns');
  const ok = (r: { code: number | null; stdout: string; stderr: string }) => assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);

  test('setup: kubeconfig', () => {
    kc = kubeconfigFor(ctx().server);
  });

  test('api-resources lists namespaces, configmaps, secrets and pods with short names', async () => {
    const r = await kubectl(kc, ['api-resources']);
    ok(r);
    for (const line of [/^configmaps\s+cm\s+v1\s+true\s+ConfigMap/m, /^namespaces\s+ns\s+v1\s+false\s+Namespace/m, /^pods\s+po\s+v1\s+true\s+Pod/m, /^secrets\s+v1\s+true\s+Secret/m, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment/m]) {
      assert.match(r.stdout, line);
    }
  });

  test('create namespace', async () => {
    const r = await kubectl(kc, ['create', 'namespace', ns]);
    ok(r);
    assert.match(r.stdout, new RegExp(`namespace/${ns} created`));
    const g = await ctx().server.request('GET', `/api/v1/namespaces/${ns}`);
    assert.is(g.status, 200);
  });

  test('create configmap and get it (table and -o json)', async () => {
    ok(await kubectl(kc, ['create', 'configmap', 'settings', '-n', ns, '--from-literal=color=blue', '--from-literal=size=L']));
    const list = await kubectl(kc, ['get', 'configmaps', '-n', ns]);
    ok(list);
    assert.match(list.stdout, /^NAME\b/m);
    assert.match(list.stdout, /^settings\b/m);
    const j = await kubectl(kc, ['get', 'configmap', 'settings', '-n', ns, '-o', 'json']);
    ok(j);
    assert.equal(JSON.parse(j.stdout).data, { color: 'blue', size: 'L' });
  });

  test('create secret and pod, get them', async () => {
    ok(await kubectl(kc, ['create', 'secret', 'generic', 'creds', '-n', ns, '--from-literal=password=hunter2']));
    const s = await kubectl(kc, ['get', 'secret', 'creds', '-n', ns, '-o', 'jsonpath={.data.password}']);
    ok(s);
    assert.is(Buffer.from(s.stdout, 'base64').toString(), 'hunter2');
    ok(await kubectl(kc, ['run', 'web', '-n', ns, '--image=nginx', '--restart=Never']));
    const p = await kubectl(kc, ['get', 'pods', '-n', ns]);
    ok(p);
    assert.match(p.stdout, /^web\b/m);
  });

  test('label', async () => {
    const r = await kubectl(kc, ['label', 'configmap', 'settings', '-n', ns, 'tier=backend']);
    ok(r);
    assert.match(r.stdout, /labeled/);
    const g = await ctx().server.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`);
    assert.is(g.json.metadata.labels.tier, 'backend');
    const sel = await kubectl(kc, ['get', 'configmaps', '-n', ns, '-l', 'tier=backend', '-o', 'name']);
    ok(sel);
    assert.is(sel.stdout.trim(), 'configmap/settings');
    const over = await kubectl(kc, ['label', 'configmap', 'settings', '-n', ns, 'tier=front', '--overwrite']);
    ok(over);
  });

  test('get --chunk-size pages through the list with limit/continue', async () => {
    for (let i = 0; i < 7; i++) ok(await kubectl(kc, ['create', 'configmap', `chunk-${i}`, '-n', ns]));
    const r = await kubectl(kc, ['get', 'configmaps', '-n', ns, '--chunk-size=3', '-o', 'name', '-v=6']);
    ok(r);
    const names = r.stdout.trim().split('\n');
    for (let i = 0; i < 7; i++) assert.ok(names.includes(`configmap/chunk-${i}`), r.stdout);
    assert.match(r.stderr, /limit=3/);
    assert.match(r.stderr, /continue=/);
  });

  test('get -w prints changes as they happen', async () => {
    const w = kubectlStream(kc, ['get', 'configmaps', '-n', ns, '-w', '-o', 'name']);
    try {
      const deadline = Date.now() + 15_000;
      while (!w.output().includes('configmap/settings') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const name = uniqueName('live');
      await ctx().server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
      while (!w.output().includes(`configmap/${name}`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(w.output().includes(`configmap/${name}`), w.output());
    } finally {
      w.child.kill('SIGTERM');
    }
  });

  test('delete configmap, pod and namespace', async () => {
    const c = await kubectl(kc, ['delete', 'configmap', 'settings', '-n', ns]);
    ok(c);
    assert.match(c.stdout, /configmap "settings" deleted/);
    assert.is((await ctx().server.request('GET', `/api/v1/namespaces/${ns}/configmaps/settings`)).status, 404);
    ok(await kubectl(kc, ['delete', 'pod', 'web', '-n', ns]));
    ok(await kubectl(kc, ['delete', 'secret', 'creds', '-n', ns]));
    // Without a namespace controller yet, the namespace stays Terminating: do not wait for it.
    const n = await kubectl(kc, ['delete', 'namespace', ns, '--wait=false']);
    ok(n);
    const g = await ctx().server.request('GET', `/api/v1/namespaces/${ns}`);
    assert.is(g.json.status.phase, 'Terminating');
  });

  test('errors come back as kubectl prints them: NotFound and AlreadyExists', async () => {
    const nf = await kubectl(kc, ['get', 'configmap', 'nope', '-n', 'default']);
    assert.is.not(nf.code, 0);
    assert.match(nf.stderr, /NotFound|not found/);
    ok(await kubectl(kc, ['create', 'configmap', 'twice', '-n', 'default']));
    const again = await kubectl(kc, ['create', 'configmap', 'twice', '-n', 'default']);
    assert.match(again.stderr, /AlreadyExists|already exists/);
  });
});
