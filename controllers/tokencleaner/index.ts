/**
 * The tokencleaner controller (off by default, as established): deletes bootstrap token Secrets
 * (`svc-system`, type `bootstrap.svc.io/token`) whose `expiration` has passed, or is not an RFC 3339
 * time (counted as expired, as established). A token with a future expiry is looked at again when
 * it comes (a timer per key), so it goes at its time rather than at the next resync.
 *
 * - Watches: Secrets of `svc-system` of the bootstrap token type (field selector).
 * - Timers: a token's expiry. Writes: deletes with a uid precondition. No Events.
 */
import type { Secret } from '../../src/api/generated/kinds.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_TYPE, bootstrapSecretData, bootstrapTokenExpiry } from '../../src/api/bootstrap-token-format.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

/** Timers are kept within a day: the watch or a resync brings the key back anyway. */
const LONGEST_WAIT_MS = 24 * 3_600_000;

export function tokenCleanerController(): ControllerDefinition<Secret> {
  return defineController<Secret>({
    name: 'tokencleaner',
    watches: resources.secrets,
    selector: { namespace: BOOTSTRAP_TOKEN_NAMESPACE, fieldSelector: `type=${BOOTSTRAP_TOKEN_SECRET_TYPE}` },
    permissions: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }],
    async reconcile(_key, ctx) {
      const secret = ctx.object;
      if (!secret || secret.metadata.deletionTimestamp || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return done();
      const expiry = bootstrapTokenExpiry(bootstrapSecretData(secret));
      if (!expiry.expired) {
        if (expiry.at === undefined) return done();
        const left = expiry.at - ctx.clock.now();
        if (left > 0) return requeueAfter(Math.min(left, LONGEST_WAIT_MS));
      }
      try {
        await ctx.client.delete(resources.secrets, secret.metadata.namespace ?? '', secret.metadata.name ?? '', { preconditions: { uid: secret.metadata.uid ?? '' } });
        ctx.logger.info({ secret: `${secret.metadata.namespace}/${secret.metadata.name}` }, 'deleted an expired bootstrap token');
      } catch (e) {
        if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
      }
      return done();
    },
  });
}
