/**
 * The bootstrapsigner controller (off by default, as established): keeps the `cluster-info`
 * ConfigMap of `svc-public` signed by every bootstrap token that may sign, so a joining node that
 * knows a token can check the cluster's address and CA it reads there before trusting them.
 *
 * - Watches: the ConfigMap `svc-public/cluster-info`. Triggers: bootstrap token Secrets of
 *   `svc-system` (a token added, changed, expired or removed re-signs the ConfigMap).
 * - For each valid signing token (the Secret named `bootstrap-token-<id>` with that `token-id`, a
 *   `token-secret`, `usage-bootstrap-signing: "true"`, not expired) the ConfigMap gets
 *   `jws-kubeconfig-<id>`: a detached JWS (`<header>..<signature>`, HS256 keyed with the token's
 *   secret, header `kid` = the id) of the `kubeconfig` value; signatures of other ids are removed.
 *   A ConfigMap without `kubeconfig` is left alone.
 * - Writes: one update of the ConfigMap when a signature changed, with its resourceVersion (a
 *   conflict brings the new version back through the watch).
 */
import { CompactSign } from 'jose';
import type { ConfigMap, Secret } from '../../src/api/generated/kinds.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE, bootstrapSecretData, bootstrapTokenExpiry, CLUSTER_INFO_CONFIGMAP,
  CLUSTER_INFO_KUBECONFIG_KEY, CLUSTER_INFO_NAMESPACE, JWS_SIGNATURE_KEY_PREFIX,
} from '../../src/api/bootstrap-token-format.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

const CLUSTER_INFO_KEY = `${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO_CONFIGMAP}`;

/** The detached JWS of `content` for token `id` (the established `ComputeDetachedSignature`). */
export async function detachedSignature(content: string, id: string, secret: string): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(content)).setProtectedHeader({ alg: 'HS256', kid: id }).sign(new TextEncoder().encode(secret));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** The tokens that may sign now: id -> secret (`validateSecretForSigning`). */
export function signingTokens(secrets: readonly Secret[], now: number): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of secrets) {
    if (s.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || s.metadata.deletionTimestamp) continue;
    const name = s.metadata.name ?? '';
    if (!name.startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX)) continue;
    const data = bootstrapSecretData(s);
    const id = data['token-id'] ?? '';
    if (!id || name !== `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`) continue;
    const secret = data['token-secret'] ?? '';
    if (!secret) continue;
    const expiry = bootstrapTokenExpiry(data);
    if (expiry.expired || (expiry.at !== undefined && expiry.at <= now)) continue;
    if (data['usage-bootstrap-signing'] !== 'true') continue;
    out.set(id, secret);
  }
  return out;
}

export function bootstrapSignerController(): ControllerDefinition<ConfigMap> {
  return defineController<ConfigMap>({
    name: 'bootstrapsigner',
    watches: resources.configmaps,
    selector: { namespace: CLUSTER_INFO_NAMESPACE, fieldSelector: `metadata.name=${CLUSTER_INFO_CONFIGMAP}` },
    permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['update'], resourceNames: [CLUSTER_INFO_CONFIGMAP] }],
    triggers: [
      {
        resource: resources.secrets,
        selector: { namespace: BOOTSTRAP_TOKEN_NAMESPACE, fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` },
        keysFor: () => [CLUSTER_INFO_KEY],
      },
    ],
    async reconcile(key, ctx) {
      const cm = ctx.object;
      if (key !== CLUSTER_INFO_KEY || !cm || cm.metadata.deletionTimestamp) return done();
      const content = cm.data?.[CLUSTER_INFO_KUBECONFIG_KEY];
      if (content === undefined) return done();
      const data: Record<string, string> = {};
      const before = new Map<string, string>();
      for (const [k, v] of Object.entries(cm.data ?? {})) {
        if (k.startsWith(JWS_SIGNATURE_KEY_PREFIX)) before.set(k.slice(JWS_SIGNATURE_KEY_PREFIX.length), v);
        else data[k] = v;
      }
      let changed = false;
      const tokens = signingTokens(ctx.cacheOf<Secret>(resources.secrets).list(), ctx.clock.now());
      for (const [id, secret] of tokens) {
        const sig = await detachedSignature(content, id, secret);
        if (before.get(id) !== sig) changed = true;
        before.delete(id);
        data[`${JWS_SIGNATURE_KEY_PREFIX}${id}`] = sig;
      }
      if (before.size) changed = true;
      if (!changed) return done();
      try {
        await ctx.client.update<ConfigMap>(resources.configmaps, CLUSTER_INFO_NAMESPACE, { ...cm, data });
        ctx.logger.info({ tokens: [...tokens.keys()] }, 'signed cluster-info');
      } catch (e) {
        if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return done();
        throw e;
      }
      return done();
    },
  });
}
