/**
 * Controller references: the one ownerReference with `controller: true` that says which object
 * manages another, and the established claim rules for a controller with a label selector:
 *
 * - an object it controls that still matches the selector is kept;
 * - an object it controls that no longer matches is released (its controller reference removed);
 * - an orphan (no controller reference) that matches is adopted, unless the object or the owner
 *   is being deleted;
 * - an object controlled by someone else is never touched.
 *
 * Adoption and release are JSON patches that first test the object's uid, so a recreated object
 * of the same name is never changed by mistake. Public (svc/runtime): the built-in controllers
 * claim with these, and so can yours.
 */
import type { OwnerReference, SvcObject } from '../api/types.js';
import type { LabelSelector } from '../api/labels.js';
import { isConflict, isInvalid, isNotFound } from '../client/api-errors.js';
import type { ApiClient, ResourceRef } from '../client/types.js';
import { apiVersionOf } from './resource-refs.js';

export function controllerRefOf(obj: SvcObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** The controller reference `owner` (of resource `ref`) puts on what it makes. */
export function controllerRefTo(owner: SvcObject, ref: ResourceRef): OwnerReference {
  return {
    apiVersion: apiVersionOf(ref),
    kind: ref.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export interface Claimed<T extends SvcObject> {
  /** Controlled by the owner and matching, including the ones just adopted. */
  owned: T[];
  adopted: number;
  released: number;
}

/**
 * Applies the claim rules to `candidates` (objects of the owner's namespace). Adoption and
 * release failures other than "the object is gone or changed" are thrown (the key is retried).
 */
export async function claim<T extends SvcObject>(
  client: ApiClient,
  objectsRef: ResourceRef,
  owner: SvcObject,
  ownerRef: ResourceRef,
  selector: LabelSelector,
  candidates: readonly T[],
): Promise<Claimed<T>> {
  const out: Claimed<T> = { owned: [], adopted: 0, released: 0 };
  const uid = owner.metadata.uid;
  const ns = owner.metadata.namespace ?? '';
  for (const obj of candidates) {
    const ref = controllerRefOf(obj);
    const matches = selector.matches(obj.metadata.labels);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches) out.owned.push(obj);
      else if (!obj.metadata.deletionTimestamp && (await patchOwners(client, objectsRef, ns, obj, (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid)))) out.released++;
      continue;
    }
    if (!matches || obj.metadata.deletionTimestamp || owner.metadata.deletionTimestamp) continue;
    const next = [...(obj.metadata.ownerReferences ?? []), controllerRefTo(owner, ownerRef)];
    const patched = await patchOwners(client, objectsRef, ns, obj, next);
    if (patched) {
      out.adopted++;
      out.owned.push(patched as T);
    }
  }
  return out;
}

/** Sets `metadata.ownerReferences` if the object is still the one read; undefined when it is gone or replaced. */
async function patchOwners(client: ApiClient, ref: ResourceRef, ns: string, obj: SvcObject, owners: readonly OwnerReference[]): Promise<SvcObject | undefined> {
  const patch = [
    { op: 'test', path: '/metadata/uid', value: obj.metadata.uid },
    owners.length
      ? { op: obj.metadata.ownerReferences ? 'replace' : 'add', path: '/metadata/ownerReferences', value: owners }
      : { op: 'remove', path: '/metadata/ownerReferences' },
  ];
  try {
    return await client.patch(ref, ns, obj.metadata.name ?? '', 'json', patch);
  } catch (e) {
    // Gone, or a different object now (the uid test failed): nothing to claim.
    if (isNotFound(e) || isConflict(e) || isInvalid(e)) return undefined;
    throw e;
  }
}
