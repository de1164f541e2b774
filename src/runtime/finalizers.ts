/**
 * A controller's finalizer, with its cleanup: while the object lives, the finalizer is on it (so a
 * delete waits for the controller); once the object is being deleted, `cleanup` runs and the
 * finalizer comes off, which lets the deletion finish. Every change is a JSON patch that first
 * tests the object's uid and finalizer list, so it never acts on a recreated object or on a list
 * someone changed meanwhile (that is a conflict: the key is simply reconciled again).
 *
 *   const step = await finalize(client, resources.configmaps, object, 'backup.example.com/cleanup', async () => {
 *     await deleteBackupOf(object);
 *   });
 *   if (step.outcome === 'finalized') return done();
 */
import type { SvcObject } from '../api/types.js';
import { isNotFound } from '../client/api-errors.js';
import type { ApiClient, ResourceRef } from '../client/types.js';

export function hasFinalizer(obj: SvcObject, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

function guardedPatch(obj: SvcObject, finalizers: readonly string[]): unknown[] {
  const current = obj.metadata.finalizers;
  return [
    { op: 'test', path: '/metadata/uid', value: obj.metadata.uid },
    current === undefined ? { op: 'add', path: '/metadata/finalizers', value: finalizers } : { op: 'test', path: '/metadata/finalizers', value: current },
    ...(current === undefined ? [] : [{ op: 'replace', path: '/metadata/finalizers', value: finalizers }]),
  ];
}

/** Adds `finalizer` (no write when it is there); the object as stored after. */
export async function addFinalizer<T extends SvcObject>(client: ApiClient, ref: ResourceRef, obj: T, finalizer: string): Promise<T> {
  if (hasFinalizer(obj, finalizer)) return obj;
  const next = [...(obj.metadata.finalizers ?? []), finalizer];
  return client.patch<T>(ref, obj.metadata.namespace ?? '', obj.metadata.name ?? '', 'json', guardedPatch(obj, next));
}

/** Removes `finalizer` (no write when it is not there); the object as stored after, or undefined when that let it go. */
export async function removeFinalizer<T extends SvcObject>(client: ApiClient, ref: ResourceRef, obj: T, finalizer: string): Promise<T | undefined> {
  if (!hasFinalizer(obj, finalizer)) return obj;
  const next = (obj.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  try {
    return await client.patch<T>(ref, obj.metadata.namespace ?? '', obj.metadata.name ?? '', 'json', guardedPatch(obj, next));
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

/** What `finalize` did: the object is live and carries the finalizer, or its cleanup ran and the finalizer is off. */
export type FinalizeStep<T extends SvcObject> = { outcome: 'live'; object: T } | { outcome: 'finalized' };

/**
 * The finalizer protocol in one call: a live object gets `finalizer`; an object being deleted that
 * carries it has `cleanup` run, then loses it. A cleanup that throws leaves the finalizer (the
 * reconcile fails and is retried, the deletion waits).
 */
export async function finalize<T extends SvcObject>(client: ApiClient, ref: ResourceRef, obj: T, finalizer: string, cleanup: (obj: T) => Promise<void>): Promise<FinalizeStep<T>> {
  if (!obj.metadata.deletionTimestamp) return { outcome: 'live', object: await addFinalizer(client, ref, obj, finalizer) };
  if (hasFinalizer(obj, finalizer)) {
    await cleanup(obj);
    await removeFinalizer(client, ref, obj, finalizer);
  }
  return { outcome: 'finalized' };
}
