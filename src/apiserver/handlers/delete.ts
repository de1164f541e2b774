/**
 * DELETE and DELETECOLLECTION: two-phase deletion. While finalizers remain (or a pod on a node is
 * given a grace period) the object only gets `deletionTimestamp`; it leaves storage when the last
 * finalizer is removed. A namespace becomes `Terminating` and stays until its finalizers are empty.
 */
import { admissionFieldsOf } from './admission-request.js';
import { badRequest, conflict, notFound, successStatus } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { readOptionalRequestValue, writeJson } from '../http.js';
import { OBJECT_MEDIA_TYPES } from '../../codec/body.js';
import { PROTOBUF_MEDIA_TYPE } from '../../codec/protobuf/index.js';
import { writeObject, writeValue } from '../representation.js';
import { timestamp } from '../object-rules.js';
import type { ObjectView } from '../resource-store.js';
import { checkDryRunGate, intParam, isDryRun, type RequestScope } from '../scope.js';
import { filterFromQuery } from '../selectors.js';
import { guaranteedUpdate } from './write.js';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

const POLICIES = ['Orphan', 'Background', 'Foreground'];

/** The DeleteOptions fields a client set (the `options` admission webhooks get; dryRun is added there). */
function deleteOptionsFields(opts: DeleteOptions): Record<string, unknown> {
  return {
    ...(opts.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: opts.gracePeriodSeconds } : {}),
    ...(opts.propagationPolicy ? { propagationPolicy: opts.propagationPolicy } : {}),
    ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
  };
}

/** DeleteOptions from the optional JSON body and the query (the query wins where both are set). */
export async function readDeleteOptions(s: RequestScope): Promise<DeleteOptions> {
  // Clients that speak Protobuf send their DeleteOptions in it too (helm does).
  const parsed = await readOptionalRequestValue(s.req, [...OBJECT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE], s.services.config.inputLimits);
  let body: Record<string, unknown> = {};
  if (parsed !== undefined) {
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('DeleteOptions must be a JSON object');
    body = parsed as Record<string, unknown>;
    if (body['kind'] !== undefined && body['kind'] !== 'DeleteOptions') {
      throw badRequest(`the request body must be DeleteOptions, not ${String(body['kind'])}`);
    }
  }
  const opts = deleteOptionsFrom(body, s.query, isDryRun(s.query));
  checkDryRunGate(s.services.config.featureGates, opts.dryRun);
  return opts;
}

/**
 * The options a DeleteOptions object holds: a DELETE's body (with its query, which wins where both
 * are set) or an Eviction's `deleteOptions` (`field` names it in messages). One parser for both, so
 * both refuse the same values: a grace period must be a safe integer (the established int64
 * refuses a number past its range at decoding, 400).
 */
export function deleteOptionsFrom(body: Record<string, unknown>, query: URLSearchParams, dryRun: boolean, field = ''): DeleteOptions {
  const opts: DeleteOptions = { dryRun };
  if (Array.isArray(body['dryRun']) && body['dryRun'].length) {
    if (body['dryRun'].some((v) => v !== 'All')) throw badRequest(`${field}dryRun: Unsupported value: supported values: "All"`);
    opts.dryRun = true;
  }
  const grace = intParam(query, 'gracePeriodSeconds') ?? body['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isSafeInteger(grace)) {
      throw badRequest(`${field}gracePeriodSeconds: invalid value ${JSON.stringify(grace) ?? String(grace)}: must be an integer between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}`);
    }
    opts.gracePeriodSeconds = Math.max(0, grace);
  }
  let policy = query.get('propagationPolicy') ?? (body['propagationPolicy'] as string | undefined);
  const orphan = query.get('orphanDependents') ?? body['orphanDependents'];
  if (policy === undefined && orphan !== undefined && orphan !== null) {
    policy = orphan === true || orphan === 'true' ? 'Orphan' : 'Background';
  } else if (policy !== undefined && orphan !== undefined && orphan !== null) {
    throw badRequest(`${field}orphanDependents and ${field}propagationPolicy cannot both be set`);
  }
  if (policy !== undefined && policy !== null) {
    if (!POLICIES.includes(policy)) throw badRequest(`${field}propagationPolicy: Unsupported value: "${String(policy)}": supported values: ${POLICIES.map((p) => `"${p}"`).join(', ')}`);
    opts.propagationPolicy = policy as DeleteOptions['propagationPolicy'];
  }
  const pre = body['preconditions'];
  if (pre !== undefined && pre !== null) {
    if (typeof pre !== 'object' || Array.isArray(pre)) throw badRequest(`${field}preconditions must be an object`);
    opts.preconditions = pre as DeleteOptions['preconditions'];
  }
  return opts;
}

/**
 * The latest deletion time written (the last second RFC 3339 can spell): a grace period that
 * reaches past it (a client's 10^15 seconds) deletes then, rather than make a time that cannot be
 * written (a 500 once) or, as Go's duration arithmetic does, wrap around into the past.
 */
const LATEST_DELETION_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

function isNamespace(def: ResourceDefinition): boolean {
  return def.group === '' && def.plural === 'namespaces';
}

/** Seconds a pod bound to a node gets to stop; 0 means delete at once. */
function podGracePeriod(def: ResourceDefinition, obj: SvcObject, opts: DeleteOptions): number {
  if (def.group !== '' || def.plural !== 'pods') return 0;
  const spec = (obj.spec ?? {}) as { nodeName?: string; terminationGracePeriodSeconds?: number };
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  if (!spec.nodeName || phase === 'Succeeded' || phase === 'Failed') return 0;
  return opts.gracePeriodSeconds ?? spec.terminationGracePeriodSeconds ?? 30;
}

export type DeleteResult = { deleted: true; view: ObjectView } | { deleted: false; view: ObjectView };

/** Deletes one object (by the scope's namespace/name) under the two-phase rules. */
export async function deleteObject(s: RequestScope, opts: DeleteOptions): Promise<DeleteResult> {
  const { def, info, services } = s;
  const ref = { group: def.group, resource: def.plural, name: info.name };
  // As established: an absent object is a 404 before admission, which sees the object being
  // deleted (a moment old, from the cache) and runs both phases.
  const existing = await s.store.peek(info.namespace, info.name);
  if (!existing) throw notFound(ref);
  const attrs = {
    operation: 'DELETE' as const, def, namespace: info.namespace, name: info.name, subresource: '', oldObject: existing, dryRun: opts.dryRun,
    options: deleteOptionsFields(opts),
    ...admissionFieldsOf(s),
  };
  await services.admission.mutate(attrs);
  await services.admission.validate(attrs);
  const out = await guaranteedUpdate(
    s,
    (_frozen, draft) => {
      const current = draft();
      const m = current.metadata;
      if (opts.preconditions?.uid && opts.preconditions.uid !== m.uid) {
        throw conflict(ref, `Precondition failed: UID in precondition: ${opts.preconditions.uid}, UID in object meta: ${m.uid ?? ''}`);
      }
      if (opts.preconditions?.resourceVersion && opts.preconditions.resourceVersion !== m.resourceVersion) {
        throw conflict(ref, `Precondition failed: ResourceVersion in precondition: ${opts.preconditions.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion ?? ''}`);
      }
      const finalizers = [...(m.finalizers ?? [])];
      if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
      if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
      const now = services.now();
      if (isNamespace(def)) {
        if (!m.deletionTimestamp) {
          m.deletionTimestamp = timestamp(now);
          m.deletionGracePeriodSeconds = 0;
          current.status = { ...((current.status as object | undefined) ?? {}), phase: 'Terminating' };
          m.finalizers = finalizers;
        }
        return current;
      }
      if (m.deletionTimestamp) {
        // Already being deleted: a zero grace period finishes a graceful deletion (finalizers still hold).
        if (opts.gracePeriodSeconds === 0 && m.deletionGracePeriodSeconds) m.deletionGracePeriodSeconds = 0;
        if (finalizers.length !== (m.finalizers ?? []).length) m.finalizers = finalizers;
        return current;
      }
      const grace = podGracePeriod(def, current, opts);
      m.deletionTimestamp = timestamp(Math.min(now + grace * 1000, LATEST_DELETION_MS));
      m.deletionGracePeriodSeconds = grace;
      if (finalizers.length) m.finalizers = finalizers;
      return current;
    },
    { dryRun: opts.dryRun, subresource: '', admitted: true },
  );
  return out;
}

function deletedStatus(def: ResourceDefinition, view: ObjectView): object {
  const details: { name?: string; group?: string; kind: string; uid?: string } = { kind: def.plural };
  if (view.object.metadata.name !== undefined) details.name = view.object.metadata.name;
  if (def.group) details.group = def.group;
  if (view.object.metadata.uid !== undefined) details.uid = view.object.metadata.uid;
  return successStatus(details);
}

export async function handleDelete(s: RequestScope): Promise<void> {
  const opts = await readDeleteOptions(s);
  const out = await deleteObject(s, opts);
  if (out.deleted) writeValue(s, 200, deletedStatus(s.def, out.view) as Record<string, unknown>);
  else writeObject(s, 200, out.view);
}

export async function handleDeleteCollection(s: RequestScope): Promise<void> {
  const opts = await readDeleteOptions(s);
  const filter = filterFromQuery(s.def, s.query);
  const list = await s.store.list({
    namespace: s.info.namespace,
    resourceVersion: s.query.get('resourceVersion') ?? undefined,
    filter: filter.matches,
    filtered: filter.matches !== undefined,
  });
  const workers = Math.max(1, s.services.config.deleteCollectionWorkers);
  const queue = [...list.items];
  const removed: SvcObject[] = [];
  await Promise.all(
    Array.from({ length: Math.min(workers, queue.length) }, async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        const name = item.object.metadata.name!;
        const ns = item.object.metadata.namespace ?? '';
        try {
          const out = await deleteObject({ ...s, info: { ...s.info, name, namespace: ns } }, opts);
          removed.push(out.view.object);
        } catch (err) {
          // Already gone is fine for a collection delete; anything else fails the request.
          if ((err as { status?: { code?: number } }).status?.code !== 404) throw err;
        }
      }
    }),
  );
  removed.sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || a.metadata.name!.localeCompare(b.metadata.name!));
  const groupVersion = s.def.group ? `${s.def.group}/${s.def.version}` : s.def.version;
  writeJson(s.res, 200, { kind: s.def.listKind, apiVersion: groupVersion, metadata: { resourceVersion: String(list.revision) }, items: removed });
}
