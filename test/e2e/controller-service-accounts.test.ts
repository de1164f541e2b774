// `controller-manager --use-service-account-credentials` against a real API server that signs
// service-account tokens and authorizes with ABAC: the manager's own credential (anonymous here)
// may read everything and manage service accounts but not create pods; only the account
// svc-system/replicaset-controller may. The ReplicaSet's pods appear, so the controller called as
// its own account with a TokenRequest token; the account was made by the manager.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { CONTROLLER_MANAGER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-controller-accounts-'));
let server: ApiServerProcess;
let manager: SvcProcess | undefined;

const policy = (spec: Record<string, unknown>) => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });

test.before(async () => {
  const key = join(dir, 'sa.key');
  writeFileSync(key, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  const policies = join(dir, 'policy.jsonl');
  writeFileSync(
    policies,
    [
      policy({ user: 'system:anonymous', namespace: '*', resource: '*', apiGroup: '*', nonResourcePath: '*', readonly: true }),
      policy({ user: 'system:anonymous', namespace: 'svc-system', resource: 'serviceaccounts', apiGroup: '*' }),
      policy({ user: 'system:anonymous', namespace: 'default', resource: 'replicasets', apiGroup: 'apps' }),
      policy({ user: 'system:serviceaccount:svc-system:replicaset-controller', namespace: '*', resource: '*', apiGroup: '*' }),
    ].join('\n'),
  );
  server = await startApiServer({
    args: [
      '--authorization-mode=ABAC', `--authorization-policy-file=${policies}`,
      '--service-account-issuer=https://svc.test', `--service-account-signing-key-file=${key}`, `--service-account-key-file=${key}`,
    ],
  });
});

test.after(async () => {
  if (manager && manager.proc.exitCode === null && manager.proc.signalCode === null) manager.proc.kill('SIGKILL');
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('each controller calls as its own service account with a TokenRequest token', async () => {
  // The manager's own credential: none (anonymous), which may not create pods.
  const svcconfig = join(dir, 'manager.svcconfig');
  writeFileSync(
    svcconfig,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: c', '  cluster:', `    server: ${server.url}`, `    certificate-authority: ${server.caFile}`,
      'users:', '- name: u', '  user: {}', 'contexts:', '- name: c', '  context: {cluster: c, user: u}', 'current-context: c', ''].join('\n'),
  );
  const refused = await server.request('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'by-hand' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  assert.is(refused.status, 403, 'anonymous may not create pods');

  manager = startExecutable(CONTROLLER_MANAGER_BIN, [`--svcconfig=${svcconfig}`, '--controllers=replicaset', '--leader-elect=false', '--secure-port=0', '--use-service-account-credentials']);
  await manager.waitFor((l) => l.msg === 'controller manager started', 30_000, 'start');
  assert.ok(manager.lines.some((l) => l.msg === 'controllers use their own service-account credentials'), manager.output());
  const account = await server.request('GET', '/api/v1/namespaces/svc-system/serviceaccounts/replicaset-controller');
  assert.is(account.status, 200, 'the manager made the account');

  const rs = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  assert.is((await server.request('POST', '/apis/apps/v1/namespaces/default/replicasets', rs)).status, 201);
  let pods = 0;
  await eventually(async () => {
    const list = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb')).text) as { items: unknown[] };
    pods = list.items.length;
    return pods === 2;
  }, 30_000, `the ReplicaSet's 2 pods (saw ${pods}):\n${manager.output().slice(-2000)}`);

  manager.proc.kill('SIGTERM');
  assert.is(await manager.exited, 0);
});

test.run();
