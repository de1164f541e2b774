// `svc up` secure by default, as a real process with its own defaults (no --bind-address, no
// --cert-dir): it listens on loopback only, keeps a cluster CA in <data-dir>/certs (key 0600), and
// the admin.svcconfig it writes carries a client certificate (svc-admin in system:masters, signed
// by that CA) that kubectl uses; `svc certs issue` gives a component a configuration of its own.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { certificateUser, parseCertificateBundle, verifyClientChain } from '../../src/cli/pki.js';
import { kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { startSvc } from '../helpers/svc-process.js';
import { startSvcUp, type SvcUp } from '../helpers/svc-up.js';

let up: SvcUp;

test.before(async () => {
  up = await startSvcUp('svc-up-secure', ['--nodes=0', '--scheduler=false']);
});

test.after(async () => {
  await up?.stop();
});

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host, port, timeout: 5000 });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

test('binds 127.0.0.1 unless --bind-address says otherwise', async () => {
  const ready = up.svc.lines.find((l) => l.msg === 'ready') as { url?: string } | undefined;
  assert.is(ready?.url, `https://127.0.0.1:${up.port}`);
  assert.ok(await accepts('127.0.0.1', up.port), 'loopback accepts');
  // Another address of this machine does not (a machine with no other address has nothing to reach it from).
  const other = Object.values(networkInterfaces())
    .flatMap((l) => l ?? [])
    .find((a) => a.family === 'IPv4' && !a.internal);
  if (other) assert.not.ok(await accepts(other.address, up.port), `${other.address}:${up.port} must not accept connections`);
});

test('the admin configuration carries a client certificate of the cluster CA in system:masters, and kubectl uses it', async () => {
  const certs = join(up.dir, 'data', 'certs');
  assert.is(statSync(join(certs, 'ca.key')).mode & 0o777, 0o600);
  assert.is(statSync(join(certs, 'admin.key')).mode & 0o777, 0o600);
  assert.is(statSync(up.kubeconfig).mode & 0o777, 0o600);
  const text = readFileSync(up.kubeconfig, 'utf8');
  assert.not.match(text, /token:/);
  const user = (parse(text) as { users: { user: Record<string, string> }[] }).users[0]!.user;
  const leaf = new X509Certificate(Buffer.from(user['client-certificate-data']!, 'base64'));
  assert.equal(certificateUser(leaf), { username: 'svc-admin', groups: ['system:masters'] });
  const verdict = verifyClientChain([leaf], parseCertificateBundle(readFileSync(join(certs, 'ca.crt'), 'utf8'), 'ca.crt'));
  assert.ok(verdict.ok, JSON.stringify(verdict));
  assert.match(await up.kubectlOk(['get', 'namespaces', '-o', 'name']), 'namespace/default');
  await up.kubectlOk(['create', 'configmap', 'secure-default', '--from-literal=a=b'], { bin: KUBECTL_V35 });
});

test('svc certs issue: a client configuration for a component, from the same CA and server', async () => {
  const out = join(up.dir, 'scheduler.svcconfig');
  const p = startSvc(['certs', 'issue', 'system:svc-scheduler', `--data-dir=${join(up.dir, 'data')}`, `--out=${out}`]);
  assert.is(await p.exited, 0, p.output());
  assert.is(statSync(out).mode & 0o777, 0o600);
  const user = (parse(readFileSync(out, 'utf8')) as { users: { user: Record<string, string> }[] }).users[0]!.user;
  assert.equal(certificateUser(new X509Certificate(Buffer.from(user['client-certificate-data']!, 'base64'))), { username: 'system:svc-scheduler', groups: [] });
  const r = await kubectl(out, ['get', 'configmap', 'secure-default', '-o', 'jsonpath={.data.a}']);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout, 'b');
  // Before svc up has made a CA there is nothing to sign with: a clear error, exit 1.
  const none = startSvc(['certs', 'issue', 'nobody', `--data-dir=${join(up.dir, 'no-such-data')}`]);
  assert.is(await none.exited, 1);
  assert.match(none.output(), /start svc up with --data-dir=.*no-such-data first/);
});

test.run();
