/**
 * Per-webhook credentials (the established AuthenticationInfoResolver): the section of
 * --admission-control-config-file for ValidatingAdmissionWebhook or MutatingAdmissionWebhook,
 *
 *     apiVersion: apiserver.config.svc.io/v1     # or apiserver.config.k8s.io/v1
 *     kind: WebhookAdmissionConfiguration
 *     kubeConfigFile: /etc/svc/admission-webhooks.svcconfig   # absolute, as established
 *
 * (also the older `apiserver.config.k8s.io/v1alpha1` / `apiserver.k8s.io/v1alpha1` kind
 * `WebhookAdmission`), names a kubeconfig whose `users` give the credentials the API server
 * presents to a webhook, chosen by the webhook's address as established:
 *
 * - a service reference is the target `<name>.<namespace>.svc:<port>`, a URL its `host[:port]`;
 * - the user named exactly as the target wins; then `*.<suffix>` names, longest suffix first
 *   (`*.ns.svc:443` before `*.svc:443`); then, when the port is 443, the same two without the port
 *   (`name.ns.svc`, `*.ns.svc`, `*.svc`); then the user `*`;
 * - none: no credentials from this file (the --proxy-client-cert-file certificate, if any, is
 *   presented instead: the rule for this server; the established server presents none).
 *
 * A user gives `client-certificate`/`client-key` (or their `-data`), and/or `token` or
 * `token-file` (sent as `Authorization: Bearer`). Relative paths are relative to the kubeconfig's
 * folder, as `--svcconfig` reads them. Files are read at start. What this server cannot present
 * (username/password, auth-provider, exec, impersonation) and any unreadable or malformed piece
 * refuse the server's start with a message naming the file and the user.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { pluginConfigError, type PluginConfiguration } from '../config-file.js';
import { readConfigPem } from '../../../client/svcconfig.js';

/** What one kubeconfig user gives. */
export interface WebhookCredential {
  cert?: string;
  key?: string;
  token?: string;
}

/** The users of the kubeconfig, by name. */
export interface WebhookCredentials {
  /** The kubeconfig file (for messages). */
  file: string;
  users: ReadonlyMap<string, WebhookCredential>;
}

const GROUPS = ['apiserver.config.svc.io', 'apiserver.config.k8s.io'];
const ACCEPTED: readonly string[] = [
  ...GROUPS.map((g) => `${g}/v1 WebhookAdmissionConfiguration`),
  ...GROUPS.map((g) => `${g}/v1alpha1 WebhookAdmission`),
  'apiserver.k8s.io/v1alpha1 WebhookAdmission',
];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Reads a webhook plugin's section (undefined: no section, no per-webhook credentials). Throws AdmissionConfigError. */
export function parseWebhookAdmissionConfiguration(plugin: string, cfg: PluginConfiguration | undefined): WebhookCredentials | undefined {
  if (!cfg) return undefined;
  const fail = (msg: string): never => {
    throw pluginConfigError(plugin, cfg.source, msg);
  };
  const v = cfg.value;
  if (!isRecord(v)) return fail('expected a WebhookAdmissionConfiguration object (apiVersion: apiserver.config.svc.io/v1, kind: WebhookAdmissionConfiguration, kubeConfigFile: <absolute path>)');
  const typed = `${String(v['apiVersion'])} ${String(v['kind'])}`;
  if (!ACCEPTED.includes(typed)) {
    return fail(`no kind ${JSON.stringify(v['kind'])} is registered for version ${JSON.stringify(v['apiVersion'])}; expected apiVersion apiserver.config.svc.io/v1 (or apiserver.config.k8s.io/v1), kind WebhookAdmissionConfiguration`);
  }
  for (const k of Object.keys(v)) if (!['apiVersion', 'kind', 'kubeConfigFile'].includes(k)) fail(`${k}: unknown field (known: kubeConfigFile)`);
  const file = v['kubeConfigFile'];
  if (typeof file !== 'string' || file === '') return fail('kubeConfigFile: Required value: the kubeconfig whose users are the credentials for webhooks');
  if (!isAbsolute(file)) return fail(`kubeConfigFile: Invalid value: ${JSON.stringify(file)}: must be an absolute file path`);
  return readWebhookKubeconfig(file, (msg) => fail(`kubeConfigFile ${file}: ${msg}`));
}

/** Reads every `users[]` entry of a kubeconfig (see the file comment). */
export function readWebhookKubeconfig(file: string, fail: (msg: string) => never): WebhookCredentials {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    return fail(`cannot read it: ${(err as Error).message}`);
  }
  if (!isRecord(doc)) return fail('expected a kubeconfig mapping with users');
  const list = doc['users'] ?? [];
  if (!Array.isArray(list)) return fail('users must be a list');
  const base = dirname(file);
  const users = new Map<string, WebhookCredential>();
  for (const entry of list) {
    if (!isRecord(entry) || !str(entry['name'])) return fail('every users entry needs a name');
    const name = entry['name'] as string;
    const u = entry['user'] ?? {};
    if (!isRecord(u)) return fail(`user ${JSON.stringify(name)}: user must be a mapping`);
    const owner = `user ${JSON.stringify(name)}`;
    for (const k of ['username', 'password', 'auth-provider', 'exec', 'as', 'as-groups', 'as-user-extra']) {
      if (u[k] !== undefined) fail(`${owner}: ${k} is not supported for admission webhooks by this server (use client-certificate/client-key or token)`);
    }
    const pem = (field: string): string | undefined => readConfigPem(u, field, base, owner, fail);
    const cert = pem('client-certificate');
    const key = pem('client-key');
    if (cert && !key) fail(`${owner} has client-certificate but no client-key`);
    if (key && !cert) fail(`${owner} has client-key but no client-certificate`);
    if (cert && key) {
      try {
        const c = new X509Certificate(cert);
        if (!c.checkPrivateKey(createPrivateKey(key))) fail(`${owner}: client-key does not match client-certificate`);
      } catch (err) {
        fail(`${owner}: client-certificate/client-key are not a usable PEM pair: ${(err as Error).message}`);
      }
    }
    let token = str(u['token']);
    const tokenFile = str(u['token-file']);
    if (!token && tokenFile) {
      const full = isAbsolute(tokenFile) ? tokenFile : resolve(base, tokenFile);
      try {
        token = readFileSync(full, 'utf8').trim();
      } catch (err) {
        fail(`${owner}: cannot read token-file ${full}: ${(err as Error).message}`);
      }
    }
    const known = ['client-certificate', 'client-certificate-data', 'client-key', 'client-key-data', 'token', 'token-file'];
    for (const k of Object.keys(u)) if (!known.includes(k)) fail(`${owner}: ${k}: unknown field (known: ${known.join(', ')})`);
    users.set(name, { ...(cert && key ? { cert, key } : {}), ...(token ? { token } : {}) });
  }
  return { file, users };
}

/** The `*.<suffix>` candidates of a target, longest suffix first. */
function starNames(target: string): string[] {
  const steps = target.split('.');
  const out: string[] = [];
  for (let i = 1; i < steps.length; i++) out.push(`*.${steps.slice(i).join('.')}`);
  return out;
}

/** The credential for a target `host[:port]` (established clientConfig lookup order), or undefined. */
export function credentialFor(creds: WebhookCredentials, target: string): WebhookCredential | undefined {
  const users = creds.users;
  const exact = users.get(target);
  if (exact) return exact;
  for (const n of starNames(target)) {
    const hit = users.get(n);
    if (hit) return hit;
  }
  const m = /^(.*):443$/.exec(target);
  if (m) {
    const host = m[1]!;
    const bare = users.get(host);
    if (bare) return bare;
    for (const n of starNames(host)) {
      const hit = users.get(n);
      if (hit) return hit;
    }
  }
  return users.get('*');
}
