/**
 * ResourceQuota admission: a create (or an update that grows usage) that would take a namespace
 * over one of its quotas is refused with 403 and the established message; an admitted one is
 * charged to every quota it counts towards before it is stored, so concurrent requests never
 * pass a quota together.
 *
 * Contract (established plugin): quotas of the request's namespace whose scopes select the object
 * and whose `status.hard` names a resource the object uses are the ones that count. For each, in
 * name order: a pod must state the cpu/memory it is quota'd on (`failed quota: <q>: must specify
 * ...`); a quota whose `status.used` lacks such a resource is not yet calculated (`status unknown
 * for quota: <q>, resources: ...`); `used + requested > hard` for any resource is `exceeded quota:
 * <q>, requested: r=v, used: r=v, limited: r=v` (only the exceeded resources). Then every such
 * quota's `status.used` is raised in storage with a revision precondition (optimistic
 * concurrency). Charges in one namespace run one at a time in this server; a write that loses to
 * another writer (the controller's recalculation) re-reads that quota and checks again. Dry-run
 * requests are checked, never charged. Pods are charged on create, services and claims on create
 * and on updates that grow them, every other kind (`count/<resource>.<group>`) on create. A
 * charge whose object then fails to be stored is given back by the controller's next recalculation.
 */
import { forbidden } from '../../api/status.js';
import type { ResourceQuota } from '../../api/generated/kinds.js';
import { QuotaAmounts } from '../../api/quota/amounts.js';
import { isPodComputeResource, isPodKind, matchingResources, podConstraintViolation, usageOf, type QuotaKind } from '../../api/quota/evaluators.js';
import { quotaSelectors, quotaSelects, scopeAllowsResource } from '../../api/quota/scopes.js';
import { ConflictError } from '../../storage/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

/** A quota as stored, with what a precondition on it needs. */
export interface StoredQuota {
  quota: ResourceQuota;
  /** Opaque to the plugin: handed back to `write`. */
  token: unknown;
}

/** The plugin's access to stored quotas (the server's resourcequotas store). */
export interface QuotaAccess {
  /** The namespace's quotas as a cache has them (to find the ones concerned; each is read again before a charge). */
  cached(namespace: string): Promise<ResourceQuota[]>;
  /** One quota as stored now (never a cache). */
  read(namespace: string, name: string): Promise<StoredQuota | undefined>;
  /** Stores `next` if the quota is still as read; throws ConflictError otherwise. */
  write(next: ResourceQuota, read: StoredQuota): Promise<void>;
}

const UPDATE_CHARGED = new Set(['services', 'persistentvolumeclaims']);

function kindOf(a: AdmissionAttributes): QuotaKind {
  return { group: a.def.group, plural: a.def.plural };
}

function refused(a: AdmissionAttributes, why: string) {
  const resource = a.def.group ? `${a.def.plural}.${a.def.group}` : a.def.plural;
  return forbidden(`${resource} "${a.name}" is forbidden: ${why}`, { group: a.def.group, resource: a.def.plural, name: a.name });
}

export function resourceQuotaAdmission(access: QuotaAccess, now: () => number = Date.now): AdmissionPlugin {
  // One charge at a time per namespace (in this server): concurrent creates queue here rather
  // than all losing the same precondition.
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <R>(ns: string, f: () => Promise<R>): Promise<R> => {
    const prev = turns.get(ns) ?? Promise.resolve();
    const run = prev.then(f, f);
    const tail = run.catch(() => undefined);
    turns.set(ns, tail);
    void tail.then(() => {
      if (turns.get(ns) === tail) turns.delete(ns);
    });
    return run;
  };

  /** What the request adds (the new object's usage, less the old one's on update; never negative). */
  const requested = (a: AdmissionAttributes): QuotaAmounts => {
    const k = kindOf(a);
    const t = now();
    const added = usageOf(k, a.object, t);
    if (a.operation !== 'UPDATE' || !a.oldObject) return added;
    const delta = added.minus(usageOf(k, a.oldObject, t));
    const out = new QuotaAmounts();
    for (const n of delta.names()) if (delta.get(n) > 0n) out.addMilli(n, delta.get(n), added.isBinary(n));
    return out;
  };

  /** The resources of a quota this request is restricted by. */
  const restricted = (a: AdmissionAttributes, q: ResourceQuota): string[] => {
    const k = kindOf(a);
    if (!quotaSelects(q, isPodKind(k), a.object)) return [];
    const sels = quotaSelectors(q);
    return matchingResources(k, Object.keys(q.status?.hard ?? {})).filter((r) => !sels.length || scopeAllowsResource(sels, r, isPodComputeResource));
  };

  /** Checks one quota; returns its next status.used, or undefined when it is not concerned. */
  const check = (a: AdmissionAttributes, q: ResourceQuota, delta: QuotaAmounts): Record<string, string> | undefined => {
    const names = restricted(a, q);
    if (names.length === 0) return undefined;
    const name = q.metadata.name ?? '';
    if (isPodKind(kindOf(a)) && a.operation === 'CREATE') {
      const why = podConstraintViolation(a.object as Parameters<typeof podConstraintViolation>[0], names);
      if (why) throw refused(a, `failed quota: ${name}: ${why}`);
    }
    const used = QuotaAmounts.fromList(q.status?.used);
    const unknown = names.filter((r) => !used.has(r));
    if (unknown.length) throw refused(a, `status unknown for quota: ${name}, resources: ${[...unknown].sort().join(',')}`);
    const ask = delta.copy(new Set(names));
    if (ask.isZero()) return undefined;
    const hard = QuotaAmounts.fromList(q.status?.hard);
    const next = used.plus(ask);
    const exceeded = ask.names().filter((r) => next.get(r) > hard.get(r));
    if (exceeded.length) {
      throw refused(a, `exceeded quota: ${name}, requested: ${ask.pretty(exceeded)}, used: ${used.pretty(exceeded)}, limited: ${hard.pretty(exceeded)}`);
    }
    const out = { ...(q.status?.used ?? {}) } as Record<string, string>;
    for (const r of ask.names()) out[r] = next.format(r);
    return out;
  };

  return {
    name: 'ResourceQuota',
    sideEffects: 'NoneOnDryRun',
    handles: (a) =>
      a.def.namespaced &&
      a.subresource === '' &&
      !!a.object &&
      (a.operation === 'CREATE' || (a.operation === 'UPDATE' && a.def.group === '' && UPDATE_CHARGED.has(a.def.plural))),
    async validate(a) {
      const quotas = await access.cached(a.namespace);
      if (quotas.length === 0) return;
      // Only quotas that concern this object are read and charged (most creates concern none).
      const quotaNames = quotas.filter((q) => restricted(a, q).length > 0).map((q) => q.metadata.name ?? '').sort();
      if (quotaNames.length === 0) return;
      const delta = requested(a);
      if (delta.isZero()) return;
      await inTurn(a.namespace, async () => {
        // Check all before charging any: a refusal leaves every quota as it was.
        let pending: { read: StoredQuota; used: Record<string, string> }[] = [];
        for (const n of quotaNames) {
          const read = await access.read(a.namespace, n);
          if (!read) continue;
          const used = check(a, read.quota, delta);
          if (used) pending.push({ read, used });
        }
        if (a.dryRun) return;
        for (let attempt = 0; pending.length > 0; attempt++) {
          const retry: typeof pending = [];
          for (const p of pending) {
            const next = { ...p.read.quota, status: { ...(p.read.quota.status ?? {}), used: p.used } } as ResourceQuota;
            try {
              await access.write(next, p.read);
            } catch (e) {
              if (!(e instanceof ConflictError) || attempt >= 20) throw e;
              // Someone else wrote it (the controller's recalculation): check against what is there now.
              const again = await access.read(a.namespace, p.read.quota.metadata.name ?? '');
              const used = again ? check(a, again.quota, delta) : undefined;
              if (again && used) retry.push({ read: again, used });
            }
          }
          pending = retry;
        }
      });
    },
  };
}

