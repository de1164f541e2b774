/**
 * The resourcequota controller: keeps each ResourceQuota's `status.hard` (its spec's) and
 * `status.used` (what the namespace's objects use of each hard resource, src/api/quota).
 *
 * - Watches: ResourceQuotas. A quota whose status does not match its spec (new, or its hard
 *   changed) is recalculated in full at once; a change of status alone (the admission plugin's
 *   charge) is not recalculated, as established, so a recalculation never races creates in flight.
 * - Triggers (the quota monitors, one per resource the established controller watches): pods,
 *   services, persistentvolumeclaims, configmaps, secrets, replicationcontrollers. A change that
 *   gives usage back queues the quotas of its namespace for recalculation (replenishment), as the
 *   established update filter decides: an object deleted; a pod finished or being deleted; a
 *   Service whose type changed (its nodeports and loadbalancers); a claim whose usage changed (a
 *   shrink of its request or of its allocated storage). A create is charged by admission, not here.
 * - `count/<resource>.<group>` of any other kind is counted with a list from the API at each
 *   recalculation (the kind found by discovery).
 * - Timers: every quota is recalculated in full every `--resource-quota-sync-period`.
 * - Writes: `resourcequotas/status` with the cached resourceVersion (a conflict is retried).
 */
import type { ResourceQuota } from '../../src/api/generated/kinds.js';
import { canonicalJson } from '../../src/api/json-walk.js';
import { QuotaAmounts } from '../../src/api/quota/amounts.js';
import { countName, isPodComputeResource, isPodKind, matchingResources, usageOf, type QuotaKind } from '../../src/api/quota/evaluators.js';
import { quotaSelectors, quotaSelects, scopeAllowsResource } from '../../src/api/quota/scopes.js';
import type { SvcObject } from '../../src/api/types.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import { objectKey } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient, type DiscoveredResource, type ResourceRef } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeue, requeueAfter } from '../../src/runtime/outcome.js';

export interface ResourceQuotaOptions {
  /** `--concurrent-resource-quota-syncs`. */
  concurrency: number;
  /** `--resource-quota-sync-period`. */
  syncPeriodMs: number;
}

/** The resources the controller keeps caches of (the established controller's monitors). */
export const MONITORED: readonly ResourceRef[] = [
  resources.pods, resources.services, resources.persistentvolumeclaims, resources.configmaps, resources.secrets, resources.replicationcontrollers,
];

const DISCOVERY_TTL_MS = 30_000;

const kindOf = (r: ResourceRef): QuotaKind => ({ group: r.group, plural: r.resource });
const podFinished = (o: SvcObject) => {
  const phase = (o as { status?: { phase?: string } }).status?.phase;
  return phase === 'Succeeded' || phase === 'Failed' || !!o.metadata.deletionTimestamp;
};

/**
 * Whether an update from `old` to `current` gives usage back (the established update filter):
 * a Service whose type changed, a claim whose usage changed. The runtime hands each source's
 * `keysFor` the old object of an update too; the cache already holds the new one, so an object
 * that is not the cached one is the old side of an update.
 */
export function updateReplenishes(ref: ResourceRef, old: SvcObject, current: SvcObject): boolean {
  if (ref === resources.services) {
    // The established quota service type: only LoadBalancer and NodePort use anything beyond the count.
    const quotaType = (o: SvcObject) => {
      const t = (o as { spec?: { type?: string } }).spec?.type;
      return t === 'LoadBalancer' || t === 'NodePort' ? t : '';
    };
    return quotaType(old) !== quotaType(current);
  }
  if (ref === resources.persistentvolumeclaims) {
    const k = kindOf(ref);
    return canonicalJson(usageOf(k, old, 0).toList()) !== canonicalJson(usageOf(k, current, 0).toList());
  }
  return false;
}

/** What one quota's namespace uses of its hard resources; `extra` counts kinds without a cache. */
export function quotaUsage(
  quota: ResourceQuota,
  objectsOf: (ref: ResourceRef) => readonly SvcObject[],
  quotasInNamespace: number,
  nowMs: number,
  extra: ReadonlyMap<string, number> = new Map(),
): QuotaAmounts {
  const hard = QuotaAmounts.fromList(quota.spec?.hard);
  const hardNames = hard.names();
  const sels = quotaSelectors(quota);
  const used = new QuotaAmounts();
  for (const n of hardNames) used.addMilli(n, 0n, hard.isBinary(n));
  const covered = new Set<string>();
  for (const ref of MONITORED) {
    const k = kindOf(ref);
    const pod = isPodKind(k);
    let names = matchingResources(k, hardNames);
    if (sels.length) names = pod ? names.filter((r) => scopeAllowsResource(sels, r, isPodComputeResource)) : [];
    names.forEach((n) => covered.add(n));
    if (names.length === 0) continue;
    const only = new Set(names);
    const sum = new QuotaAmounts();
    for (const o of objectsOf(ref)) {
      if (sels.length && !quotaSelects(quota, pod, o)) continue;
      sum.addAll(usageOf(k, o, nowMs), only);
    }
    for (const n of names) used.addMilli(n, sum.get(n));
  }
  if (!sels.length) {
    const own = matchingResources({ group: '', plural: 'resourcequotas' }, hardNames);
    for (const n of own) used.addMilli(n, BigInt(quotasInNamespace) * 1000n), covered.add(n);
    for (const [n, count] of extra) if (hard.has(n) && !covered.has(n)) used.addMilli(n, BigInt(count) * 1000n);
  }
  return used;
}

/** Whether the status still says what the spec asks (same hard, every hard resource has usage). */
function statusCurrent(q: ResourceQuota): boolean {
  const spec = q.spec?.hard ?? {};
  const st = q.status?.hard ?? {};
  const used = q.status?.used ?? {};
  const a = QuotaAmounts.fromList(spec);
  const b = QuotaAmounts.fromList(st);
  if (a.names().length !== b.names().length) return false;
  for (const n of a.names()) if (!b.has(n) || a.get(n) !== b.get(n) || used[n] === undefined) return false;
  return true;
}

export function resourceQuotaController(o: ResourceQuotaOptions): ControllerDefinition<ResourceQuota> {
  /** Quotas to recalculate whatever their status says (replenishment). */
  const dirty = new Set<string>();
  const lastFull = new Map<string, number>();
  // The monitors' caches, known once the first reconcile ran (keysFor has only the quotas').
  const caches = new Map<string, IndexedCache<SvcObject>>();
  let discovered: { at: number; list: DiscoveredResource[] } | undefined;

  const replenish = (ref: ResourceRef) => (obj: SvcObject, quotas: IndexedCache<ResourceQuota>): string[] => {
    const cache = caches.get(ref.resource);
    if (!cache) return [];
    const current = cache.get(objectKey(obj));
    if (current && !(ref === resources.pods && podFinished(obj)) && !(current !== obj && updateReplenishes(ref, obj, current))) return [];
    const ns = obj.metadata.namespace ?? '';
    const keys = quotas.byIndex('namespace', ns).map((q) => `${ns}/${q.metadata.name}`);
    keys.forEach((k) => dirty.add(k));
    return keys;
  };

  /** Counts of `count/<resource>.<group>` names no monitor covers, by a list of the namespace. */
  async function uncachedCounts(client: ApiClient, q: ResourceQuota, nowMs: number): Promise<Map<string, number>> {
    const monitored = new Set(MONITORED.map((r) => countName(kindOf(r))).concat('count/resourcequotas'));
    const wanted = Object.keys(q.spec?.hard ?? {}).filter((n) => n.startsWith('count/') && !monitored.has(n));
    const out = new Map<string, number>();
    if (!wanted.length) return out;
    if (!discovered || nowMs - discovered.at > DISCOVERY_TTL_MS) discovered = { at: nowMs, list: await client.discover() };
    for (const n of wanted) {
      const ref = discovered.list.find((r) => r.namespaced && countName(kindOf(r)) === n && r.verbs.includes('list'));
      if (!ref) continue;
      const list = await client.list(ref, { namespace: q.metadata.namespace ?? '' });
      out.set(n, list.items.length);
    }
    return out;
  }

  return defineController<ResourceQuota>({
    name: 'resourcequota',
    watches: resources.resourcequotas,
    concurrency: o.concurrency,
    triggers: MONITORED.map((resource) => ({ resource, keysFor: replenish(resource) })),
    // Established role: list and watch of every resource (count/<anything>), its own status.
    permissions: [
      { apiGroups: ['*'], resources: ['*'], verbs: ['list', 'watch'] },
      { apiGroups: [''], resources: ['resourcequotas/status'], verbs: ['update'] },
    ],
    async reconcile(key, ctx) {
      if (caches.size === 0) for (const r of MONITORED) caches.set(r.resource, ctx.cacheOf(r));
      const q = ctx.object;
      if (!q || q.metadata.deletionTimestamp) {
        dirty.delete(key);
        lastFull.delete(key);
        return done();
      }
      const now = ctx.clock.now();
      const due = now - (lastFull.get(key) ?? -Infinity) >= o.syncPeriodMs;
      if (!dirty.has(key) && statusCurrent(q) && !due) return done();
      dirty.delete(key);
      const ns = q.metadata.namespace ?? '';
      const extra = await uncachedCounts(ctx.client, q, now);
      const used = quotaUsage(q, (ref) => ctx.cacheOf<SvcObject>(ref).byIndex('namespace', ns), ctx.cache.byIndex('namespace', ns).length, now, extra);
      const status = { hard: { ...(q.spec?.hard ?? {}) }, used: used.toList() };
      if (canonicalJson(q.status ?? {}) !== canonicalJson(status)) {
        try {
          await ctx.client.updateStatus(resources.resourcequotas, ns, { ...q, status } as ResourceQuota);
        } catch (e) {
          // A charge by admission got there first: recalculate against it.
          if (e instanceof ApiError && e.code === 409) {
            dirty.add(key);
            return requeue();
          }
          if (e instanceof ApiError && e.code === 404) return done();
          throw e;
        }
      }
      lastFull.set(key, now);
      return requeueAfter(o.syncPeriodMs);
    },
  });
}
