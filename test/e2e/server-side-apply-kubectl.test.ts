// A real kubectl 1.31 drives server-side apply: apply --server-side, re-apply, conflict with a patch, --force-conflicts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';

forEachEngine('kubectl apply --server-side', (test, ctx) => {
  let kc = '';
  const name = uniqueName('web');
  const dir = mkdtempSync(join(tmpdir(), 'svc-ssa-'));
  const manifest = join(dir, 'deployment.yaml');
  writeFileSync(
    manifest,
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: nginx
`,
  );
  const ok = (r: { code: number | null; stdout: string; stderr: string }) => assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const applyArgs = ['apply', '--server-side', '--validate=false', '-f', manifest];

  test('setup: kubeconfig', () => {
    kc = kubeconfigFor(ctx().server);
  });

  test('apply --server-side creates, then re-applies without a change', async () => {
    const r = await kubectl(kc, applyArgs);
    ok(r);
    assert.match(r.stdout, `deployment.apps/${name} serverside-applied`);
    const first = await ctx().server.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`);
    ok(await kubectl(kc, applyArgs));
    const second = await ctx().server.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`);
    assert.is(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.equal(second.json.metadata.managedFields.map((e: { manager: string; operation: string }) => `${e.manager}/${e.operation}`), ['kubectl/Apply']);
  });

  test('a kubectl patch takes spec.replicas; the next apply conflicts and --force-conflicts takes it back', async () => {
    ok(await kubectl(kc, ['patch', 'deployment', name, '--type=merge', '-p', '{"spec":{"replicas":5}}']));
    const c = await kubectl(kc, applyArgs);
    assert.is(c.code, 1, c.stdout);
    assert.match(c.stderr, 'Apply failed with 1 conflict: conflict with "kubectl-patch": .spec.replicas');
    ok(await kubectl(kc, [...applyArgs, '--force-conflicts']));
    const g = await ctx().server.request('GET', `/apis/apps/v1/namespaces/default/deployments/${name}`);
    assert.is(g.json.spec.replicas, 2);
    assert.equal(g.json.metadata.managedFields.map((e: { manager: string }) => e.manager), ['kubectl']);
  });
});
