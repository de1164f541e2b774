/**
 * Maintains `metadata.managedFields`: which manager owns which fields. Every create, update,
 * non-apply patch and status write records an `Update` entry with the fields that request changed
 * (taken away from everyone else); an apply records an `Apply` entry with the fields of its
 * configuration and fails with 409 when it changes a field another manager owns (unless forced).
 */
import { badRequest, StatusError } from '../../api/status.js';
import { groupVersion, type ManagedFieldsEntry, type ResourceDefinition, type SvcObject } from '../../api/types.js';
import { timestamp } from '../object-rules.js';
import type { RequestScope } from '../scope.js';
import { type FieldPath, FieldSet, formatPath } from './field-set.js';
import { compareFields, type FieldEntry, fieldSetOf, type IgnoreRule, objectFields } from './object-fields.js';

export type Ownership =
  | { operation: 'Update'; manager: string; subresource: string }
  | { operation: 'Apply'; manager: string; subresource: string; force: boolean; applied: FieldSet };

/** One decoded managedFields entry. */
export interface ManagerEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource: string;
  fields: FieldSet;
}

export function serverSideApplyEnabled(s: RequestScope): boolean {
  return s.services.config.featureGates['ServerSideApply'] !== false;
}

const MAX_MANAGER_LENGTH = 128;

/** `fieldManager`, else the User-Agent up to its first `/` (`kubectl/v1.31 ...` -> `kubectl`), else `unknown`. */
export function managerName(s: RequestScope): string {
  const given = s.query.get('fieldManager');
  if (given !== null && given !== '') return checkManagerName(given);
  const ua = s.req.headers['user-agent'];
  const prefix = (typeof ua === 'string' ? ua : '').split('/')[0]!.trim();
  return prefix ? prefix.slice(0, MAX_MANAGER_LENGTH) : 'unknown';
}

export function checkManagerName(name: string): string {
  if (name.length > MAX_MANAGER_LENGTH) {
    throw badRequest(`fieldManager: Too long: may not be longer than ${MAX_MANAGER_LENGTH} characters`);
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) throw badRequest('fieldManager: Invalid value: must only contain printable characters');
  return name;
}

/** The Update ownership of a write by this request's manager. */
export function updateOwnership(s: RequestScope, subresource = ''): Ownership {
  return { operation: 'Update', manager: managerName(s), subresource };
}

/**
 * Fields ownership never tracks: type meta and server-set metadata; `status` on the main resource
 * of a kind with a status subresource, and everything but `status` on that subresource.
 */
export function ignoreRule(def: ResourceDefinition, subresource: string): IgnoreRule {
  // A CertificateSigningRequest's `approval` writes only status (its conditions), as `status` does.
  const statusOnly = subresource === 'status' || subresource === 'approval';
  return (path: FieldPath) => {
    const top = path[0]!;
    if (statusOnly) return top !== 'f:status';
    if (path.length === 1) return top === 'f:apiVersion' || top === 'f:kind' || (def.hasStatus && top === 'f:status');
    return top === 'f:metadata' && SERVER_METADATA.has(path[1]!);
  };
}

const SERVER_METADATA = new Set(
  ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink', 'managedFields', 'clusterName'].map((n) => `f:${n}`),
);

/** Decodes a managedFields list; undefined when it is not a list of well-formed entries. */
export function decodeManagedFields(list: unknown): ManagerEntry[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out: ManagerEntry[] = [];
  for (const raw of list) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
    const e = raw as ManagedFieldsEntry;
    if (e.operation !== undefined && e.operation !== 'Apply' && e.operation !== 'Update') return undefined;
    if (e.fieldsType !== undefined && e.fieldsType !== 'FieldsV1') return undefined;
    let fields: FieldSet;
    try {
      fields = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch {
      return undefined;
    }
    out.push({
      manager: typeof e.manager === 'string' ? e.manager : '',
      operation: e.operation ?? 'Update',
      apiVersion: typeof e.apiVersion === 'string' ? e.apiVersion : '',
      ...(typeof e.time === 'string' ? { time: e.time } : {}),
      subresource: typeof e.subresource === 'string' ? e.subresource : '',
      fields,
    });
  }
  return out;
}

/** Established order: Apply before Update, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(entries: ManagerEntry[]): ManagedFieldsEntry[] {
  const sorted = entries
    .filter((e) => !e.fields.isEmpty())
    .sort(
      (p, q) =>
        p.operation.localeCompare(q.operation) ||
        (p.time ?? '').localeCompare(q.time ?? '') ||
        cmp(p.manager, q.manager) ||
        cmp(p.apiVersion, q.apiVersion) ||
        cmp(p.subresource, q.subresource),
    );
  return sorted.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time ? { time: e.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: e.fields.toFieldsV1(),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const sameManager = (e: ManagerEntry, o: Ownership): boolean => e.manager === o.manager && e.operation === o.operation && e.subresource === o.subresource;

/**
 * The managers to start from. An update may set managedFields itself (a non-empty list replaces
 * the stored one, so `[{}]` resets it); an empty or malformed list, an apply and a subresource
 * write start from the stored entries, so clients unaware of the field never wipe it.
 */
function baseline(live: SvcObject | undefined, next: SvcObject, own: Ownership): ManagerEntry[] {
  const provided = next.metadata.managedFields;
  if (own.operation === 'Update' && !own.subresource && Array.isArray(provided) && provided.length > 0) {
    const decoded = decodeManagedFields(provided);
    if (decoded) return decoded;
  }
  return decodeManagedFields(live?.metadata.managedFields) ?? [];
}

/** How many conflicts a 409 lists (message and causes); the count always covers them all. */
export const MAX_LISTED_CONFLICTS = 100;

/** A 409 naming each conflicting field and its manager (the first MAX_LISTED_CONFLICTS of them). */
function conflictError(def: ResourceDefinition, name: string, conflicts: { manager: string; path: FieldPath }[]): StatusError {
  const listed = conflicts.slice(0, MAX_LISTED_CONFLICTS);
  const causes = listed.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${JSON.stringify(c.manager)}`, field: formatPath(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${JSON.stringify(conflicts[0]!.manager)}: ${formatPath(conflicts[0]!.path)}`;
  } else {
    // Linear in the conflicts: one list per manager, appended in place.
    const byManager = new Map<string, string[]>();
    for (const c of listed) {
      let paths = byManager.get(c.manager);
      if (!paths) byManager.set(c.manager, (paths = []));
      paths.push(formatPath(c.path));
    }
    const parts = [...byManager.keys()].sort().flatMap((m) => [`conflicts with ${JSON.stringify(m)}:`, ...byManager.get(m)!.map((p) => `- ${p}`)]);
    const more = conflicts.length > listed.length ? `\n(and ${conflicts.length - listed.length} more)` : '';
    message = `Apply failed with ${conflicts.length} conflicts: ${parts.join('\n')}${more}`;
  }
  const details = { name, kind: def.plural, ...(def.group ? { group: def.group } : {}), causes };
  // The established text: clients (kubectl) add their own advice on force, dropping or sharing.
  return new StatusError(409, 'Conflict', message, details);
}

/** The paths `objectFields` with `ignore` would have given (it prunes at the first two levels). */
function withoutIgnored(all: Map<string, FieldEntry>, ignore: IgnoreRule): Map<string, FieldEntry> {
  const out = new Map<string, FieldEntry>();
  for (const [k, e] of all) if (!ignore(e.path.slice(0, 1)) && !(e.path.length > 1 && ignore(e.path.slice(0, 2)))) out.set(k, e);
  return out;
}

/**
 * Sets `next.metadata.managedFields` for a write that turns `live` (undefined on create) into
 * `next`, as done by `own`. Throws the 409 of an apply that changes fields others own.
 */
export function trackOwnership(def: ResourceDefinition, live: SvcObject | undefined, next: SvcObject, own: Ownership, now: number): void {
  for (const _step of ownershipSteps(def, live, next, own, now));
}

/**
 * trackOwnership in steps, each one walk over the object or the field sets: recordOwnership gives
 * other requests a turn between them when the object is large.
 */
function* ownershipSteps(def: ResourceDefinition, live: SvcObject | undefined, next: SvcObject, own: Ownership, now: number): Generator<void, void, void> {
  const entries = baseline(live, next, own);
  const ignore = ignoreRule(def, own.subresource);
  const liveFields = objectFields(live ?? {}, def.schema, ignore);
  yield;
  const nextAll = objectFields(next, def.schema);
  yield;
  const { changed, removed } = compareFields(liveFields, withoutIgnored(nextAll, ignore));
  yield;
  const stamp = timestamp(now);
  const apiVersion = groupVersion(def);
  const mine = entries.find((e) => sameManager(e, own));
  const others = entries.filter((e) => e !== mine);

  if (own.operation === 'Apply' && !own.force) {
    const conflicts = others.flatMap((e) => e.fields.intersection(changed).paths().map((path) => ({ manager: e.manager, path })));
    if (conflicts.length) throw conflictError(def, next.metadata.name ?? '', conflicts);
  }
  for (const e of others) e.fields = e.fields.difference(changed).difference(removed);
  yield;

  const objectChanged = !changed.isEmpty() || !removed.isEmpty();
  let fields: FieldSet;
  let touched: boolean;
  // Claims follow the stored object: what pruning, defaulting, admission or a subresource rule took
  // out of it (or never let in) is owned by no one.
  const present = fieldSetOf(nextAll);
  yield;
  for (const e of others) e.fields = e.fields.presentIn(present);
  if (own.operation === 'Apply') {
    fields = own.applied.presentIn(present);
    touched = objectChanged || !mine || !mine.fields.equals(fields);
  } else {
    fields = (mine?.fields.difference(removed) ?? new FieldSet()).union(changed).presentIn(present);
    touched = !changed.isEmpty();
  }
  const entry: ManagerEntry = mine ?? { manager: own.manager, operation: own.operation, apiVersion, subresource: own.subresource, fields };
  entry.fields = fields;
  if (touched) {
    entry.time = stamp;
    entry.apiVersion = apiVersion;
  }
  yield;
  const encoded = encodeManagedFields([...others, entry]);
  if (encoded.length) next.metadata.managedFields = encoded;
  else delete next.metadata.managedFields;
}

/**
 * The ownership step of every tracked write: records ownership when the ServerSideApply gate is on;
 * with it off the server keeps no managedFields at all. `pause`, when given, runs between the
 * steps (to let other requests through while a large object's fields are walked).
 */
export async function recordOwnership(s: RequestScope, live: SvcObject | undefined, next: SvcObject, own: Ownership, pause?: () => Promise<void>): Promise<void> {
  if (!serverSideApplyEnabled(s)) {
    delete next.metadata.managedFields;
    return;
  }
  for (const _step of ownershipSteps(s.def, live, next, own, s.services.now())) if (pause) await pause();
}
