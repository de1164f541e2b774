/**
 * LimitRanger (default on): a namespace's LimitRanges applied to pods and claims, as established.
 *
 * - Mutating, pods on create: every container and init container without a request (limit) for a
 *   resource a `Container` item's `defaultRequest` (`default`) names gets it, and the pod is
 *   annotated `svc.io/limit-ranger: "LimitRanger plugin set: cpu request for container app; ..."`.
 *   Runs after the request's defaults (a limit alone already made the request equal to it).
 * - Validating, pods on create: each `Container` item's min/max/maxLimitRequestRatio against every
 *   container and init container; each `Pod` item's against the pod's totals (containers summed,
 *   then the largest init container where it is larger). Claims on create and update: a
 *   `PersistentVolumeClaim` item's min/max against `spec.resources.requests`.
 * - A refusal is 403 Forbidden with the established messages, all of one LimitRange's violations
 *   together: `pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2`.
 *   Pod updates are not checked (their resources cannot change), nor objects being deleted.
 *
 * LimitRanges are read from the watch cache; a namespace the cache shows none for is listed from
 * storage, that answer kept 30 s (at most 10,000 namespaces), as the established plugin's live
 * lookup does, so a LimitRange created a moment before the pod still applies.
 */
import type { Container, LimitRange, PersistentVolumeClaim, Pod } from '../../api/generated/kinds.js';
import { formatMilli, toMilli } from '../../api/quota/amounts.js';
import { type AdmissionAttributes, type AdmissionPlugin } from './chain.js';
import { admissionForbidden, aggregateMessages } from './refusal.js';

export const ANNOTATION_LIMIT_RANGER = 'svc.io/limit-ranger';

export interface LimitRangeAccess {
  /** The namespace's LimitRanges as the watch cache has them. */
  cached(namespace: string): Promise<LimitRange[]>;
  /** The namespace's LimitRanges as stored (a consistent list). */
  live(namespace: string): Promise<LimitRange[]>;
}

type ResourceList = Record<string, number | string>;
type LimitItem = NonNullable<NonNullable<LimitRange['spec']>['limits']>[number];

const LIVE_TTL_MS = 30_000;
const LIVE_ENTRIES = 10_000;

const isBinary = (q: unknown) => typeof q === 'string' && /i$/.test(q.trim());
/** A quantity's canonical string (`Quantity.String()`): `1000m` is `1`, `1024Mi` is `1Gi`. */
const show = (q: unknown) => formatMilli(toMilli(q), isBinary(q));
const has = (list: ResourceList | undefined, k: string) => list !== undefined && list[k] !== undefined && list[k] !== null;

export function minConstraint(type: string, name: string, enforced: unknown, request: ResourceList | undefined, limit: ResourceList | undefined): string | undefined {
  if (!has(request, name)) return `minimum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  const min = toMilli(enforced);
  if (toMilli(request![name]) < min) return `minimum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(request![name])}`;
  if (has(limit, name) && toMilli(limit![name]) < min) return `minimum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(limit![name])}`;
  return undefined;
}

export function maxConstraint(type: string, name: string, enforced: unknown, request: ResourceList | undefined, limit: ResourceList | undefined): string | undefined {
  if (!has(limit, name)) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No limit is specified`;
  const max = toMilli(enforced);
  if (toMilli(limit![name]) > max) return `maximum ${name} usage per ${type} is ${show(enforced)}, but limit is ${show(limit![name])}`;
  if (has(request, name) && toMilli(request![name]) > max) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(request![name])}`;
  return undefined;
}

/** Max for a kind that has requests only (claims). */
function maxRequestConstraint(type: string, name: string, enforced: unknown, request: ResourceList | undefined): string | undefined {
  if (!has(request, name)) return `maximum ${name} usage per ${type} is ${show(enforced)}.  No request is specified`;
  if (toMilli(request![name]) > toMilli(enforced)) return `maximum ${name} usage per ${type} is ${show(enforced)}, but request is ${show(request![name])}`;
  return undefined;
}

export function ratioConstraint(type: string, name: string, enforced: unknown, request: ResourceList | undefined, limit: ResourceList | undefined): string | undefined {
  const req = has(request, name) ? toMilli(request![name]) : 0n;
  const lim = has(limit, name) ? toMilli(limit![name]) : 0n;
  if (req === 0n) return `${name} max limit to request ratio per ${type} is ${show(enforced)}, but no request is specified or request is 0`;
  if (lim === 0n) return `${name} max limit to request ratio per ${type} is ${show(enforced)}, but no limit is specified or limit is 0`;
  const observed = Number(lim) / Number(req);
  if (observed * 1000 > Number(toMilli(enforced))) {
    return `${name} max limit to request ratio per ${type} is ${show(enforced)}, but provided ratio is ${observed.toFixed(6)}`;
  }
  return undefined;
}

/** Checks one item's min, max and ratio against a request and limit list. */
function checkItem(item: LimitItem, type: string, request: ResourceList | undefined, limit: ResourceList | undefined, errs: string[]): void {
  for (const [k, v] of Object.entries(item.min ?? {})) push(errs, minConstraint(type, k, v, request, limit));
  for (const [k, v] of Object.entries(item.max ?? {})) push(errs, maxConstraint(type, k, v, request, limit));
  for (const [k, v] of Object.entries(item.maxLimitRequestRatio ?? {})) push(errs, ratioConstraint(type, k, v, request, limit));
}

function push(errs: string[], e: string | undefined): void {
  if (e !== undefined) errs.push(e);
}

const containersOf = (pod: Pod): Container[] => pod.spec?.containers ?? [];
const initContainersOf = (pod: Pod): Container[] => pod.spec?.initContainers ?? [];

/** Sets the defaults of one LimitRange's Container items; returns what it set, for the annotation. */
export function applyContainerDefaults(range: LimitRange, pod: Pod): string[] {
  const requests: ResourceList = {};
  const limits: ResourceList = {};
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'Container') continue;
    Object.assign(requests, item.defaultRequest ?? {});
    Object.assign(limits, item.default ?? {});
  }
  const notes: string[] = [];
  const merge = (c: Container, prefix: string) => {
    const res = c.resources ?? {};
    const setLimits = Object.keys(limits).filter((k) => !has(res.limits, k)).sort();
    const setRequests = Object.keys(requests).filter((k) => !has(res.requests, k)).sort();
    if (setLimits.length) res.limits = { ...(res.limits ?? {}), ...Object.fromEntries(setLimits.map((k) => [k, limits[k]!])) };
    if (setRequests.length) res.requests = { ...(res.requests ?? {}), ...Object.fromEntries(setRequests.map((k) => [k, requests[k]!])) };
    if (setLimits.length || setRequests.length) c.resources = res;
    if (setRequests.length) notes.push(`${setRequests.join(', ')} request for ${prefix} ${c.name ?? ''}`);
    if (setLimits.length) notes.push(`${setLimits.join(', ')} limit for ${prefix} ${c.name ?? ''}`);
  };
  for (const c of containersOf(pod)) merge(c, 'container');
  for (const c of initContainersOf(pod)) merge(c, 'init container');
  if (notes.length) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [ANNOTATION_LIMIT_RANGER]: `LimitRanger plugin set: ${notes.join('; ')}` };
  return notes;
}

/** The pod's totals: containers summed, then each init container where it is larger. */
function podTotals(pod: Pod, field: 'requests' | 'limits'): ResourceList {
  const milli = new Map<string, { v: bigint; binary: boolean }>();
  for (const c of containersOf(pod)) {
    for (const [k, q] of Object.entries(c.resources?.[field] ?? {})) {
      const had = milli.get(k);
      milli.set(k, { v: (had?.v ?? 0n) + toMilli(q), binary: had?.binary ?? isBinary(q) });
    }
  }
  for (const c of initContainersOf(pod)) {
    for (const [k, q] of Object.entries(c.resources?.[field] ?? {})) {
      const had = milli.get(k);
      if (!had || toMilli(q) > had.v) milli.set(k, { v: toMilli(q), binary: isBinary(q) });
    }
  }
  return Object.fromEntries([...milli].map(([k, { v, binary }]) => [k, formatMilli(v, binary)]));
}

/** The violations of one LimitRange by a pod. */
export function podViolations(range: LimitRange, pod: Pod): string[] {
  const errs: string[] = [];
  for (const item of range.spec?.limits ?? []) {
    if (item.type === 'Container') {
      for (const c of [...containersOf(pod), ...initContainersOf(pod)]) checkItem(item, 'Container', c.resources?.requests, c.resources?.limits, errs);
    } else if (item.type === 'Pod') {
      checkItem(item, 'Pod', podTotals(pod, 'requests'), podTotals(pod, 'limits'), errs);
    }
  }
  return errs;
}

/** The violations of one LimitRange by a claim (requests only: a claim's limits are not its ask). */
export function claimViolations(range: LimitRange, claim: PersistentVolumeClaim): string[] {
  const errs: string[] = [];
  const requests = claim.spec?.resources?.requests;
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of Object.entries(item.min ?? {})) push(errs, minConstraint('PersistentVolumeClaim', k, v, requests, {}));
    for (const [k, v] of Object.entries(item.max ?? {})) push(errs, maxRequestConstraint('PersistentVolumeClaim', k, v, requests));
  }
  return errs;
}

const isPods = (a: AdmissionAttributes) => a.def.group === '' && a.def.plural === 'pods';
const isClaims = (a: AdmissionAttributes) => a.def.group === '' && a.def.plural === 'persistentvolumeclaims';

export function limitRanger(access: LimitRangeAccess, now: () => number = Date.now): AdmissionPlugin {
  const liveLookups = new Map<string, { expiry: number; items: LimitRange[] }>();
  const rangesOf = async (namespace: string): Promise<LimitRange[]> => {
    const cached = await access.cached(namespace);
    if (cached.length > 0) return cached;
    const hit = liveLookups.get(namespace);
    if (hit && hit.expiry >= now()) return hit.items;
    const items = await access.live(namespace);
    liveLookups.delete(namespace);
    liveLookups.set(namespace, { expiry: now() + LIVE_TTL_MS, items });
    // The oldest entry goes first (a Map iterates in insertion order).
    if (liveLookups.size > LIVE_ENTRIES) liveLookups.delete(liveLookups.keys().next().value!);
    return items;
  };
  return {
    name: 'LimitRanger',
    sideEffects: 'None',
    handles: (a) =>
      a.subresource === '' &&
      !a.oldObject?.metadata.deletionTimestamp &&
      ((isPods(a) && a.operation === 'CREATE') || (isClaims(a) && (a.operation === 'CREATE' || a.operation === 'UPDATE'))),
    async mutate(a) {
      if (!isPods(a) || !a.object) return;
      for (const range of await rangesOf(a.namespace)) applyContainerDefaults(range, a.object as Pod);
    },
    async validate(a) {
      if (!a.object) return;
      for (const range of await rangesOf(a.namespace)) {
        const errs = isPods(a) ? podViolations(range, a.object as Pod) : claimViolations(range, a.object as PersistentVolumeClaim);
        if (errs.length > 0) throw admissionForbidden(a, aggregateMessages(errs));
      }
    },
  };
}
