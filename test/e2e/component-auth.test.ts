// Delegated authentication and authorization on a component's secure port (the real `scheduler`
// process against the real apiserver): /healthz is served to anyone, /metrics needs a user allowed
// to see it. Without --authorization-svcconfig only system:masters (client certificate from
// --client-ca-file) gets /metrics; anonymous and other users get the established 403 Status, a
// certificate from another CA a 401; an authenticating proxy (--requestheader-*) names the user in
// headers, believed only from its allowed certificate. The cluster CA and certificates come from src/cli/pki.ts.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeClientConfig } from '../../src/cli/admin-config.js';
import { createCertificateAuthority, ensureClusterCA, issueClientCertificate, type KeyPair } from '../../src/cli/pki.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { SCHEDULER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

let server: ApiServerProcess;
const dir = mkdtempSync(join(tmpdir(), 'svc-component-auth-'));
const procs: SvcProcess[] = [];

test.before(async () => {
  server = await startApiServer();
});

test.after(async () => {
  for (const p of procs) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function get(url: string, cert?: KeyPair, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const { fetch, Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false, ...(cert ? { cert: cert.cert, key: cert.key } : {}) } });
  try {
    const r = await fetch(url, { dispatcher, headers });
    return { status: r.status, text: await r.text() };
  } finally {
    await dispatcher.close();
  }
}

test('the cluster CA is made once (key 0600) and read back unchanged', async () => {
  const certs = join(dir, 'certs');
  const a = await ensureClusterCA(certs);
  const b = await ensureClusterCA(certs);
  assert.is(b.certPem, a.certPem);
  assert.is(statSync(join(certs, 'ca.key')).mode & 0o777, 0o600);
});

test('scheduler secure port with --client-ca-file and no --authorization-svcconfig: /healthz for all, /metrics only for system:masters', async () => {
  const ca = await ensureClusterCA(join(dir, 'certs'));
  const admin = await issueClientCertificate(ca, { user: 'ops-admin', groups: ['system:masters'] });
  const alice = await issueClientCertificate(ca, { user: 'alice', groups: ['devs'] });
  const stranger = await issueClientCertificate(await createCertificateAuthority('other-ca'), { user: 'mallory', groups: ['system:masters'] });
  const caFile = join(dir, 'client-ca.crt');
  writeFileSync(caFile, ca.certPem);
  // An authenticating proxy: its own CA, and only the proxy named front-proxy is believed.
  const proxyCA = await createCertificateAuthority('front-proxy-ca');
  const proxy = await issueClientCertificate(proxyCA, { user: 'front-proxy' });
  const otherProxy = await issueClientCertificate(proxyCA, { user: 'other-proxy' });
  const proxyCAFile = join(dir, 'proxy-ca.crt');
  writeFileSync(proxyCAFile, proxyCA.certPem);
  const port = await freePort();
  const p = startExecutable(SCHEDULER_BIN, [
    `--svcconfig=${writeSvcconfig(server)}`, '--port=0', `--secure-port=${port}`, '--bind-address=127.0.0.1', '--leader-elect=false',
    `--client-ca-file=${caFile}`, `--requestheader-client-ca-file=${proxyCAFile}`, '--requestheader-allowed-names=front-proxy',
  ]);
  procs.push(p);
  await p.waitFor((l) => l.msg === 'serving securely', 60_000, 'serving');
  const base = `https://127.0.0.1:${port}`;
  await eventually(async () => (await get(`${base}/healthz`)).status === 200, 10_000, 'healthz');
  assert.equal(await get(`${base}/healthz`, alice), { status: 200, text: 'ok' });

  const anonymous = await get(`${base}/metrics`);
  assert.is(anonymous.status, 403);
  const status = JSON.parse(anonymous.text) as { kind: string; reason: string; message: string; code: number };
  assert.equal([status.kind, status.reason, status.code], ['Status', 'Forbidden', 403]);
  assert.is(status.message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');

  const asAlice = await get(`${base}/metrics`, alice);
  assert.is(asAlice.status, 403);
  assert.match(asAlice.text, 'User \\"alice\\" cannot get path \\"/metrics\\"');
  assert.is((await get(`${base}/debug/machines`, alice)).status, 403);

  const asAdmin = await get(`${base}/metrics`, admin);
  assert.is(asAdmin.status, 200);
  assert.match(asAdmin.text, 'scheduler_');

  // A certificate from another authority is refused outright (401), not treated as anonymous.
  const forged = await get(`${base}/metrics`, stranger);
  assert.is(forged.status, 401);
  assert.is((JSON.parse(forged.text) as { reason: string }).reason, 'Unauthorized');
  assert.is((await get(`${base}/healthz`, stranger)).status, 401);

  // Request headers from the proxy: the user and groups it names.
  const viaProxy = (cert: KeyPair, headers: Record<string, string>) => get(`${base}/metrics`, cert, headers);
  assert.is((await viaProxy(proxy, { 'x-remote-user': 'bob', 'x-remote-group': 'system:masters' })).status, 200);
  const bob = await viaProxy(proxy, { 'x-remote-user': 'bob', 'x-remote-group': 'devs' });
  assert.is(bob.status, 403);
  assert.match(bob.text, 'User \\"bob\\" cannot get path');
  // A certificate of the proxy CA whose name is not allowed is refused, headers or not.
  assert.is((await viaProxy(otherProxy, { 'x-remote-user': 'bob', 'x-remote-group': 'system:masters' })).status, 401);

  p.proc.kill('SIGTERM');
  assert.is(await p.exited, 0);
});

test('with --authentication-svcconfig and --authorization-svcconfig: tokens reviewed and paths authorized by the API server (RBAC)', async () => {
  const ca = await ensureClusterCA(join(dir, 'certs'));
  const caFile = join(dir, 'rbac-ca.crt');
  writeFileSync(caFile, ca.certPem);
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, 'carol-token,carol,1003,"metrics-readers"\ndave-token,dave,1004\n');
  const rbac = await startApiServer({ args: ['--authorization-mode=RBAC', `--client-ca-file=${caFile}`, `--token-auth-file=${tokens}`], readyStatus: 200 });
  try {
    // The scheduler's own identity: its established user (its default role may create TokenReviews and SubjectAccessReviews).
    const own = await issueClientCertificate(ca, { user: 'system:svc-scheduler' });
    const svcconfig = join(dir, 'scheduler.svcconfig');
    writeClientConfig(svcconfig, { serverUrl: rbac.url, caPem: readFileSync(rbac.caFile, 'utf8'), userName: 'system:svc-scheduler', credentials: { clientCertificate: own } });
    // An administrator lets group metrics-readers and user alice get /metrics.
    const admin = await issueClientCertificate(ca, { user: 'ops', groups: ['system:masters'] });
    const { Agent, request } = await import('undici');
    const adminAgent = new Agent({ connect: { ca: readFileSync(rbac.caFile, 'utf8'), servername: 'localhost', cert: admin.cert, key: admin.key } });
    const post = async (path: string, body: unknown) => (await request(`${rbac.url}${path}`, { method: 'POST', dispatcher: adminAgent, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } })).statusCode;
    assert.is(await post('/apis/rbac.authorization.svc.io/v1/clusterroles', { metadata: { name: 'metrics-reader' }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] }), 201);
    assert.is(
      await post('/apis/rbac.authorization.svc.io/v1/clusterrolebindings', {
        metadata: { name: 'metrics-reader' },
        roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'metrics-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.svc.io', kind: 'Group', name: 'metrics-readers' }, { apiGroup: 'rbac.authorization.svc.io', kind: 'User', name: 'alice' }],
      }),
      201,
    );
    await adminAgent.close();

    const alice = await issueClientCertificate(ca, { user: 'alice' });
    const bob = await issueClientCertificate(ca, { user: 'bob' });
    const port = await freePort();
    const p = startExecutable(SCHEDULER_BIN, [
      `--svcconfig=${svcconfig}`, '--port=0', `--secure-port=${port}`, '--bind-address=127.0.0.1', '--leader-elect=false',
      `--authentication-svcconfig=${svcconfig}`, `--authorization-svcconfig=${svcconfig}`, `--client-ca-file=${caFile}`,
    ]);
    procs.push(p);
    await p.waitFor((l) => l.msg === 'serving securely', 60_000, 'serving');
    const base = `https://127.0.0.1:${port}`;
    await eventually(async () => (await get(`${base}/healthz`)).status === 200, 10_000, 'healthz');
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

    assert.is((await get(`${base}/metrics`, alice)).status, 200, 'alice: allowed by her binding (SubjectAccessReview)');
    assert.is((await get(`${base}/metrics`, undefined, bearer('carol-token'))).status, 200, 'carol: token reviewed, allowed through her group');
    const asBob = await get(`${base}/metrics`, bob);
    assert.is(asBob.status, 403);
    assert.match(asBob.text, 'forbidden: User \\"bob\\" cannot get path \\"/metrics\\"');
    assert.is((await get(`${base}/metrics`, undefined, bearer('dave-token'))).status, 403, 'dave: known, not allowed');
    assert.is((await get(`${base}/metrics`, undefined, bearer('no-such-token'))).status, 401, 'an unknown token is refused, not anonymous');
    assert.is((await get(`${base}/debug/machines`, alice)).status, 403, 'alice may see /metrics only');
    assert.is((await get(`${base}/metrics`)).status, 403, 'anonymous');

    // The page's access panel: the viewer is who the port authenticated; the reviews are the
    // scheduler's (its role may create SubjectAccessReviews, not list bindings).
    const viewer = await get(`${base}/debug/machines/access/viewer`, admin);
    assert.is(viewer.status, 200, viewer.text);
    assert.equal(JSON.parse(viewer.text).user, 'ops');
    assert.is(JSON.parse(viewer.text).mayAskAboutOthers, true);
    type Matrix = { user: string; rows: { resource: string; verbs: Record<string, boolean> }[] };
    const matrixOf = async (query: string) => {
      const r = await get(`${base}/debug/machines/access/matrix?${query}`, admin);
      assert.is(r.status, 200, r.text);
      return (JSON.parse(r.text) as Matrix).rows.find((row) => row.resource === 'configmaps')!.verbs;
    };
    assert.is((await matrixOf('namespace=default')).get, true, 'ops is in system:masters');
    assert.is((await matrixOf('namespace=default&user=alice')).get, false, 'alice may see /metrics only');
    const whoCan = await get(`${base}/debug/machines/access/who-can?verb=get&resource=configmaps&namespace=default`, admin);
    assert.is(whoCan.status, 403, whoCan.text);
    assert.match(whoCan.text, /asked as the scheduler: .*system:svc-scheduler.*clusterrolebindings/);
    assert.is((await get(`${base}/debug/machines/access/matrix`, alice)).status, 403, 'the page itself is authorized first');

    p.proc.kill('SIGTERM');
    assert.is(await p.exited, 0);
  } finally {
    await rbac.stop();
    rbac.cleanup();
  }
});

test.run();
