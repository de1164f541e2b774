/**
 * The key-value storage contract both engines (embedded and etcd v3) implement.
 *
 * Guarantees every engine gives:
 * - One global revision, strictly increasing by one per committed write (create, update or delete).
 * - `modRevision` of a record is the revision of the write that produced it; `createRevision` that of
 *   the create that started its life (a re-create after delete starts a new life).
 * - A write is durable when its promise resolves: it survives a `kill -9` of the process.
 * - `list` at a revision returns exactly the keys live at that revision, in ascending key order.
 * - `watch` delivers every change under the prefix with revision > `afterRevision`, in revision order,
 *   each exactly once, without gaps; if that history was compacted the watch fails with
 *   `CompactedError` instead of skipping anything.
 */

export interface KVRecord {
  key: string;
  value: Uint8Array;
  createRevision: number;
  modRevision: number;
}

export interface ListOptions {
  /** Read as of this revision (0 or undefined: the current one). Older than compaction: CompactedError. */
  revision?: number;
  /** Only keys >= startKey (used for paging: pass the last key returned + '\0'). */
  startKey?: string;
  /** At most this many records (0 or undefined: all). */
  limit?: number;
}

export interface ListResult {
  items: KVRecord[];
  /** The revision the list was read at (the current one when none was asked for). */
  revision: number;
  /** Number of keys under the prefix after the last returned one, at that revision. */
  remaining: number;
}

export type KVEventType = 'put' | 'delete';

export interface KVEvent {
  type: KVEventType;
  key: string;
  /** New value for 'put'; the last value before deletion for 'delete'. */
  value: Uint8Array;
  /** Value before this write (undefined for a create). */
  prevValue?: Uint8Array;
  /** Revision of this change. */
  modRevision: number;
  /** Create revision of the record this event belongs to (0 for a delete in etcd terms is never used). */
  createRevision: number;
  /** The previous modRevision (0 for a create). */
  prevModRevision: number;
}

export interface WatchHandle {
  /** Stop the watch; no callback is called after it resolves. */
  close(): void;
}

export interface WatchCallbacks {
  /** Events of one revision arrive in order; called synchronously per batch by the engine. */
  onEvents(events: KVEvent[]): void;
  /** A progress notification: every change up to `revision` under the prefix has been delivered. */
  onProgress?(revision: number): void;
  /** Terminal failure (CompactedError, connection lost beyond retry). No more events follow. */
  onError(err: Error): void;
}

export interface KVStore {
  /** Name of the engine for logs and metrics: `embedded` or `etcd3`. */
  readonly engine: string;
  /** Revision of the last committed write. */
  currentRevision(): Promise<number>;
  /** The oldest revision still readable/watchable (history before it is compacted). */
  compactedRevision(): Promise<number>;
  get(key: string, revision?: number): Promise<KVRecord | undefined>;
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  count(prefix: string): Promise<number>;
  /** Fails with KeyExistsError if the key is live. */
  create(key: string, value: Uint8Array): Promise<KVRecord>;
  /**
   * Replace the value if the record's modRevision still equals `expectedModRevision`.
   * Fails with KeyNotFoundError if absent, ConflictError (carrying the current record) if changed.
   */
  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KVRecord>;
  /**
   * Delete the key; with `expectedModRevision`, only if unchanged (ConflictError otherwise).
   * Resolves to the deleted record and the revision of the delete.
   */
  delete(key: string, expectedModRevision?: number): Promise<{ deleted: KVRecord; revision: number }>;
  /** Watch changes under `prefix` with revision > afterRevision. */
  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle;
  /** Drop history older than `revision` (reads/watches before it then fail with CompactedError). */
  compact(revision: number): Promise<void>;
  /** Flush and release everything; pending writes finish first. */
  close(): Promise<void>;
}

export class KeyExistsError extends Error {
  constructor(readonly key: string) {
    super(`key exists: ${key}`);
    this.name = 'KeyExistsError';
  }
}

export class KeyNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`key not found: ${key}`);
    this.name = 'KeyNotFoundError';
  }
}

export class ConflictError extends Error {
  constructor(
    readonly key: string,
    readonly current: KVRecord,
  ) {
    super(`revision conflict on ${key}: now at ${current.modRevision}`);
    this.name = 'ConflictError';
  }
}

export class CompactedError extends Error {
  constructor(
    readonly requested: number,
    readonly compacted: number,
  ) {
    super(`revision ${requested} has been compacted (oldest available is ${compacted})`);
    this.name = 'CompactedError';
  }
}

/** A revision newer than the store has (callers map this to 504 Too large resource version). */
export class FutureRevisionError extends Error {
  constructor(
    readonly requested: number,
    readonly current: number,
  ) {
    super(`revision ${requested} is newer than the current revision ${current}`);
    this.name = 'FutureRevisionError';
  }
}

/**
 * Storage unreachable or failed: the API answers 503 with Retry-After, or 504 when a deadline
 * passed (`timedOut`); never data loss.
 */
export class StorageUnavailableError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'StorageUnavailableError';
  }
}

/**
 * The store refused a value as too large (etcd's `--max-request-bytes`, 1.5 MiB by default): the
 * request's fault, not an outage, so the API answers 413 and a client must not retry it as is.
 */
export class ValueTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValueTooLargeError';
  }
}

/**
 * The store failed in a way that is neither an outage nor the request's fault (etcd refused our
 * credentials, an unexpected gRPC status): a server-side fault the API answers with 500, logged.
 */
export class StorageFaultError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageFaultError';
  }
}
