/**
 * The etcd v3 engine: the KVStore contract mapped onto a real etcd through the `etcd3` package's
 * raw gRPC clients (KV, Watch), so every request is exactly one etcd RPC we control.
 *
 * - create: txn(create_revision == 0 -> put)
 * - update: txn(mod_revision == expected && create_revision > 0 -> put, else range -> typed error)
 * - delete: txn([mod_revision == expected &&] create_revision > 0 -> delete with prev_kv, else range)
 * - get/list: range at a revision (etcd keeps keys in byte order; `count` gives `remaining`)
 * - watch: one watch stream per call with our own resumption (see etcd-watch.ts)
 * etcd's revision is global and increases by one per committed txn, which is the contract's revision.
 */
import { etcdFaultHandling, isDeadline, isOutage, withoutRetry } from './etcd-fault-handling.js';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import {
  CompareResult,
  CompareTarget,
  ClientClosedError,
  Etcd3,
  GRPCCancelledError,
  type ICompare,
  type IKeyValue,
  type IOptions,
  type IRangeRequest,
} from 'etcd3';
import { EtcdWatch, prefixRange, realTimers, type WatchTimers } from './etcd-watch.js';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  StorageFaultError,
  StorageUnavailableError,
  ValueTooLargeError,
  type KVRecord,
  type KVStore,
  type ListOptions,
  type ListResult,
  type WatchCallbacks,
  type WatchHandle,
} from './types.js';

export interface EtcdStoreOptions {
  /** Client URLs, `http://127.0.0.1:2379` or `https://...`. */
  endpoints: string[];
  /** PEM files for TLS (--kvstore-cafile/certfile/keyfile). */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  logger?: Logger;
  /** How long `openEtcdStore` waits for the first successful request (ms). Default 10000. */
  connectTimeoutMs?: number;
  /**
   * Progress requests on each watch (ms); default 1000, 0 disables. Ignored (off) on etcd older
   * than 3.4.24 / 3.5.8, whose progress answers are not ordered with events.
   */
  progressRequestIntervalMs?: number;
  /** A watch whose stream keeps failing this long (ms) ends with onError. Default 30000. */
  watchRetryBudgetMs?: number;
  timers?: WatchTimers;
}

const COMPACTED = 'required revision has been compacted';
const FUTURE = 'required revision is a future revision';
/** etcd's answer to a txn over `--max-request-bytes`, and gRPC's to a message over its receive limit. */
const TOO_LARGE = ['etcdserver: request is too large', 'larger than max'];
const NUL = Buffer.from([0]);

function toRecord(kv: IKeyValue): KVRecord {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

function toBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** True when this etcd orders progress-request answers with events (fixed in 3.4.24 and 3.5.8). */
export function progressRequestsAreOrdered(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (major !== 3) return major > 3;
  if (minor === 4) return patch >= 24;
  if (minor === 5) return patch >= 8;
  return minor > 5;
}

export class EtcdStore implements KVStore {
  readonly engine = 'etcd3';
  /** etcd's version string as reported by the server (`3.4.23`). */
  serverVersion = 'unknown';
  /** Highest compaction revision we know of (ours, or learned from etcd). */
  private knownCompacted = 0;
  private readonly watches = new Set<EtcdWatch>();
  private readonly inflight = new Set<Promise<unknown>>();
  private closed = false;
  private progressRequestIntervalMs: number;
  private readonly timers: WatchTimers;
  private readonly log: Logger | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly opts: EtcdStoreOptions,
  ) {
    this.log = opts.logger;
    this.timers = opts.timers ?? realTimers;
    this.progressRequestIntervalMs = opts.progressRequestIntervalMs ?? 1000;
  }

  /** Checks the connection and learns the server version (decides whether progress requests are safe). */
  async connect(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastErr: unknown;
    while (Date.now() < deadline) {
      try {
        const status = await this.client.maintenance.status({ deadline: Date.now() + Math.min(2000, timeoutMs) });
        this.serverVersion = status.version;
        if (!progressRequestsAreOrdered(status.version) && this.progressRequestIntervalMs > 0) {
          this.log?.info({ version: status.version }, 'etcd predates ordered progress requests; watches rely on server progress notifications');
          this.progressRequestIntervalMs = 0;
        }
        return;
      } catch (err) {
        lastErr = err;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    throw new StorageUnavailableError(
      `etcd at ${this.opts.endpoints.join(',')} unreachable after ${timeoutMs} ms: ${(lastErr as Error)?.message ?? 'timeout'}`,
    );
  }

  async currentRevision(): Promise<number> {
    const res = await this.range({ key: NUL, count_only: true });
    return Number(res.header.revision);
  }

  /**
   * etcd has no call that reports the compaction revision, so we keep the highest one we know and
   * confirm it with one read at that revision; if someone else compacted further, a binary search
   * over cheap reads finds the oldest readable revision.
   */
  async compactedRevision(): Promise<number> {
    const readable = async (rev: number): Promise<boolean> => {
      try {
        await this.call(() => this.client.kv.range({ key: NUL, count_only: true, revision: rev }));
        return true;
      } catch (err) {
        if (err instanceof CompactedError) return false;
        if (err instanceof FutureRevisionError) return true;
        throw err;
      }
    };
    let lo = this.knownCompacted;
    if (lo > 0 && (await readable(lo))) return lo;
    if (lo === 0) {
      if (await readable(1)) return 0;
      lo = 1;
    }
    // lo is unreadable, hi (the current revision) always is
    let hi = await this.currentRevision();
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (await readable(mid)) hi = mid;
      else lo = mid;
    }
    this.noteCompacted(hi);
    return hi;
  }

  async get(key: string, revision?: number): Promise<KVRecord | undefined> {
    const res = await this.range({ key: Buffer.from(key, 'utf8'), revision: revision || 0 }, revision);
    const kv = res.kvs[0];
    return kv ? toRecord(kv) : undefined;
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const { key, rangeEnd } = prefixRange(prefix);
    let start = key;
    if (opts.startKey !== undefined) {
      const s = Buffer.from(opts.startKey, 'utf8');
      if (Buffer.compare(s, start) > 0) start = s;
    }
    // No sort order: etcd returns keys in ascending byte order already (asking for a sort would
    // make it read the whole range before applying the limit).
    const res = await this.range(
      { key: start, range_end: rangeEnd, revision: opts.revision || 0, limit: opts.limit && opts.limit > 0 ? opts.limit : 0 },
      opts.revision,
    );
    const items = res.kvs.map(toRecord);
    // etcd's header carries the current revision even for a read at an older one.
    return { items, revision: opts.revision || Number(res.header.revision), remaining: Math.max(0, Number(res.count) - items.length) };
  }

  async count(prefix: string): Promise<number> {
    const { key, rangeEnd } = prefixRange(prefix);
    const res = await this.range({ key, range_end: rangeEnd, count_only: true });
    return Number(res.count);
  }

  create(key: string, value: Uint8Array): Promise<KVRecord> {
    return this.write(async () => {
      const k = Buffer.from(key, 'utf8');
      const res = await this.call(() =>
        this.client.kv.txn({
          compare: [{ key: k, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 }],
          success: [{ request_put: { key: k, value: toBuffer(value) } }],
          failure: [],
        }),
      );
      if (!res.succeeded) throw new KeyExistsError(key);
      const rev = Number(res.header.revision);
      return { key, value, createRevision: rev, modRevision: rev };
    });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KVRecord> {
    return this.write(async () => {
      const k = Buffer.from(key, 'utf8');
      const res = await this.call(() =>
        this.client.kv.txn({
          compare: [
            { key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision },
            { key: k, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 },
          ],
          success: [{ request_put: { key: k, value: toBuffer(value), prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      );
      if (!res.succeeded) throw this.preconditionFailure(key, res.responses[0]?.response_range?.kvs[0]);
      const prev = res.responses[0]?.response_put?.prev_kv;
      const rev = Number(res.header.revision);
      return { key, value, createRevision: prev ? Number(prev.create_revision) : rev, modRevision: rev };
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<{ deleted: KVRecord; revision: number }> {
    return this.write(async () => {
      const k = Buffer.from(key, 'utf8');
      const compare: ICompare[] = [{ key: k, target: CompareTarget.Create, result: CompareResult.Greater, create_revision: 0 }];
      if (expectedModRevision !== undefined) {
        compare.push({ key: k, target: CompareTarget.Mod, result: CompareResult.Equal, mod_revision: expectedModRevision });
      }
      const res = await this.call(() =>
        this.client.kv.txn({
          compare,
          success: [{ request_delete_range: { key: k, prev_kv: true } }],
          failure: [{ request_range: { key: k } }],
        }),
      );
      if (!res.succeeded) throw this.preconditionFailure(key, res.responses[0]?.response_range?.kvs[0]);
      const prev = res.responses[0]?.response_delete_range?.prev_kvs[0];
      if (!prev) throw new KeyNotFoundError(key); // cannot happen: the compare guaranteed the key
      return { deleted: toRecord(prev), revision: Number(res.header.revision) };
    });
  }

  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) {
      queueMicrotask(() => callbacks.onError(new StorageUnavailableError('etcd store is closed')));
      return { close: () => undefined };
    }
    const w = new EtcdWatch(
      {
        watchClient: this.client.watchClient,
        logger: this.log,
        progressRequestIntervalMs: this.progressRequestIntervalMs,
        retryBudgetMs: this.opts.watchRetryBudgetMs ?? 30_000,
        timers: this.timers,
        onCompactRevision: (rev) => this.noteCompacted(rev),
      },
      prefix,
      afterRevision,
      callbacks,
      (done) => this.watches.delete(done),
    );
    this.watches.add(w);
    return w;
  }

  async compact(revision: number): Promise<void> {
    try {
      // physical: wait until the compaction is applied, so reads right after it see its effect.
      await this.call(() => this.client.kv.compact({ revision, physical: true }));
      this.noteCompacted(revision);
      this.log?.info({ revision }, 'etcd compacted');
    } catch (err) {
      if (err instanceof CompactedError) return; // already compacted at or past it: nothing to do
      if (err instanceof FutureRevisionError) throw new FutureRevisionError(revision, await this.currentRevision());
      throw err;
    }
  }

  /** Waits for writes in flight, ends every watch (no callbacks after) and closes the client. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight]);
    for (const w of [...this.watches]) w.close();
    this.client.close();
  }

  private noteCompacted(revision: number): void {
    if (revision > this.knownCompacted) this.knownCompacted = revision;
  }

  private preconditionFailure(key: string, current: IKeyValue | undefined): Error {
    return current ? new ConflictError(key, toRecord(current)) : new KeyNotFoundError(key);
  }

  /** A range with our error mapping; `requested` is the revision reported in typed errors. */
  private async range(req: IRangeRequest, requested?: number) {
    try {
      return await this.call(() => this.client.kv.range(req));
    } catch (err) {
      if (err instanceof CompactedError) {
        throw new CompactedError(requested ?? 0, await this.compactedRevision().catch(() => this.knownCompacted));
      }
      if (err instanceof FutureRevisionError) throw new FutureRevisionError(requested ?? 0, await this.currentRevision());
      throw err;
    }
  }

  private write<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StorageUnavailableError('etcd store is closed'));
    // Never retried: a write that failed may have been committed (see etcd-fault-handling.ts).
    const p = withoutRetry(fn);
    this.inflight.add(p);
    const forget = (): void => {
      this.inflight.delete(p);
    };
    p.then(forget, forget);
    return p;
  }

  /** Runs one RPC and maps etcd/gRPC failures onto the contract's errors. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed && this.inflight.size === 0) throw new StorageUnavailableError('etcd store is closed');
    try {
      return await fn();
    } catch (err) {
      throw mapEtcdError(err);
    }
  }
}

/**
 * etcd/gRPC error -> contract error (revision numbers are filled in by the caller):
 * - an outage (unavailable, a deadline, a cancelled stream) -> StorageUnavailableError (503/504);
 * - a value over etcd's request size limit -> ValueTooLargeError (413: retrying cannot help);
 * - anything else (refused credentials, an unexpected status) -> StorageFaultError (500, logged).
 */
export function mapEtcdError(err: unknown): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  if (e.message.includes(COMPACTED)) return new CompactedError(0, 0);
  if (e.message.includes(FUTURE)) return new FutureRevisionError(0, 0);
  if (e instanceof StorageUnavailableError || e instanceof ValueTooLargeError || e instanceof StorageFaultError) return e;
  let mapped: Error;
  if (TOO_LARGE.some((m) => e.message.includes(m))) {
    mapped = new ValueTooLargeError(`the object is larger than the storage accepts: ${e.message}`);
  } else if (isOutage(e) || e instanceof GRPCCancelledError || e instanceof ClientClosedError || isOpenBreaker(e)) {
    mapped = new StorageUnavailableError(`etcd unavailable: ${e.message}`, isDeadline(e));
  } else {
    mapped = new StorageFaultError(`etcd: ${e.message}`);
  }
  (mapped as Error & { cause?: unknown }).cause = e;
  return mapped;
}

/**
 * The client's circuit breaker refusing a call while etcd is thought down (etcd-fault-handling.ts):
 * an outage as the API sees it (503), not a fault. By name: etcd3 may carry its own cockatiel copy.
 */
function isOpenBreaker(e: Error): boolean {
  return e.name === 'BrokenCircuitError' || e.constructor.name === 'BrokenCircuitError' || e.message.includes('circuit breaker is open');
}

/** Connect to etcd (fails with StorageUnavailableError if it does not answer within the timeout). */
export async function openEtcdStore(opts: EtcdStoreOptions): Promise<EtcdStore> {
  if (opts.endpoints.length === 0) throw new Error('etcd: no endpoints given');
  const options: IOptions = {
    hosts: opts.endpoints,
    // Catch-up watch batches and big lists can exceed gRPC's 4 MiB default.
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
    faultHandling: etcdFaultHandling(),
  };
  if (opts.caFile || opts.certFile || opts.keyFile) {
    if (!opts.caFile) throw new Error('etcd TLS: --kvstore-cafile is required with a client certificate');
    if (!!opts.certFile !== !!opts.keyFile) throw new Error('etcd TLS: --kvstore-certfile and --kvstore-keyfile go together');
    options.credentials = {
      rootCertificate: readFileSync(opts.caFile),
      ...(opts.certFile && opts.keyFile ? { certChain: readFileSync(opts.certFile), privateKey: readFileSync(opts.keyFile) } : {}),
    };
  }
  const store = new EtcdStore(new Etcd3(options), opts);
  try {
    await store.connect(opts.connectTimeoutMs ?? 10_000);
  } catch (err) {
    await store.close();
    throw err;
  }
  opts.logger?.info({ endpoints: opts.endpoints, version: store.serverVersion }, 'etcd store opened');
  return store;
}
