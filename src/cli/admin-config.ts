/**
 * The admin client configuration `svc up` writes under its data folder, and the `apiserver` daemon
 * beside its certificate (so the scheduler, the controller manager, `svc nodes` and kubectl can be
 * pointed at it): kubeconfig-shaped (kubectl, helm, the client libraries and `--svcconfig` all read
 * it), the server's certificate embedded as the trusted CA, and a token (the server authenticates
 * nobody yet; kubectl asks for a password when a user has no credentials at all). Rewritten at
 * every start, so it follows the port and the certificate.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ADMIN_CONFIG_FILE = 'admin.svcconfig';

/** Writes `<dataDir>/admin.svcconfig` (the folder made if missing) for `serverUrl` trusting `caPem`; returns its absolute path. */
export function writeAdminConfig(dataDir: string, serverUrl: string, caPem: string): string {
  const file = resolve(join(dataDir, ADMIN_CONFIG_FILE));
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: svc',
    '  cluster:',
    `    server: ${serverUrl}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    '- name: svc-admin',
    '  user:',
    '    token: svc-admin',
    'contexts:',
    '- name: svc',
    '  context:',
    '    cluster: svc',
    '    user: svc-admin',
    '    namespace: default',
    'current-context: svc',
    '',
  ];
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  return file;
}

/** The address a local client uses for a listener bound to `url` (a wildcard bind becomes loopback). */
export function localServerUrl(url: string): string {
  return url.replace('://0.0.0.0:', '://127.0.0.1:').replace('://[::]:', '://127.0.0.1:');
}
