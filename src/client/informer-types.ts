/**
 * Informers: a local, indexed, eventually consistent copy of one resource (per selector), kept by
 * a list + watch, shared by every controller that asks for the same (resource, selector).
 *
 * Guarantees:
 * - `events$` emits, per key, the changes in the order the server made them; after a re-list
 *   (410 Gone) it emits only the differences, so a subscriber never sees a gap nor a stale object.
 * - `SYNCED` is emitted once, after the first complete list has been delivered; `hasSynced()` is
 *   true from then on.
 * - The cache is readable synchronously and never calls the API server; objects read from it are
 *   frozen (clone before changing).
 */
import type { Observable } from 'rxjs';
import type { SvcObject } from '../api/types.js';
import type { ResourceRef } from './types.js';

export type InformerEvent<T extends SvcObject = SvcObject> =
  | { type: 'ADDED'; object: T }
  | { type: 'MODIFIED'; object: T; oldObject: T }
  | { type: 'DELETED'; object: T }
  | { type: 'SYNCED' };

export { objectKey } from './object-keys.js';

/** Computes index values of an object (e.g. its namespace, its owners' uids). */
export type IndexFunction<T extends SvcObject = SvcObject> = (obj: T) => string[];

export interface IndexedCache<T extends SvcObject = SvcObject> {
  get(key: string): T | undefined;
  list(namespace?: string): T[];
  /** Objects whose index `name` yields `value`. Built-in indexes: `namespace`, `owner` (owner uid). */
  byIndex(name: string, value: string): T[];
  addIndex(name: string, fn: IndexFunction<T>): void;
  readonly size: number;
}

export interface InformerSelector {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface SharedInformer<T extends SvcObject = SvcObject> {
  readonly ref: ResourceRef;
  readonly selector: InformerSelector;
  readonly events$: Observable<InformerEvent<T>>;
  readonly cache: IndexedCache<T>;
  hasSynced(): boolean;
}

export interface InformerFactory {
  /** The one informer for this (resource, selector); started on first subscription. */
  informer<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, selector?: InformerSelector): SharedInformer<T>;
  /** Stops every informer (their watches close). */
  stop(): void;
}
