/**
 * ServiceAccount (in the established default list): every pod runs as a service account that
 * exists, and gets that account's API credentials unless it or the account says not to. The
 * established plugin's rules, kept:
 *
 * Mutating, pod CREATE only (not subresources, not updates; mirror pods are never changed):
 * - `spec.serviceAccountName` empty: `default`;
 * - the account is looked up in the watch cache, then in storage (for `default` up to ten times,
 *   100-200 ms apart: the serviceaccount controller makes it just after the namespace);
 * - automount (`spec.automountServiceAccountToken` of the pod wins over the account's, default true):
 *   - BoundServiceAccountTokenVolume on: a projected volume `kube-api-access-<5 random>` (a
 *     serviceAccountToken `token` of 3607 s, the ConfigMap `svc-root-ca.crt` key `ca.crt`, the
 *     downward API `namespace`), reused when the pod already has one of that prefix;
 *   - off (the spec's default: the gate is alpha): the account's token Secret
 *     (`svc.io/service-account-token`, named in `secrets`) as a secret volume named after it. An
 *     account with no token Secret yet gets none: the pod is admitted without (the established
 *     plugin's RequireAPIToken refusal with a retry is not kept; since 1.24 it does not exist);
 *   - the volume is mounted read-only at /var/run/secrets/svc.io/serviceaccount in every init
 *     container and container, except those that already mount something there (and the volume is
 *     added only when some container mounts it);
 * - `spec.imagePullSecrets` empty: the account's.
 *
 * Validating, pod CREATE only (names are final here, so refusals name the pod):
 * - mirror pods (`svc.io/config.mirror`) may not name a service account, reference secrets or
 *   project service-account tokens (403);
 * - a pod without a service account, or whose account does not exist, is refused (403
 *   `pods "p" is forbidden: error looking up service account ns/sa: serviceaccount "sa" not found`);
 * - with the account's `svc.io/enforce-mountable-secrets: "true"` annotation, secrets the pod
 *   references (volumes, env, envFrom, imagePullSecrets) must be listed by the account.
 * The account of a pod cannot change after creation: the pod spec is immutable there
 * (src/api/kinds/core/pod-spec.ts validatePodSpecUpdate).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { forbidden, type StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { SERVICE_ACCOUNT_TOKEN_SECRET_TYPE } from '../../api/service-account-token-format.js';
import { ANNOTATION_MIRROR_POD } from '../../api/well-known-labels.js';
import { generatedName } from '../object-rules.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** Where the account's credentials are mounted in every container (the established path, our domain). */
export const SERVICE_ACCOUNT_MOUNT_PATH = '/var/run/secrets/svc.io/serviceaccount';
/** The established prefix of the projected volume's name. */
export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
/** The ConfigMap the root-ca-cert-publisher keeps in every namespace. */
export const ROOT_CA_CONFIGMAP = 'svc-root-ca.crt';
/** One hour and 7 s: the established expiry of the projected token (a token that old is "warn only" there). */
export const PROJECTED_TOKEN_EXPIRATION_SECONDS = 3607;
export const ENFORCE_MOUNTABLE_SECRETS_ANNOTATION = 'svc.io/enforce-mountable-secrets';

export interface ServiceAccountLookups {
  /** The account as the watch cache has it (a moment's lag is fine). */
  cached(namespace: string, name: string): Promise<SvcObject | undefined>;
  /** The account as stored now (the established live GET after a cache miss). */
  live(namespace: string, name: string): Promise<SvcObject | undefined>;
  secret(namespace: string, name: string): Promise<SvcObject | undefined>;
}

export interface ServiceAccountPluginOptions {
  /** BoundServiceAccountTokenVolume: the projected volume instead of the token Secret. */
  boundTokenVolume: boolean;
  /** Waits between live lookups of `default` (default 100-200 ms, as established). */
  retryDelayMs?: () => number;
}

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const list = (v: unknown): Loose[] => (Array.isArray(v) ? v.map(rec) : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const isPodWrite = (a: AdmissionAttributes): boolean => a.def.group === '' && a.def.plural === 'pods' && a.subresource === '' && a.object !== undefined;
const isMirror = (pod: SvcObject): boolean => Object.hasOwn(pod.metadata.annotations ?? {}, ANNOTATION_MIRROR_POD);

/** The projected volume of the account's credentials (the established shape, defaults filled). */
export function tokenVolumeSource(): Loose {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: PROJECTED_TOKEN_EXPIRATION_SECONDS } },
      { configMap: { name: ROOT_CA_CONFIGMAP, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/** Pod's choice wins, then the account's, else true. */
export function shouldAutomount(account: SvcObject, spec: Loose): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  const own = (account as Loose)['automountServiceAccountToken'];
  if (typeof own === 'boolean') return own;
  return true;
}

/** Every secret name a pod spec references (volumes, projected secrets, env, envFrom, pull secrets). */
export function podSecretNames(spec: Loose): string[] {
  const out: string[] = [];
  for (const v of list(spec['volumes'])) {
    const s = str(rec(v['secret'])['secretName']);
    if (s) out.push(s);
    for (const src of list(rec(v['projected'])['sources'])) {
      const n = str(rec(src['secret'])['name']);
      if (n) out.push(n);
    }
  }
  for (const c of [...list(spec['initContainers']), ...list(spec['containers'])]) {
    for (const e of list(c['env'])) {
      const n = str(rec(rec(e['valueFrom'])['secretKeyRef'])['name']);
      if (n) out.push(n);
    }
    for (const e of list(c['envFrom'])) {
      const n = str(rec(e['secretRef'])['name']);
      if (n) out.push(n);
    }
  }
  for (const p of list(spec['imagePullSecrets'])) if (str(p['name'])) out.push(str(p['name']));
  return out;
}

const hasTokenProjection = (spec: Loose): boolean =>
  list(spec['volumes']).some((v) => list(rec(v['projected'])['sources']).some((s) => s['serviceAccountToken'] !== undefined && s['serviceAccountToken'] !== null));

export function serviceAccountAdmission(lookups: ServiceAccountLookups, opts: ServiceAccountPluginOptions): AdmissionPlugin {
  const retryDelay = opts.retryDelayMs ?? (() => 100 + Math.floor(Math.random() * 100));

  /** The account, or undefined when it does not exist (after the established retries for `default`). */
  async function account(namespace: string, name: string): Promise<SvcObject | undefined> {
    const hit = await lookups.cached(namespace, name);
    if (hit) return hit;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
    const delay = retryDelay();
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await sleep(delay);
      const found = await lookups.live(namespace, name);
      if (found) return found;
    }
    return undefined;
  }

  /** The first token Secret the account lists (the legacy credentials). */
  async function tokenSecret(namespace: string, acct: SvcObject): Promise<string | undefined> {
    for (const ref of list((acct as Loose)['secrets'])) {
      const name = str(ref['name']);
      if (!name) continue;
      const secret = await lookups.secret(namespace, name);
      if (secret && (secret as Loose)['type'] === SERVICE_ACCOUNT_TOKEN_SECRET_TYPE) return name;
    }
    return undefined;
  }

  async function mount(namespace: string, acct: SvcObject, spec: Loose): Promise<void> {
    const volumes = list(spec['volumes']);
    let volumeName: string | undefined;
    let hasVolume = false;
    let legacySecret: string | undefined;
    if (opts.boundTokenVolume) {
      const existing = volumes.find((v) => str(v['name']).startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX));
      if (existing) {
        volumeName = str(existing['name']);
        hasVolume = true;
      } else volumeName = generatedName(SERVICE_ACCOUNT_VOLUME_PREFIX);
    } else {
      legacySecret = await tokenSecret(namespace, acct);
      if (!legacySecret) return;
      const existing = volumes.find((v) => str(rec(v['secret'])['secretName']) === legacySecret);
      if (existing) {
        volumeName = str(existing['name']);
        hasVolume = true;
      } else {
        volumeName = legacySecret;
        if (volumes.some((v) => v['name'] === volumeName)) volumeName = generatedName(`${legacySecret}-`);
      }
    }
    let needed = false;
    for (const field of ['initContainers', 'containers'] as const) {
      for (const c of list(spec[field])) {
        const mounts = list(c['volumeMounts']);
        if (mounts.some((m) => m['mountPath'] === SERVICE_ACCOUNT_MOUNT_PATH)) continue;
        c['volumeMounts'] = [...mounts, { name: volumeName, readOnly: true, mountPath: SERVICE_ACCOUNT_MOUNT_PATH }];
        needed = true;
      }
    }
    if (hasVolume || !needed) return;
    const source = opts.boundTokenVolume ? { projected: tokenVolumeSource() } : { secret: { secretName: legacySecret, defaultMode: 0o644 } };
    spec['volumes'] = [...volumes, { name: volumeName, ...source }];
  }

  return {
    name: 'ServiceAccount',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && isPodWrite(a),
    async mutate(a) {
      const pod = a.object!;
      if (isMirror(pod)) return;
      const spec = rec(pod.spec);
      pod.spec = spec;
      // Admission runs before defaulting here: the deprecated `serviceAccount` still names the account.
      if (!str(spec['serviceAccountName'])) spec['serviceAccountName'] = str(spec['serviceAccount']) || DEFAULT_SERVICE_ACCOUNT;
      // A missing account is refused in the validating phase, where the pod's name is final.
      const acct = await account(a.namespace, str(spec['serviceAccountName']));
      if (!acct) return;
      if (shouldAutomount(acct, spec)) await mount(a.namespace, acct, spec);
      if (list(spec['imagePullSecrets']).length === 0) {
        const pulls = list((acct as Loose)['imagePullSecrets']).filter((p) => str(p['name'])).map((p) => ({ name: str(p['name']) }));
        if (pulls.length > 0) spec['imagePullSecrets'] = pulls;
      }
    },
    async validate(a) {
      const pod = a.object!;
      const spec = rec(pod.spec);
      const name = a.name || pod.metadata.name || '';
      const refuse = (why: string): StatusError => forbidden(`pods "${name}" is forbidden: ${why}`, { group: '', resource: 'pods', name });
      if (isMirror(pod)) {
        if (str(spec['serviceAccountName'])) throw refuse('a mirror pod may not reference service accounts');
        if (podSecretNames(spec).length > 0) throw refuse('a mirror pod may not reference secrets');
        if (hasTokenProjection(spec)) throw refuse('a mirror pod may not use ServiceAccountToken volume projections');
        return;
      }
      const saName = str(spec['serviceAccountName']);
      if (!saName) throw refuse(`no service account specified for pod ${a.namespace}/${name}`);
      const acct = await account(a.namespace, saName);
      if (!acct) throw refuse(`error looking up service account ${a.namespace}/${saName}: serviceaccount "${saName}" not found`);
      if (acct.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS_ANNOTATION] !== 'true') return;
      const mountable = new Set(list((acct as Loose)['secrets']).map((s) => str(s['name'])));
      const pullable = new Set(list((acct as Loose)['imagePullSecrets']).map((s) => str(s['name'])));
      for (const v of list(spec['volumes'])) {
        const s = str(rec(v['secret'])['secretName']);
        if (s && !mountable.has(s)) throw refuse(`volume with secret.secretName="${s}" is not allowed because service account ${saName} does not reference that secret`);
      }
      for (const [field, what] of [['initContainers', 'init container'], ['containers', 'container']] as const) {
        for (const c of list(spec[field])) {
          for (const e of list(c['env'])) {
            const s = str(rec(rec(e['valueFrom'])['secretKeyRef'])['name']);
            if (s && !mountable.has(s)) throw refuse(`${what} ${str(c['name'])} with envVar ${str(e['name'])} referencing secret.secretName="${s}" is not allowed because service account ${saName} does not reference that secret`);
          }
          for (const e of list(c['envFrom'])) {
            const s = str(rec(e['secretRef'])['name']);
            if (s && !mountable.has(s)) throw refuse(`${what} ${str(c['name'])} with envFrom referencing secret.secretName="${s}" is not allowed because service account ${saName} does not reference that secret`);
          }
        }
      }
      list(spec['imagePullSecrets']).forEach((p, i) => {
        const s = str(p['name']);
        if (!pullable.has(s)) throw refuse(`imagePullSecrets[${i}].name="${s}" is not allowed because service account ${saName} does not reference that imagePullSecret`);
      });
    },
  };
}
