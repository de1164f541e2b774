/**
 * The namespace controller: a namespace being deleted is emptied of every namespaced kind (built-in
 * and custom), then its `svc` finalizer is removed, so the server deletes it.
 *
 * - Watches: Namespaces (only those with a deletionTimestamp and the `svc` finalizer matter).
 * - Triggers: Pods of a namespace being deleted (the shared pod informer): a pod that goes, or
 *   changes, queues its namespace, so the namespace is looked at again as soon as its last pod has
 *   stopped rather than after the longest grace period (the established controller waits half of it
 *   plus a second; a simulated pod stops in about a second, so that wait would be most of the time).
 * - Writes: deletes of the namespace's contents (collections), the namespace's status conditions
 *   (NamespaceDeletionDiscoveryFailure, NamespaceDeletionContentFailure, NamespaceContentRemaining,
 *   NamespaceFinalizersRemaining), and `namespaces/<name>/finalize` once it is empty.
 * - Timers: while content remains, it looks again after the longest grace period still running
 *   (pods going sooner trigger it earlier), else after a back-off (0.5 s doubling) capped by
 *   `--namespace-sync-period`.
 * - Guarantees: the finalizer is removed only after a listing found every deletable resource empty;
 *   other finalizers in `spec.finalizers` are left to their owners.
 */
import type { Namespace } from '../../src/api/generated/kinds.js';
import { NAMESPACE_FINALIZER } from '../../src/api/kinds/core/namespace.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type DiscoveredResource } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { sameConditions, setCondition } from '../../src/runtime/conditions.js';
import { deletableResources, deleteContent, describeCounts } from './content.js';

/** Discovery is read again at most this often (CRDs come and go). */
const DISCOVERY_TTL_MS = 5_000;
const FIRST_RETRY_MS = 500;

export interface NamespaceControllerOptions {
  concurrency: number;
  /** `--namespace-sync-period`: the longest wait before looking again at a namespace still emptying. */
  syncPeriodMs: number;
}

export function namespaceController(o: NamespaceControllerOptions): ControllerDefinition<Namespace> {
  let discovered: { at: number; list: DiscoveredResource[] } | undefined;
  const attempts = new Map<string, number>();
  return defineController<Namespace>({
    name: 'namespace',
    watches: resources.namespaces,
    triggers: [
      {
        resource: resources.pods,
        keysFor: (pod, namespaces) => {
          const ns = pod.metadata.namespace;
          return ns !== undefined && namespaces.get(ns)?.metadata.deletionTimestamp ? [ns] : [];
        },
      },
    ],
    concurrency: o.concurrency,
    async reconcile(key, ctx) {
      const ns = ctx.object;
      if (!ns?.metadata.deletionTimestamp || !(ns.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) {
        attempts.delete(key);
        return done();
      }
      const now = ctx.clock.now();
      let conditions = ns.status?.conditions;
      let list: DiscoveredResource[] | undefined;
      try {
        if (!discovered || now - discovered.at > DISCOVERY_TTL_MS) discovered = { at: now, list: await ctx.client.discover() };
        list = discovered.list;
        conditions = setCondition(conditions, { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' }, now);
      } catch (e) {
        conditions = setCondition(conditions, { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed: ${(e as Error).message}` }, now);
      }
      const result = list ? await deleteContent(ctx.client, key, deletableResources(list), now) : undefined;
      if (result) {
        conditions = result.failures.length
          ? setCondition(conditions, { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${result.failures.length} remaining: ${result.failures.join(', ')}` }, now)
          : setCondition(conditions, { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' }, now);
        conditions = result.remaining.size
          ? setCondition(conditions, { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${describeCounts(result.remaining)}` }, now)
          : setCondition(conditions, { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' }, now);
        conditions = result.finalizers.size
          ? setCondition(conditions, { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${[...result.finalizers].sort().map(([f, n]) => `${f} in ${n} resource instances`).join(', ')}` }, now)
          : setCondition(conditions, { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' }, now);
      }
      const empty = result !== undefined && result.remaining.size === 0 && result.failures.length === 0;
      if (empty) {
        attempts.delete(key);
        try {
          const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
          await ctx.client.subresource(resources.namespaces, '', key, 'finalize', 'PUT', { ...ns, spec: { ...ns.spec, finalizers } });
          ctx.logger.info('namespace emptied; finalizer removed');
        } catch (e) {
          if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
        }
        return done();
      }
      if (!sameConditions(ns.status?.conditions, conditions)) {
        await ctx.client
          .updateStatus(resources.namespaces, '', { ...ns, status: { ...ns.status, conditions } })
          .catch((e: unknown) => {
            if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
          });
      }
      const n = attempts.get(key) ?? 0;
      attempts.set(key, n + 1);
      const backoff = Math.min(FIRST_RETRY_MS * 2 ** n, o.syncPeriodMs);
      const wait = result && result.estimateMs > 0 ? Math.min(result.estimateMs + 100, o.syncPeriodMs) : backoff;
      return requeueAfter(Math.max(wait, 50));
    },
  });
}
