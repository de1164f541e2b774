// Projected service-account token volumes end to end, every part its own process over HTTPS:
// the apiserver (Node,RBAC, no anonymous, NodeRestriction, the ServiceAccount admission plugin,
// BoundServiceAccountTokenVolume on), the controller manager (serviceaccount and
// root-ca-cert-publisher only, under its own name with --use-service-account-credentials) and
// `svc nodes` (one node, --node-identity=impersonate). A pod bound to the node gets the
// kube-api-access volume; the node asks for its token as system:node:<name>; the token authenticates
// as the pod's service account bound to the pod (SelfSubjectReview) and is refused once the pod is
// deleted. The node serves the volume's files only to users allowed nodes/proxy.
import { generateKeyPairSync } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigMap, Node, Pod } from '../../../src/api/generated/kinds.js';
import { connect, type Connection } from '../../../src/client/connect.js';
import { resources } from '../../../src/client/typed.js';
import { startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../../helpers/client.js';
import { createCA } from '../../helpers/pki.js';
import { CONTROLLER_MANAGER_BIN, startExecutable, startSvc, type SvcProcess } from '../../helpers/svc-process.js';
import { grantNodeImpersonation, SECURE_USERS } from '../../helpers/topology.js';

const NS = 'default';
let dir: string;
let server: ApiServerProcess;
let admin: Connection;
const daemons: SvcProcess[] = [];

interface Answer {
  code: number;
  body: string;
}

/** An HTTPS request with a bearer token (or none); `ca` undefined: the node's self-signed certificate is not checked. */
function call(url: string, method: string, token: string | undefined, body?: unknown, ca?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method,
        ...(ca ? { ca, servername: 'localhost' } : { rejectUnauthorized: false }),
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ code: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

/** `svc auth whoami`: a SelfSubjectReview made with `token`. */
async function whoami(token: string): Promise<Answer> {
  return call(`${server.url}/apis/authentication.svc.io/v1/selfsubjectreviews`, 'POST', token, { apiVersion: 'authentication.svc.io/v1', kind: 'SelfSubjectReview' }, readFileSync(server.caFile, 'utf8'));
}

let nodeName = '';
let agent = '';

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-projected-'));
  const ca = await createCA('projected-ca', dir);
  const key = join(dir, 'sa.key');
  writeFileSync(key, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  server = await startApiServer({
    args: [
      '--authorization-mode=Node,RBAC',
      '--anonymous-auth=false',
      `--client-ca-file=${ca.certFile}`,
      '--service-account-issuer=https://svc.projected.test',
      `--service-account-signing-key-file=${key}`,
      `--service-account-key-file=${key}`,
      '--enable-admission-plugins=NodeRestriction,ServiceAccount',
      '--feature-gates=BoundServiceAccountTokenVolume=true',
    ],
    readyStatus: 401,
  });
  const issue = async (name: keyof typeof SECURE_USERS) => writeSvcconfig(server, { name: `${name}.svcconfig`, user: await ca.issue(SECURE_USERS[name], name) });
  admin = connect({ svcconfig: await issue('admin'), qps: 0 });
  await grantNodeImpersonation(admin);
  const cm = startExecutable(CONTROLLER_MANAGER_BIN, [
    `--svcconfig=${await issue('controllerManager')}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--use-service-account-credentials',
    '--controllers=serviceaccount,root-ca-cert-publisher',
  ]);
  daemons.push(cm);
  const nodes = startSvc(['nodes', '--count=1', `--svcconfig=${await issue('nodes')}`, '--node-identity=impersonate']);
  daemons.push(nodes);
  // Both start at once (a loaded machine takes long to load either).
  await cm.waitFor((l) => l.msg === 'controller manager started', 60_000, 'controller manager started');
  await eventually(async () => {
    const list = await admin.client.list<Node>(resources.nodes);
    const portOf = (n: Node) => (n.status?.daemonEndpoints?.kubeletEndpoint as { Port?: number } | undefined)?.Port;
    const node = list.items.find((n) => portOf(n));
    if (!node) return false;
    nodeName = node.metadata.name ?? '';
    agent = `https://127.0.0.1:${portOf(node)}`;
    return true;
  }, 60_000, 'the simulated node registered with its endpoint');
});

test.after(async () => {
  await Promise.all(daemons.map((d) => d.stop('SIGKILL')));
  await admin?.close();
  await server?.stop();
  server?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('root-ca-cert-publisher publishes the CA; the ServiceAccount plugin mounts the projected volume; the node fills it with a bound token', async () => {
  const caPem = readFileSync(server.caFile, 'utf8');
  await eventually(async () => {
    const cm = await admin.client.get<ConfigMap>(resources.configmaps, NS, 'svc-root-ca.crt').catch(() => undefined);
    return cm?.data?.['ca.crt'] === caPem;
  }, 30_000, 'svc-root-ca.crt published in default');
  // Deleted, it comes back (as the controller's own service account, under RBAC).
  await admin.client.delete(resources.configmaps, NS, 'svc-root-ca.crt');
  await eventually(async () => (await admin.client.get<ConfigMap>(resources.configmaps, NS, 'svc-root-ca.crt').catch(() => undefined))?.data?.['ca.crt'] === caPem, 30_000, 'svc-root-ca.crt restored');
  // Changed, it is put back.
  const cm = await admin.client.get<ConfigMap>(resources.configmaps, NS, 'svc-root-ca.crt');
  await admin.client.update<ConfigMap>(resources.configmaps, NS, { ...cm, data: { 'ca.crt': 'not a CA', extra: 'x' } });
  await eventually(async () => {
    const now = await admin.client.get<ConfigMap>(resources.configmaps, NS, 'svc-root-ca.crt');
    return now.data?.['ca.crt'] === caPem && now.data?.['extra'] === undefined;
  }, 30_000, 'svc-root-ca.crt data put back');

  await eventually(async () => Boolean(await admin.client.get(resources.serviceaccounts, NS, 'default').catch(() => undefined)), 30_000, 'default account');
  const created = await admin.client.create<Pod>(resources.pods, NS, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app' },
    spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }], initContainers: [{ name: 'init', image: 'busybox' }] },
  } as Pod);
  const spec = created.spec as unknown as { serviceAccountName: string; volumes: { name: string; projected?: { sources: Record<string, unknown>[] } }[]; containers: { volumeMounts?: unknown[] }[]; initContainers: { volumeMounts?: unknown[] }[] };
  assert.is(spec.serviceAccountName, 'default');
  const volume = spec.volumes.find((v) => /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(v.name));
  assert.ok(volume, JSON.stringify(spec.volumes));
  assert.equal(volume.projected?.sources, [
    { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
    { configMap: { name: 'svc-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
    { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
  ]);
  for (const c of [...spec.containers, ...spec.initContainers]) {
    assert.equal(c.volumeMounts, [{ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/svc.io/serviceaccount' }]);
  }

  // A reader: a service account allowed nodes/proxy (as the established node agent's API requires).
  await admin.client.create(resources.serviceaccounts, NS, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader' } });
  await admin.client.create(resources.clusterroles, '', { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', metadata: { name: 'node-proxy-reader' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get'] }] });
  await admin.client.create(resources.clusterrolebindings, '', {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'node-proxy-reader' },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'node-proxy-reader' },
    subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: NS }],
  });
  const tokenOf = async (account: string) =>
    ((await admin.client.subresource(resources.serviceaccounts, NS, account, 'token', 'POST', { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: {} })) as { status: { token: string } }).status.token;
  const reader = await tokenOf('reader');
  const file = (name: string) => `${agent}/pods/${NS}/app/volumes/${volume.name}/${name}`;

  // Nobody unauthenticated or unauthorized reads the token.
  assert.is((await call(file('token'), 'GET', undefined)).code, 401);
  assert.is((await call(file('token'), 'GET', 'not-a-token')).code, 401);
  const outsider = await call(file('token'), 'GET', await tokenOf('default'));
  assert.is(outsider.code, 403, outsider.body);
  assert.match(outsider.body, 'Forbidden (user=system:serviceaccount:default:default, verb=get, resource=nodes, subresource(s)=[proxy])');

  let token = '';
  await eventually(async () => {
    const r = await call(file('token'), 'GET', reader);
    token = r.code === 200 ? r.body : '';
    return token !== '';
  }, 30_000, 'the node filled the token');
  assert.is((await call(file('namespace'), 'GET', reader)).body, NS);
  assert.is((await call(file('ca.crt'), 'GET', reader)).body, caPem);

  const review = await whoami(token);
  assert.is(review.code, 201, review.body);
  const user = (JSON.parse(review.body) as { status: { userInfo: { username: string; groups: string[]; extra: Record<string, string[]> } } }).status.userInfo;
  assert.is(user.username, 'system:serviceaccount:default:default');
  assert.ok(user.groups.includes('system:serviceaccounts:default'), JSON.stringify(user.groups));
  assert.equal(user.extra['authentication.kubernetes.io/pod-name'], ['app']);
  assert.equal(user.extra['authentication.kubernetes.io/pod-uid'], [created.metadata.uid]);
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { exp: number; iat: number; 'kubernetes.io': { pod: { name: string; uid: string } } };
  assert.is(claims.exp - claims.iat, 3607);
  assert.equal(claims['kubernetes.io'].pod, { name: 'app', uid: created.metadata.uid });

  // The pod goes: its token stops working.
  await admin.client.delete(resources.pods, NS, 'app', { gracePeriodSeconds: 0 });
  await eventually(async () => (await whoami(token)).code === 401, 30_000, 'the token refused after the pod is deleted');
});

test('a pod whose service account does not exist is refused as established', async () => {
  const err = await admin.client
    .create<Pod>(resources.pods, NS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan' }, spec: { serviceAccountName: 'nobody', containers: [{ name: 'c', image: 'nginx' }] } } as Pod)
    .then(() => undefined, (e: unknown) => e as { code: number; message: string });
  assert.ok(err);
  assert.is(err.code, 403);
  assert.is(err.message, 'pods "orphan" is forbidden: error looking up service account default/nobody: serviceaccount "nobody" not found');
});

test.run();
