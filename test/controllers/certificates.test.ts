// The certificate controllers against a real API server (RBAC, --client-ca-file = the cluster CA,
// bootstrap tokens) and a real controller manager signing with that CA:
// - a CSR made with openssl for the client signer (in the established spelling), approved with
//   `kubectl certificate approve` (kubectl 1.35, the `approval` subresource), gets its certificate
//   from csrsigning, and that certificate logs in as the CSR's subject (`kubectl auth whoami`);
// - a node client CSR from a bootstrap token's user is approved by csrapproving (SubjectAccessReview
//   of `certificatesigningrequests/nodeclient`), signed, and logs in as the node;
// - CertificateSubjectRestriction refuses `system:masters` for the client signer; CertificateApproval
//   refuses an approver without `approve` on the signer; a node client CSR whose subject is not a
//   node is marked Failed by the signer once approved.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { clientAgent, createCA, type CertificateAuthority } from '../helpers/pki.js';
import { request, type Agent } from 'undici';
import { CONTROLLER_MANAGER_BIN, startExecutable, type SvcProcess } from '../helpers/svc-process.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-csr-'));
let ca: CertificateAuthority;
let server: ApiServerProcess;
let manager: SvcProcess;
let admin: string;
let adminAgent: Agent;
const TOKEN_ID = 'abcdef';
const TOKEN = `${TOKEN_ID}.0123456789abcdef`;

function config(name: string, user: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: svc', '  cluster:', `    server: ${server.url}`, `    certificate-authority: ${server.caFile}`, 'users:', '- name: u', `  user: ${user}`, 'contexts:', '- name: svc', '  context: {cluster: svc, user: u}', 'current-context: svc', ''].join('\n'),
  );
  return file;
}

/** A key and a PEM certificate request made by openssl. */
function openssl(name: string, subject: string): { key: string; csr: string } {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', csr, '-subj', subject], { stdio: 'ignore' });
  return { key, csr: readFileSync(csr, 'utf8') };
}

const csrObject = (name: string, csr: string, signerName: string, usages: string[]) => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: Buffer.from(csr).toString('base64'), signerName, usages },
});

const run = async (cfg: string, args: string[], input?: string) => kubectl(cfg, args, 60_000, { bin: KUBECTL_V35, ...(input !== undefined ? { input } : {}) });

/** The CSR as the admin reads it (HTTP, not kubectl: polled often). */
async function csr(name: string): Promise<Record<string, any>> {
  const r = await request(`${server.url}/apis/certificates.svc.io/v1/certificatesigningrequests/${name}`, { dispatcher: adminAgent });
  const body = await r.body.text();
  assert.is(r.statusCode, 200, body);
  return JSON.parse(body) as Record<string, any>;
}

/** Creates objects as the admin over HTTP (setup, where kubectl proves nothing). */
async function post(path: string, ...objects: unknown[]): Promise<void> {
  for (const o of objects) {
    const r = await request(`${server.url}${path}`, { method: 'POST', dispatcher: adminAgent, headers: { 'content-type': 'application/json' }, body: JSON.stringify(o) });
    assert.is(r.statusCode, 201, await r.body.text());
  }
}

/** `kubectl auth whoami` with the CSR's certificate and the key it was made with. */
async function whoami(name: string, key: string): Promise<string> {
  const certFile = join(dir, `${name}.crt`);
  writeFileSync(certFile, Buffer.from((await csr(name))['status']['certificate'], 'base64'));
  const r = await run(config(`${name}.yaml`, `{client-certificate: ${certFile}, client-key: ${key}}`), ['auth', 'whoami', '-o', 'json']);
  assert.is(r.code, 0, r.stderr);
  return r.stdout;
}

test.before(async () => {
  ca = await createCA('cluster-ca');
  const root = await ca.issue({ cn: 'admin', orgs: ['system:masters'] });
  server = await startApiServer({ args: [`--client-ca-file=${ca.certFile}`, '--authorization-mode=RBAC', '--enable-bootstrap-token-auth'] });
  adminAgent = clientAgent(server, root);
  admin = config('admin.yaml', `{client-certificate: ${root.certFile}, client-key: ${root.keyFile}}`);
  manager = startExecutable(CONTROLLER_MANAGER_BIN, [
    `--svcconfig=${admin}`, '--bind-address=127.0.0.1', '--secure-port=0', `--cert-dir=${join(dir, 'cm-certs')}`, '--leader-elect=false',
    '--controllers=csrapproving,csrsigning,csrcleaner', `--cluster-signing-cert-file=${ca.certFile}`, `--cluster-signing-key-file=${ca.keyFile}`,
  ]);
});

test.after(async () => {
  await manager?.stop();
  await adminAgent?.close();
  await server?.stop();
  server?.cleanup();
  ca?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('openssl CSR, kubectl certificate approve, the signed certificate logs in as its subject', async () => {
  const alice = openssl('alice', '/O=devs/CN=alice');
  const created = await run(admin, ['create', '-f', '-'], JSON.stringify(csrObject('alice', alice.csr, 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature'])));
  assert.is(created.code, 0, created.stderr);
  const stored = await csr('alice');
  assert.is(stored['spec']['signerName'], 'svc.io/svc-apiserver-client', 'the established name is stored in ours');
  assert.is(stored['spec']['username'], 'admin', 'the requester, set by the server');
  assert.equal(stored['spec']['groups'], ['system:masters', 'system:authenticated']);
  await new Promise((r) => setTimeout(r, 500));
  assert.not.ok((await csr('alice'))['status']?.['certificate'], 'not signed before it is approved');
  const approved = await run(admin, ['certificate', 'approve', 'alice']);
  assert.is(approved.code, 0, approved.stderr);
  assert.match(approved.stdout, /approved/);
  await eventually(async () => !!(await csr('alice'))['status']?.['certificate'], 30_000, 'the certificate');
  const status = (await csr('alice'))['status'];
  assert.equal(status['conditions'].map((c: { type: string; reason: string }) => [c.type, c.reason]), [['Approved', 'KubectlApprove']]);
  const table = await run(admin, ['get', 'csr', 'alice', '--no-headers']);
  assert.match(table.stdout, /^alice\s+\S+\s+svc\.io\/svc-apiserver-client\s+admin\s+<none>\s+Approved,Issued\s*$/m, table.stdout);
  const who = JSON.parse(await whoami('alice', alice.key));
  assert.is(who['status']['userInfo']['username'], 'alice');
  assert.ok(who['status']['userInfo']['groups'].includes('devs'), JSON.stringify(who));
  const text = execFileSync('openssl', ['x509', '-noout', '-text', '-in', join(dir, 'alice.crt')]).toString();
  assert.match(text, /TLS Web Client Authentication/);
  assert.match(text, /CA:FALSE/);
});

test('a bootstrap token user asks for a node client certificate: auto-approved, signed, logs in as the node', async () => {
  const secret = {
    apiVersion: 'v1', kind: 'Secret', metadata: { name: `bootstrap-token-${TOKEN_ID}`, namespace: 'svc-system' }, type: 'bootstrap.svc.io/token',
    stringData: { 'token-id': TOKEN_ID, 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' },
  };
  const bindings = ['system:node-bootstrapper', 'system:certificates.svc.io:certificatesigningrequests:nodeclient'].map((role, i) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: `bootstrappers-${i}` },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:bootstrappers' }],
  }));
  await post('/api/v1/namespaces/svc-system/secrets', secret);
  await post('/apis/rbac.authorization.svc.io/v1/clusterrolebindings', ...bindings);
  const node = openssl('node-1', '/O=system:nodes/CN=system:node:node-1');
  const joiner = config('bootstrap.yaml', `{token: ${TOKEN}}`);
  const created = await run(joiner, ['create', '-f', '-'], JSON.stringify(csrObject('node-csr-1', node.csr, 'svc.io/svc-apiserver-client-svclet', ['digital signature', 'client auth'])));
  assert.is(created.code, 0, created.stderr);
  await eventually(async () => !!(await csr('node-csr-1'))['status']?.['certificate'], 30_000, 'the node certificate');
  const got = await csr('node-csr-1');
  assert.is(got['spec']['username'], `system:bootstrap:${TOKEN_ID}`);
  const approvedBy = got['status']['conditions'].find((c: { type: string }) => c.type === 'Approved');
  assert.is(approvedBy['reason'], 'AutoApproved');
  assert.is(approvedBy['message'], 'Auto approving svclet client certificate after SubjectAccessReview.');
  const who = JSON.parse(await whoami('node-csr-1', node.key));
  assert.is(who['status']['userInfo']['username'], 'system:node:node-1');
  // The token's user may not approve anything itself (no update on the approval subresource).
  const other = openssl('node-2', '/O=system:nodes/CN=system:node:node-2');
  await post('/apis/certificates.svc.io/v1/certificatesigningrequests', csrObject('bad-usage', other.csr, 'svc.io/svc-apiserver-client-svclet', ['server auth', 'digital signature']));
  const self = await run(joiner, ['certificate', 'deny', 'bad-usage']);
  assert.is.not(self.code, 0);
  assert.match(self.stderr, /forbidden/);
});

test('admission: no system:masters for the client signer; approving needs approve on the signer; the signer fails a non-node subject', async () => {
  const boss = openssl('boss', '/O=system:masters/CN=boss');
  const refused = await run(admin, ['create', '-f', '-'], JSON.stringify(csrObject('boss', boss.csr, 'svc.io/svc-apiserver-client', ['client auth'])));
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /use of svc\.io\/svc-apiserver-client signer with system:masters group is not allowed/);
  // Someone who may update the approval subresource but not approve for the signer.
  const mallory = await ca.issue({ cn: 'mallory' });
  await post('/apis/rbac.authorization.svc.io/v1/clusterroles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'csr-updater' }, rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests', 'certificatesigningrequests/approval'], verbs: ['get', 'update'] }] });
  await post('/apis/rbac.authorization.svc.io/v1/clusterrolebindings', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'csr-updater' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'csr-updater' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'mallory' }] });
  const plain = openssl('plain', '/CN=system:node:x');
  await post('/apis/certificates.svc.io/v1/certificatesigningrequests', csrObject('plain', plain.csr, 'svc.io/svc-apiserver-client-svclet', ['digital signature', 'client auth']));
  const asMallory = config('mallory.yaml', `{client-certificate: ${mallory.certFile}, client-key: ${mallory.keyFile}}`);
  const denied = await run(asMallory, ['certificate', 'approve', 'plain']);
  assert.is.not(denied.code, 0);
  assert.match(denied.stderr, /user not permitted to approve requests with signerName "svc\.io\/svc-apiserver-client-svclet"/);
  // The admin may; the signer then refuses the subject (no system:nodes organization).
  assert.is((await run(admin, ['certificate', 'approve', 'plain'])).code, 0);
  await eventually(async () => ((await csr('plain'))['status']?.['conditions'] ?? []).some((c: { type: string }) => c.type === 'Failed'), 30_000, 'Failed');
  const failed = (await csr('plain'))['status'];
  const cond = failed['conditions'].find((c: { type: string }) => c.type === 'Failed');
  assert.is(cond['reason'], 'SignerValidationFailure');
  assert.is(cond['message'], 'subject organization is not system:nodes');
  assert.not.ok(failed['certificate']);
});

test.run();
