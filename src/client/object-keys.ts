/**
 * Object keys: how caches and work queues name an object, `namespace/name` (or `name` when
 * cluster-scoped). One place builds them and parses them back, so nobody splits strings by hand.
 */
import type { SvcObject } from '../api/types.js';

/** A key as caches and work queues hold it: `namespace/name`, or `name` for a cluster-scoped object. */
export type ObjectKey = string;

/** The parts of a key: `namespace` is undefined for a cluster-scoped object. */
export interface KeyParts {
  namespace: string | undefined;
  name: string;
}

/** The key of an object. */
export function objectKey(obj: Pick<SvcObject, 'metadata'>): ObjectKey {
  return keyFor(obj.metadata.namespace, obj.metadata.name ?? '');
}

/** The key of `name` in `namespace` ('' or undefined: cluster-scoped). */
export function keyFor(namespace: string | undefined, name: string): ObjectKey {
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key back (`namespace/name` or `name`); a name holds no '/', so the first one splits. */
export function splitKey(key: ObjectKey): KeyParts {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
