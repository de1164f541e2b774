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
 * - Lifecycle: machines/lifecycles/namespace.ts names the state each pass found (active,
 *   discovering, deletingContent, waitingOnFinalizers.content / .namespace, done); the reconcile
 *   acts on it: finalize in `done`, conditions and the next look in the others.
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
import type { Condition } from '../../src/api/generated/kinds.js';
import { namespaceLifecycle } from '../../machines/lifecycles/namespace.js';
import { deletableResources, deleteContent, describeCounts, describeFinalizers, type ContentResult } from './content.js';
import { namespaceFacts, needsEmptying } from './lifecycle-facts.js';

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
    lifecycle: namespaceLifecycle,
    async reconcile(key, ctx) {
      const ns = ctx.object;
      if (!ns) {
        attempts.delete(key);
        ctx.lifecycle.forget();
        return done();
      }
      // A namespace being emptied gets its pass (the established deleter's): discover, delete every
      // kind's collection, list what remains. What the pass found decides the state.
      const now = ctx.clock.now();
      let conditions = ns.status?.conditions;
      let pass: { discoveryError?: string; result?: ContentResult } | undefined;
      if (needsEmptying(ns)) {
        pass = {};
        let list: DiscoveredResource[] | undefined;
        try {
          if (!discovered || now - discovered.at > DISCOVERY_TTL_MS) discovered = { at: now, list: await ctx.client.discover() };
          list = discovered.list;
          conditions = setCondition(conditions, { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' }, now);
        } catch (e) {
          pass.discoveryError = (e as Error).message;
          conditions = setCondition(conditions, { type: 'NamespaceDeletionDiscoveryFailure', status: 'True', reason: 'DiscoveryFailed', message: `Discovery failed: ${pass.discoveryError}` }, now);
        }
        if (list) {
          pass.result = await deleteContent(ctx.client, key, deletableResources(list), now);
          conditions = contentConditions(conditions, pass.result, now);
        }
      }
      const facts = namespaceFacts(ns, pass);
      const { state } = ctx.lifecycle.observe(namespaceLifecycle, facts);
      switch (state) {
        case 'active':
        case 'waitingOnFinalizers.namespace':
          // Not being deleted, or the rest of spec.finalizers is their owners' to remove.
          attempts.delete(key);
          return done();
        case 'done':
          attempts.delete(key);
          if (facts.ownFinalizer) {
            try {
              const finalizers = (ns.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
              await ctx.client.subresource(resources.namespaces, '', key, 'finalize', 'PUT', { ...ns, spec: { ...ns.spec, finalizers } });
              ctx.logger.info('namespace emptied; finalizer removed');
            } catch (e) {
              if (!(e instanceof ApiError && (e.code === 404 || e.code === 409))) throw e;
            }
          }
          return done();
        default: {
          // discovering, deletingContent, waitingOnFinalizers.content: say so, and look again.
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
          const wait = facts.estimateMs > 0 ? Math.min(facts.estimateMs + 100, o.syncPeriodMs) : backoff;
          return requeueAfter(Math.max(wait, 50));
        }
      }
    },
  });
}

/** The content conditions a pass's result gives (the established reasons and messages). */
function contentConditions(conditions: Condition[] | undefined, result: ContentResult, now: number): Condition[] {
  let out = result.failures.length
    ? setCondition(conditions, { type: 'NamespaceDeletionContentFailure', status: 'True', reason: 'ContentDeletionFailed', message: `Failed to delete all resource types, ${result.failures.length} remaining: ${result.failures.join(', ')}` }, now)
    : setCondition(conditions, { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' }, now);
  out = result.remaining.size
    ? setCondition(out, { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${describeCounts(result.remaining)}` }, now)
    : setCondition(out, { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' }, now);
  return result.finalizers.size
    ? setCondition(out, { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: `Some content in the namespace has finalizers remaining: ${describeFinalizers(result.finalizers)}` }, now)
    : setCondition(out, { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' }, now);
}
