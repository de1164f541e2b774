/**
 * The serviceaccount controller: every active namespace has a ServiceAccount named `default`.
 *
 * - Watches: Namespaces. Triggers: ServiceAccounts named `default` (a deleted one queues its
 *   namespace, which gets it back).
 * - Writes: creates `default` ServiceAccounts.
 * - Guarantees: nothing is created in a namespace being deleted; an existing account is never
 *   changed.
 */
import type { Namespace, ServiceAccount } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export function serviceAccountController(concurrency: number): ControllerDefinition<Namespace> {
  return defineController<Namespace>({
    name: 'serviceaccount',
    watches: resources.namespaces,
    concurrency,
    triggers: [
      {
        resource: resources.serviceaccounts,
        keysFor: (sa) => (sa.metadata.name === DEFAULT_SERVICE_ACCOUNT && sa.metadata.namespace ? [sa.metadata.namespace] : []),
      },
    ],
    async reconcile(key, ctx) {
      const ns = ctx.object;
      if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return done();
      const accounts = ctx.cacheOf<ServiceAccount>(resources.serviceaccounts);
      if (accounts.get(`${key}/${DEFAULT_SERVICE_ACCOUNT}`)) return done();
      try {
        await ctx.client.create<ServiceAccount>(resources.serviceaccounts, key, {
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace: key },
        });
      } catch (e) {
        // Already there (the cache is behind), or the namespace started terminating: nothing to do.
        if (e instanceof ApiError && (e.code === 409 || e.code === 403 || e.code === 404)) return done();
        throw e;
      }
      return done();
    },
  });
}
