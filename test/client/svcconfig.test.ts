// The client configuration file (--svcconfig, kubeconfig shape) and --master overriding its server.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientConfigError, loadClientConfig, parseSvcconfig } from '../../src/client/svcconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'svcconfig-'));
writeFileSync(join(dir, 'ca.crt'), 'CA-PEM');
writeFileSync(join(dir, 'client.crt'), 'CERT-PEM');
writeFileSync(join(dir, 'client.key'), 'KEY-PEM');
writeFileSync(join(dir, 'token'), 'file-token\n');

const CONFIG = `
apiVersion: v1
kind: Config
current-context: main
clusters:
- name: c1
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority: ca.crt
- name: c2
  cluster:
    server: https://10.0.0.2:6443
    certificate-authority-data: ${Buffer.from('DATA-CA').toString('base64')}
    tls-server-name: api.internal
- name: c3
  cluster:
    server: https://10.0.0.3:6443
    insecure-skip-tls-verify: true
users:
- name: certs
  user:
    client-certificate: client.crt
    client-key: client.key
- name: tokenfile
  user:
    token-file: token
- name: inline
  user:
    client-certificate-data: ${Buffer.from('DATA-CERT').toString('base64')}
    client-key-data: ${Buffer.from('DATA-KEY').toString('base64')}
    token: inline-token
contexts:
- name: main
  context: { cluster: c1, user: certs }
- name: second
  context: { cluster: c2, user: inline }
- name: third
  context: { cluster: c3, user: tokenfile }
- name: broken
  context: { cluster: missing, user: certs }
`;
const file = join(dir, 'config.yaml');
writeFileSync(file, CONFIG);

test('current-context picks the cluster and user; relative files are read from the config folder', () => {
  const c = loadClientConfig({ svcconfig: file });
  assert.is(c.server, 'https://10.0.0.1:6443');
  assert.equal(c.tls, { insecureSkipVerify: false, ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' });
  assert.is(c.token, undefined);
});

test('-data fields are base64 PEM; tls-server-name and token are read', () => {
  const c = loadClientConfig({ svcconfig: file, context: 'second' });
  assert.equal(c.tls, { insecureSkipVerify: false, ca: 'DATA-CA', cert: 'DATA-CERT', key: 'DATA-KEY', serverName: 'api.internal' });
  assert.is(c.token, 'inline-token');
});

test('token-file is read (trimmed) and insecure-skip-tls-verify is honoured', () => {
  const c = loadClientConfig({ svcconfig: file, context: 'third' });
  assert.is(c.token, 'file-token');
  assert.is(c.tls.insecureSkipVerify, true);
});

test('--master overrides the file server and keeps its credentials', () => {
  const c = loadClientConfig({ svcconfig: file, master: 'https://127.0.0.1:7443' });
  assert.is(c.server, 'https://127.0.0.1:7443');
  assert.is(c.tls.ca, 'CA-PEM');
  assert.match(c.source, /--master/);
});

test('--master alone is enough (system CAs, no credentials); a bare host:port means https', () => {
  const c = loadClientConfig({ master: '127.0.0.1:6443' });
  assert.is(c.server, 'https://127.0.0.1:6443');
  assert.equal(c.tls, { insecureSkipVerify: false });
});

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ClientConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ClientConfigError');
}

test('errors name the file and the missing piece', () => {
  assert.match(errorOf(() => loadClientConfig({ svcconfig: file, context: 'broken' })), `svcconfig ${file}: cluster "missing" not found in clusters`);
  assert.match(errorOf(() => loadClientConfig({ svcconfig: file, context: 'nope' })), `svcconfig ${file}: context "nope" not found in contexts`);
  assert.match(errorOf(() => loadClientConfig({ svcconfig: join(dir, 'absent.yaml') })), /svcconfig .*absent\.yaml: cannot read the file/);
  assert.match(errorOf(() => parseSvcconfig('clusters: []\n', 'x.yaml')), 'svcconfig x.yaml: no current-context set');
  assert.match(
    errorOf(() => parseSvcconfig('current-context: a\ncontexts: [{name: a, context: {cluster: c}}]\nclusters: [{name: c, cluster: {}}]\n', 'y.yaml')),
    'svcconfig y.yaml: cluster "c" has no server',
  );
  assert.match(
    errorOf(() =>
      parseSvcconfig(
        'current-context: a\ncontexts: [{name: a, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {client-certificate-data: QQ==}}]\n',
        'z.yaml',
      ),
    ),
    'svcconfig z.yaml: user "u" has client-certificate but no client-key',
  );
  assert.match(errorOf(() => loadClientConfig({})), /pass --svcconfig .* or --master/);
});

test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
