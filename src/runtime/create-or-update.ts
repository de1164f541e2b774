/**
 * Create-or-update with the conflict loop done once: reads the object, lets `mutate` shape it (a
 * fresh one when absent), writes it, and on a 409 (someone wrote in between, or created it first)
 * reads again and repeats, up to `attempts` times. `mutate` must be idempotent: it may run more
 * than once. No write when `mutate` leaves the object as it was.
 *
 *   const { object, result } = await createOrUpdate(client, resources.configmaps, 'default', 'backup', (cm) => {
 *     cm.data = { ...source.data };
 *   });
 */
import { cloneJson } from '../api/json-walk.js';
import type { SvcObject } from '../api/types.js';
import { isAlreadyExists, isConflict, isNotFound } from '../client/api-errors.js';
import type { ApiClient, ResourceRef, WriteOptions } from '../client/types.js';
import { apiVersionOf } from './resource-refs.js';

export type CreateOrUpdateResult = 'created' | 'updated' | 'unchanged';

export async function createOrUpdate<T extends SvcObject>(
  client: ApiClient,
  ref: ResourceRef,
  namespace: string,
  name: string,
  mutate: (obj: T) => void | Promise<void>,
  opts: WriteOptions & { attempts?: number } = {},
): Promise<{ object: T; result: CreateOrUpdateResult }> {
  const attempts = opts.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    let current: T | undefined;
    try {
      current = await client.get<T>(ref, namespace, name);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    const next = (current ? cloneJson(current) : { apiVersion: apiVersionOf(ref), kind: ref.kind, metadata: { name, ...(ref.namespaced ? { namespace } : {}) } }) as T;
    await mutate(next);
    try {
      if (!current) return { object: await client.create<T>(ref, namespace, next, opts), result: 'created' };
      if (JSON.stringify(next) === JSON.stringify(current)) return { object: current, result: 'unchanged' };
      return { object: await client.update<T>(ref, namespace, next, opts), result: 'updated' };
    } catch (e) {
      if (attempt >= attempts || !(isConflict(e) || isAlreadyExists(e))) throw e;
    }
  }
}
