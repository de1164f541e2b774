/**
 * The serviceaccount-token controller: fills legacy token Secrets (type
 * `svc.io/service-account-token`, annotation `svc.io/service-account.name`) with a token signed by
 * --service-account-private-key-file, the root CA and the namespace, and deletes token Secrets
 * whose account is gone, as the established tokens controller does today (it no longer makes a
 * Secret for every account: people create the ones they want).
 *
 * - Watches: Secrets of the token type (field selector). Triggers: ServiceAccounts (a changed or
 *   deleted account queues the token Secrets that name it).
 * - Writes:
 *   - a Secret whose account exists (and has the uid the Secret's `svc.io/service-account.uid`
 *     names, when it names one) gets `data.token` when it has none, `data.ca.crt` (the root CA,
 *     when one is given) and `data.namespace`, and the uid annotation; one update with the
 *     Secret's resourceVersion, so a concurrent change makes it retry;
 *   - a Secret whose account does not exist (checked with a GET, so a cache that is behind never
 *     deletes a live account's token), or has another uid, is deleted with a uid precondition.
 * - A token already in a Secret is kept (it stays valid as long as its key verifies it).
 */
import type { Secret, ServiceAccount } from '../../src/api/generated/kinds.js';
import type { SigningKey } from '../../src/api/service-account-keys.js';
import {
  SERVICE_ACCOUNT_NAME_ANNOTATION, SERVICE_ACCOUNT_TOKEN_SECRET_TYPE, SERVICE_ACCOUNT_UID_ANNOTATION, signLegacyToken, TOKEN_SECRET_KEYS,
} from '../../src/api/service-account-token-format.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

export interface ServiceAccountTokenOptions {
  key: SigningKey;
  /** PEM bundle put in `ca.crt` (--root-ca-file); absent: no `ca.crt`. */
  rootCA?: string;
  concurrency: number;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const decoded = (v: string | undefined) => (v === undefined ? undefined : Buffer.from(v, 'base64').toString('utf8'));

/**
 * The account, from the cache when it is the one the Secret names, else as stored now (a GET): a
 * cache that is behind must never get a live account's token deleted.
 */
async function currentAccount(client: ApiClient, cached: ServiceAccount | undefined, namespace: string, name: string, wantUid: string | undefined): Promise<ServiceAccount | undefined> {
  if (cached && (!wantUid || cached.metadata.uid === wantUid)) return cached;
  try {
    return await client.get<ServiceAccount>(resources.serviceaccounts, namespace, name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}

export function serviceAccountTokenController(o: ServiceAccountTokenOptions): ControllerDefinition<Secret> {
  return defineController<Secret>({
    name: 'serviceaccount-token',
    watches: resources.secrets,
    selector: { fieldSelector: `type=${SERVICE_ACCOUNT_TOKEN_SECRET_TYPE}` },
    concurrency: o.concurrency,
    // Beyond reading what it watches: it fills and deletes token Secrets.
    permissions: [{ apiGroups: [''], resources: ['secrets'], verbs: ['update', 'delete'] }],
    triggers: [
      {
        resource: resources.serviceaccounts,
        keysFor: (obj, secrets) => {
          const ns = obj.metadata.namespace ?? '';
          return secrets
            .list(ns)
            .filter((s) => s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] === obj.metadata.name)
            .map((s) => `${ns}/${s.metadata.name ?? ''}`);
        },
      },
    ],
    async reconcile(_key, ctx) {
      const secret = ctx.object;
      if (!secret || secret.metadata.deletionTimestamp || secret.type !== SERVICE_ACCOUNT_TOKEN_SECRET_TYPE) return done();
      const namespace = secret.metadata.namespace ?? '';
      const secretName = secret.metadata.name ?? '';
      const saName = secret.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '';
      const wantUid = secret.metadata.annotations?.[SERVICE_ACCOUNT_UID_ANNOTATION];
      const account = saName ? await currentAccount(ctx.client, ctx.cacheOf<ServiceAccount>(resources.serviceaccounts).get(`${namespace}/${saName}`), namespace, saName, wantUid) : undefined;
      if (!account || (wantUid && account.metadata.uid !== wantUid)) {
        try {
          await ctx.client.delete(resources.secrets, namespace, secretName, { preconditions: { uid: secret.metadata.uid ?? '' } });
          ctx.logger.info({ secret: `${namespace}/${secretName}`, serviceAccount: saName }, 'deleted the token secret of a service account that is gone');
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
        }
        return done();
      }
      const data = { ...(secret.data ?? {}) } as Record<string, string>;
      const uid = account.metadata.uid ?? '';
      const needToken = !decoded(data[TOKEN_SECRET_KEYS.token]);
      const needCA = o.rootCA !== undefined && decoded(data[TOKEN_SECRET_KEYS.caCrt]) !== o.rootCA;
      const needNamespace = decoded(data[TOKEN_SECRET_KEYS.namespace]) !== namespace;
      const needUid = secret.metadata.annotations?.[SERVICE_ACCOUNT_UID_ANNOTATION] !== uid;
      if (!needToken && !needCA && !needNamespace && !needUid) return done();
      if (needToken) data[TOKEN_SECRET_KEYS.token] = b64(await signLegacyToken(o.key, namespace, saName, uid, secretName));
      if (o.rootCA !== undefined) data[TOKEN_SECRET_KEYS.caCrt] = b64(o.rootCA);
      data[TOKEN_SECRET_KEYS.namespace] = b64(namespace);
      const next: Secret = {
        ...secret,
        metadata: { ...secret.metadata, annotations: { ...secret.metadata.annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: uid } },
        data,
      };
      try {
        await ctx.client.update<Secret>(resources.secrets, namespace, next);
      } catch (e) {
        // Changed or deleted meanwhile: the watch brings the new version (or its deletion) back here.
        if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return done();
        throw e;
      }
      return done();
    },
  });
}
