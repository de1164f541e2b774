/**
 * CREATE, UPDATE (PUT) and the guaranteed-update loop PATCH and the subresources share.
 *
 * Order for every write, as established: decode and defaults -> type/namespace checks -> mutating
 * admission -> server metadata (and the defaults again, for what admission added) -> validation ->
 * validating admission -> storage (skipped by dryRun=All). Mutating admission sees a defaulted
 * object, as the established server's (which defaults at decode): LimitRanger must see the request
 * a lone limit implies, not add its own default request beside it.
 */
import { admissionFieldsOf } from './admission-request.js';
import { badRequest, conflict, notFound, StatusError } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { cloneJson, jsonTextDepth } from '../../api/json-walk.js';
import { ConflictError } from '../../storage/types.js';
import { checkWrittenObject, LARGE_OBJECT_BYTES, objectNestingDepth, requestTurn } from '../input-limits.js';
import { readRequestValue } from '../http.js';
import { objectMediaTypes, writeObject } from '../representation.js';
import { reportUnknownFields } from '../field-validation.js';
import {
  asObject,
  checkTypeMeta,
  generatedName,
  prepareForCreate,
  prepareForUpdate,
  reconcileNamespace,
  validateOrThrowPausing,
} from '../object-rules.js';
import type { ObjectView, ResourceStore } from '../resource-store.js';
import { isDryRun, type RequestScope } from '../scope.js';
import { type Ownership, recordOwnership, updateOwnership } from '../apply/managed-fields.js';

export async function readObjectBody(s: RequestScope, expectedKind?: string): Promise<SvcObject> {
  const obj = asObject(await readRequestValue(s.req, objectMediaTypes(s.def), s.services.config.inputLimits));
  checkTypeMeta(s.def, obj, expectedKind);
  return obj;
}

export async function handleCreate(s: RequestScope): Promise<void> {
  if (s.info.name) throw badRequest(`POST is not allowed on a single ${s.def.singular}; use PUT to replace it`);
  const dryRun = isDryRun(s.query);
  const obj = await readObjectBody(s);
  const view = await createObject(s, obj, dryRun, updateOwnership(s));
  writeObject(s, 201, view);
}

/** Shared by POST and by apply/update paths that create an absent object; `ownership` names who owns its fields. */
export async function createObject(s: RequestScope, obj: SvcObject, dryRun: boolean, ownership: Ownership = updateOwnership(s)): Promise<ObjectView> {
  reconcileNamespace(s.def, obj, s.info.namespace);
  const { services, def, store } = s;
  if (services.customResources?.isTerminating(def)) {
    // The established answer (a 405 naming the verb), for POST and for an apply or PUT that would create.
    throw new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', { ...(def.group ? { group: def.group } : {}), kind: def.plural });
  }
  const attrs = { operation: 'CREATE' as const, def, namespace: s.info.namespace, name: obj.metadata.name ?? '', subresource: '', object: obj, dryRun, ...admissionFieldsOf(s) };
  const generated = !obj.metadata.name && !!obj.metadata.generateName;
  // A client's uid is replaced on create anyway; none yet, so defaults that derive from the uid
  // (a Job's selector) wait for the one the server gives it.
  delete obj.metadata.uid;
  def.defaults?.(obj);
  await services.admission.mutate(attrs);
  prepareForCreate(def, obj, services.now());
  const large = checkWrittenObject(obj, services.config.inputLimits) > LARGE_OBJECT_BYTES;
  const pause = large ? () => requestTurn(s.res) : undefined;
  await recordOwnership(s, undefined, obj, ownership, pause);
  await pause?.();
  reportUnknownFields(s, obj);
  await validateOrThrowPausing(def, obj, undefined, pause);
  attrs.name = obj.metadata.name!;
  const finish = await services.writeHooks?.(def)?.beginCreate?.(obj, dryRun, attrs.user);
  let stored = false;
  try {
    await services.admission.validate(attrs);
    for (let attempt = 0; ; attempt++) {
      try {
        const view = await store.create(obj, dryRun);
        stored = !dryRun;
        return view;
      } catch (err) {
        // A generated name that happens to exist: pick another (the client never chose it).
        if (generated && attempt < 5 && err instanceof StatusError && err.reason === 'AlreadyExists') {
          obj.metadata.name = generatedName(obj.metadata.generateName!);
          continue;
        }
        throw err;
      }
    }
  } finally {
    // What the create took is kept only when the object was stored.
    finish?.(stored);
  }
}

export interface UpdateOutcome {
  view: ObjectView;
  /** True when the write removed the object (last finalizer gone while deleting). */
  deleted: boolean;
}

/**
 * Reads the current object, lets `mutate` produce the next one, and writes it with a precondition on
 * the version read, retrying on a concurrent change unless the caller pinned a resourceVersion.
 * `mutate` gets the current object frozen, and `draft()` for a private copy it may change (made
 * only when asked for: most writes build the next object from the request instead); `pause` is set
 * when the object is large (or the request brought a large body, `opts.largeInput`), for mutations
 * that walk it more than once to run between walks. A pause gives other requests a turn, and ends a
 * request whose deadline passed meanwhile before it stores anything (./input-limits.ts requestTurn).
 */
export async function guaranteedUpdate(
  s: RequestScope,
  mutate: (current: SvcObject, draft: () => SvcObject, pause: (() => Promise<void>) | undefined) => Promise<SvcObject> | SvcObject,
  opts: { dryRun: boolean; subresource: string; ownership?: Ownership; revalidate?: boolean; largeInput?: boolean; admitted?: boolean },
): Promise<UpdateOutcome> {
  const { store, def, info, services } = s;
  const turn = () => requestTurn(s.res);
  for (let attempt = 0; attempt < 50; attempt++) {
    const current = await store.getForUpdate(info.namespace, info.name);
    if (!current) throw notFound({ group: def.group, resource: def.plural, name: info.name });
    const large = opts.largeInput === true || (current.stored?.length ?? 0) > LARGE_OBJECT_BYTES;
    const pause = large ? turn : undefined;
    await pause?.();
    // An object stored before the nesting limit existed may be deeper than it: such an object can
    // still be deleted, or changed by a write that leaves it no deeper, without its ownership walked.
    const limits = services.config.inputLimits;
    const legacyDepth = storedDepthOver(current, limits.maxNestingDepth);
    const legacy = legacyDepth > limits.maxNestingDepth;
    const next = await mutate(current.object, () => store.draft(current), pause);
    await pause?.();
    const pinned = next.metadata.resourceVersion;
    if (pinned !== undefined && pinned !== '' && pinned !== current.object.metadata.resourceVersion) {
      throw conflict({ group: def.group, resource: def.plural, name: info.name }, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const attrs = { operation: 'UPDATE' as const, def, namespace: info.namespace, name: info.name, subresource: opts.subresource, object: next, oldObject: current.object, dryRun: opts.dryRun, ...admissionFieldsOf(s) };
    // A deletion's own write (deletionTimestamp, finalizers) was admitted as the DELETE it is.
    if (opts.admitted !== true) await services.admission.mutate(attrs);
    const hooks = services.writeHooks?.(def);
    hooks?.prepareUpdate?.(next, current.object, opts.subresource);
    // Writes that take the full object record who changed what; scale, binding and deletion do not.
    checkWrittenObject(next, legacy ? { ...limits, maxNestingDepth: legacyDepth } : limits);
    if (opts.ownership && !legacy) {
      await recordOwnership(s, current.object, next, opts.ownership, pause);
      await pause?.();
    }
    reportUnknownFields(s, next, current.object);
    if (opts.revalidate !== false) await validateOrThrowPausing(def, next, current.object, pause);
    const m = next.metadata;
    const removing = !!m.deletionTimestamp && (m.finalizers ?? []).length === 0 && !m.deletionGracePeriodSeconds && !isNamespaceAwaitingFinalize(def, next);
    const finish = removing ? undefined : await hooks?.beginUpdate?.(next, current.object, opts.dryRun, attrs.user);
    let stored = false;
    try {
      if (opts.admitted !== true) await services.admission.validate(attrs);
      await pause?.();
      if (removing) {
        await store.remove(current, opts.dryRun);
        if (!opts.dryRun) hooks?.afterDelete?.(current.object);
        return { view: current, deleted: true };
      }
      const { value, unchanged } = store.encode(next, current);
      if (unchanged) return { view: current, deleted: false };
      const view = await store.replace(next, value, current.revision, opts.dryRun);
      stored = !opts.dryRun;
      return { view, deleted: false };
    } catch (err) {
      // Retry on a concurrent change: the next attempt's pinned-version check above still turns a
      // version the client pinned into a 409, while patches and applies (which inherit it) re-run.
      if (err instanceof ConflictError) continue;
      if (err instanceof StatusError) throw err;
      throw store.mapStorageError(err, info.name);
    } finally {
      finish?.(stored);
    }
  }
  throw conflict({ group: def.group, resource: def.plural, name: info.name }, 'too many concurrent changes; retry');
}

/**
 * The stored object's nesting depth (managed fields left out) when it is over `cap`, else a number
 * no more than `cap`. Its stored bytes are scanned first: almost every object is far shallower.
 */
function storedDepthOver(current: ObjectView, cap: number): number {
  if (current.stored && jsonTextDepth(current.stored, cap) <= cap) return 0;
  const depth = objectNestingDepth(current.object, cap);
  return depth > cap ? objectNestingDepth(current.object, Number.MAX_SAFE_INTEGER) : depth;
}

function isNamespaceAwaitingFinalize(def: ResourceDefinition, obj: SvcObject): boolean {
  if (def.group !== '' || def.plural !== 'namespaces') return false;
  return ((obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? []).length > 0;
}

export async function handleUpdate(s: RequestScope): Promise<void> {
  const dryRun = isDryRun(s.query);
  const body = await readObjectBody(s);
  if (body.metadata.name !== undefined && body.metadata.name !== s.info.name) {
    throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${s.info.name})`);
  }
  body.metadata.name = s.info.name;
  reconcileNamespace(s.def, body, s.info.namespace);
  const out = await guaranteedUpdate(
    s,
    (current) => {
      const next = cloneJson(body);
      prepareForUpdate(s.def, next, current);
      keepNamespaceFinalizers(s.def, next, current);
      return next;
    },
    { dryRun, subresource: '', ownership: updateOwnership(s) },
  );
  writeObject(s, 200, out.view);
}

/** A namespace's spec.finalizers only change through its `finalize` subresource. */
export function keepNamespaceFinalizers(def: ResourceDefinition, next: SvcObject, current: SvcObject): void {
  if (def.group !== '' || def.plural !== 'namespaces') return;
  const spec = (next.spec ?? {}) as { finalizers?: string[] };
  const old = (current.spec ?? {}) as { finalizers?: string[] };
  if (old.finalizers) spec.finalizers = [...old.finalizers];
  else delete spec.finalizers;
  next.spec = spec;
}

export type { ResourceStore };
