/**
 * Shares identical `managedFields[].fieldsV1` trees between stored objects. They are nearly half
 * of a typical pod's JSON, and objects of one kind written by the same managers have the same
 * trees (every simulated pod's status writer owns the same fields), so a cluster of 150,000 pods
 * holds a few distinct trees instead of 150,000 copies. Trees are deep-frozen when shared, like
 * the objects that hold them; an object already frozen is left as it is.
 *
 * The table is bounded (least recently used out): a tree evicted stays valid where it is used,
 * only new objects stop sharing it.
 */
import { deepFreeze } from '../api/json-walk.js';
import type { SvcObject } from '../api/types.js';

const MAX_TREES = 4096;
/** Trees larger than this are rare (big objects) and not worth a key this long. */
const MAX_KEY_CHARS = 16_384;

const trees = new Map<string, object>();

/** Replaces each `fieldsV1` of `obj` (not frozen yet) with the shared copy of an equal tree. */
export function internManagedFields(obj: SvcObject): void {
  const entries = obj.metadata?.managedFields;
  if (!Array.isArray(entries) || Object.isFrozen(entries)) return;
  for (const entry of entries) {
    const tree = (entry as { fieldsV1?: unknown }).fieldsV1;
    if (tree === null || typeof tree !== 'object' || Object.isFrozen(entry)) continue;
    let key: string;
    try {
      key = JSON.stringify(tree);
    } catch {
      continue; // too deep to stringify here: keep its own tree
    }
    if (key.length > MAX_KEY_CHARS) continue;
    const shared = trees.get(key);
    if (shared) {
      trees.delete(key);
      trees.set(key, shared);
      (entry as { fieldsV1?: unknown }).fieldsV1 = shared;
    } else {
      trees.set(key, deepFreeze(tree));
      if (trees.size > MAX_TREES) trees.delete(trees.keys().next().value!);
    }
  }
}

/** Distinct trees held (for tests and memory reports). */
export function internedTreeCount(): number {
  return trees.size;
}
