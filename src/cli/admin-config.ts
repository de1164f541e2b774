/**
 * The client configuration files this project writes (kubeconfig-shaped: kubectl, helm, the
 * client libraries and `--svcconfig` all read them), with the server's certificate embedded as the
 * trusted CA:
 *
 * - `svc up`'s admin configuration under its data folder: a client certificate of the cluster CA
 *   in `system:masters` (./svc-up-security.ts), rewritten at every start so it follows the port;
 * - the `apiserver` daemon's, beside its certificate (so the scheduler, the controller manager,
 *   `svc nodes` and kubectl can be pointed at it): a placeholder token, since that daemon's client
 *   authentication is the operator's to configure (kubectl asks for a password when a user has no
 *   credentials at all);
 * - `svc certs issue`'s, for a component or a person (./svc-certs.ts).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ADMIN_CONFIG_FILE = 'admin.svcconfig';

/** How the user of a client configuration proves who it is. */
export type ClientCredentials = { clientCertificate: { cert: string; key: string } } | { token: string };

export interface ClientConfig {
  serverUrl: string;
  /** PEM the client trusts for the server's certificate. */
  caPem: string;
  /** The user entry's name (also shown by `kubectl config view`). */
  userName: string;
  credentials: ClientCredentials;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** The YAML text of a client configuration with one cluster, user and context (`svc`). */
export function clientConfigText(c: ClientConfig): string {
  const user =
    'clientCertificate' in c.credentials
      ? [`    client-certificate-data: ${b64(c.credentials.clientCertificate.cert)}`, `    client-key-data: ${b64(c.credentials.clientCertificate.key)}`]
      : [`    token: ${c.credentials.token}`];
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: svc',
    '  cluster:',
    `    server: ${c.serverUrl}`,
    `    certificate-authority-data: ${b64(c.caPem)}`,
    'users:',
    `- name: ${JSON.stringify(c.userName)}`,
    '  user:',
    ...user,
    'contexts:',
    '- name: svc',
    '  context:',
    '    cluster: svc',
    `    user: ${JSON.stringify(c.userName)}`,
    '    namespace: default',
    'current-context: svc',
    '',
  ].join('\n');
}

/** Writes `c` to `file` (0600: it holds a private key or a token; the folder made if missing); returns its absolute path. */
export function writeClientConfig(file: string, c: ClientConfig): string {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, clientConfigText(c), { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** Writes `<dataDir>/admin.svcconfig` for `serverUrl` trusting `caPem`; returns its absolute path. */
export function writeAdminConfig(dataDir: string, serverUrl: string, caPem: string, credentials: ClientCredentials = { token: 'svc-admin' }): string {
  return writeClientConfig(join(dataDir, ADMIN_CONFIG_FILE), { serverUrl, caPem, userName: 'svc-admin', credentials });
}

/** The address a local client uses for a listener bound to `url` (a wildcard bind becomes loopback). */
export function localServerUrl(url: string): string {
  return url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://127.0.0.1:');
}
