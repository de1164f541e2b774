/**
 * One allocation range (the cluster IPs of one family, or the node ports) kept as a bitmap under one
 * key of the store, in the shape of the established RangeAllocation object
 * (`{"kind":"RangeAllocation","apiVersion":"v1","range":"10.0.0.0/24","data":"<base64>"}`).
 *
 * Contract:
 * - Every change is a compare-and-swap on the key's modRevision, so API servers sharing one store
 *   never hand out the same offset: a server whose copy is stale loses the swap, re-reads, and
 *   re-applies its changes to what is stored. An allocation is confirmed only once it is stored,
 *   so it survives a restart or kill -9 (at worst an offset is taken for a Service never written:
 *   the repair loop frees such leaks).
 * - Concurrent requests are group-committed: operations queued while one write is in flight go in
 *   the next, so a burst of creates costs one store write per batch, not one per Service.
 * - A refusal ("already allocated") is only given on a copy read from the store in this batch,
 *   never on a stale one.
 * - Dry runs read the local copy and change nothing.
 */
import type { Logger } from 'pino';
import { ConflictError, KeyExistsError, KeyNotFoundError, type KVRecord, type KVStore } from '../../storage/types.js';
import { Bitmap } from './bitmap.js';

export class AllocatedError extends Error {
  constructor(readonly offset: number, what: string) {
    super(`provided ${what} is already allocated`);
    this.name = 'AllocatedError';
  }
}

export class RangeFullError extends Error {
  constructor() {
    super('range is full');
    this.name = 'RangeFullError';
  }
}

/** The stored allocation names another range (the flag changed): the repair loop rewrites it. */
export class RangeMismatchError extends Error {
  constructor(stored: string, configured: string) {
    super(`the stored allocation is for range ${stored}, not the configured ${configured}; the repair loop rewrites it`);
    this.name = 'RangeMismatchError';
  }
}

type Op =
  | { type: 'allocate'; offset: number; resolve: (offset: number) => void; reject: (err: Error) => void }
  | { type: 'next'; band: number; resolve: (offset: number) => void; reject: (err: Error) => void }
  | { type: 'release'; offset: number; resolve: (offset: number) => void; reject: (err: Error) => void };

interface State {
  bitmap: Bitmap;
  /** The key's modRevision; 0 when the key does not exist yet. */
  revision: number;
}

/** What is stored under the key, read without judging its range (for the repair loop). */
export interface StoredAllocation {
  revision: number;
  range?: string;
  data?: Uint8Array;
}

export interface RangeAllocatorOptions {
  kv: KVStore;
  /** The store key, e.g. `/registry/ranges/serviceips`. */
  key: string;
  /** The range as stored and as named in messages (`10.0.0.0/24`, `30000-32767`). */
  range: string;
  size: number;
  /** 'IP' or 'port', for "provided IP is already allocated". */
  what: string;
  logger: Logger;
  now?: () => number;
}

const MAX_ATTEMPTS = 100;
/** A batch within this long of the previous one counts as a stream ... */
const BUSY_MS = 5;
/** ... and waits this long for more operations. */
const LINGER_MS = 2;

export function encodeAllocation(range: string, bitmap: Bitmap, createdAt: string): Uint8Array {
  return Buffer.from(
    JSON.stringify({ kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: createdAt }, range, data: Buffer.from(bitmap.data()).toString('base64') }),
  );
}

export function decodeAllocation(rec: KVRecord | undefined): StoredAllocation {
  if (!rec) return { revision: 0 };
  const parsed = JSON.parse(Buffer.from(rec.value).toString('utf8')) as { range?: unknown; data?: unknown };
  return {
    revision: rec.modRevision,
    ...(typeof parsed.range === 'string' ? { range: parsed.range } : {}),
    ...(typeof parsed.data === 'string' ? { data: Buffer.from(parsed.data, 'base64') } : {}),
  };
}

export class RangeAllocator {
  readonly range: string;
  readonly size: number;
  readonly key: string;
  private readonly kv: KVStore;
  private readonly what: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private state: State | undefined;
  private queue: Op[] = [];
  private flushing = false;
  private lastFlushAt = 0;
  /** Store writes made and operations they carried (for the shutdown log and the benchmark). */
  readonly stats = { writes: 0, operations: 0 };

  constructor(o: RangeAllocatorOptions) {
    this.kv = o.kv;
    this.key = o.key;
    this.range = o.range;
    this.size = o.size;
    this.what = o.what;
    this.logger = o.logger;
    this.now = o.now ?? Date.now;
  }

  /** Takes `offset` (a user's choice); AllocatedError when taken. */
  allocate(offset: number): Promise<number> {
    return new Promise((resolve, reject) => this.enqueue({ type: 'allocate', offset, resolve, reject }));
  }

  /** Takes a free offset, chosen at random from [band, size) first; RangeFullError when none. */
  allocateNext(band: number): Promise<number> {
    return new Promise((resolve, reject) => this.enqueue({ type: 'next', band, resolve, reject }));
  }

  /** Gives `offset` back (a no-op when it was free). */
  release(offset: number): Promise<void> {
    return new Promise((resolve, reject) => this.enqueue({ type: 'release', offset, resolve: () => resolve(), reject }));
  }

  /** Dry run of `allocate`: throws AllocatedError when the local copy has it taken; changes nothing. */
  async checkFree(offset: number): Promise<void> {
    const state = await this.current();
    if (state.bitmap.has(offset)) throw new AllocatedError(offset, this.what);
  }

  /** Dry run of `allocateNext`: an offset that is free now (not reserved). */
  async peekFree(band: number): Promise<number> {
    const state = await this.current();
    const offset = state.bitmap.pickFree(band);
    if (offset === undefined) throw new RangeFullError();
    return offset;
  }

  /** The stored record as is, for the repair loop. */
  async readStored(): Promise<StoredAllocation> {
    return decodeAllocation(await this.kv.get(this.key));
  }

  /**
   * The repair loop's write: `bitmap` replaces what is stored if the key is still at `revision`
   * (0: absent). False when someone wrote in between (the caller starts over).
   */
  async replaceIfUnchanged(bitmap: Bitmap, revision: number): Promise<boolean> {
    try {
      const value = encodeAllocation(this.range, bitmap, new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z'));
      const rec = revision ? await this.kv.update(this.key, value, revision) : await this.kv.create(this.key, value);
      this.state = { bitmap: bitmap.clone(), revision: rec.modRevision };
      return true;
    } catch (err) {
      if (err instanceof ConflictError || err instanceof KeyExistsError || err instanceof KeyNotFoundError) {
        this.state = undefined;
        return false;
      }
      throw err;
    }
  }

  /** How many offsets the local copy has taken (tests, metrics). */
  async used(): Promise<number> {
    return (await this.current()).bitmap.count;
  }

  private async current(): Promise<State> {
    this.state ??= this.fromStored(await this.readStored());
    return this.state;
  }

  private fromStored(s: StoredAllocation): State {
    if (s.revision === 0) return { bitmap: new Bitmap(this.size), revision: 0 };
    if (s.range !== this.range) throw new RangeMismatchError(s.range ?? '(none)', this.range);
    return { bitmap: new Bitmap(this.size, s.data), revision: s.revision };
  }

  private enqueue(op: Op): void {
    this.queue.push(op);
    if (this.flushing) return;
    this.flushing = true;
    // Operations queued in this turn of the event loop join the first batch. Under a stream of
    // writes (the last batch was moments ago) the batch waits LINGER_MS for more: each write
    // rewrites the whole bitmap, so fewer, larger batches cost the store far less.
    if (this.now() - this.lastFlushAt < BUSY_MS) setTimeout(() => void this.flush(), LINGER_MS);
    else setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        await this.commit(batch);
      }
    } finally {
      this.flushing = false;
      this.lastFlushAt = this.now();
    }
  }

  private async commit(batch: Op[]): Promise<void> {
    let fresh = false;
    try {
      if (!this.state) {
        this.state = this.fromStored(await this.readStored());
        fresh = true;
      }
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const state: State = this.state;
        const work = state.bitmap.clone();
        const results = batch.map((op) => this.apply(work, op));
        const refused = results.some((r) => r instanceof AllocatedError || r instanceof RangeFullError);
        if (refused && !fresh) {
          // Only refuse on what the store holds now: another server may have released it.
          this.state = this.fromStored(await this.readStored());
          fresh = true;
          continue;
        }
        const changed = results.some((r, i) => typeof r === 'number' && batch[i]!.type !== 'release') || results.some((r, i) => r === true && batch[i]!.type === 'release');
        if (changed) {
          try {
            const value = encodeAllocation(this.range, work, new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z'));
            const rec = state.revision ? await this.kv.update(this.key, value, state.revision) : await this.kv.create(this.key, value);
            this.state = { bitmap: work, revision: rec.modRevision };
            this.stats.writes++;
            this.stats.operations += batch.length;
          } catch (err) {
            if (err instanceof ConflictError) {
              this.state = this.fromStored(decodeAllocation(err.current));
              fresh = true;
              continue;
            }
            if (err instanceof KeyExistsError || err instanceof KeyNotFoundError) {
              this.state = this.fromStored(await this.readStored());
              fresh = true;
              continue;
            }
            throw err;
          }
        }
        batch.forEach((op, i) => {
          const r = results[i];
          if (r instanceof Error) op.reject(r);
          else op.resolve(op.type === 'next' ? (r as number) : op.offset);
        });
        return;
      }
      throw new Error(`too many concurrent changes to ${this.key}; retry`);
    } catch (err) {
      this.state = undefined;
      this.logger.warn({ err, key: this.key }, 'range allocation failed');
      for (const op of batch) op.reject(err as Error);
    }
  }

  /** One operation on the working copy: the offset taken, true/false for a release, or the refusal. */
  private apply(work: Bitmap, op: Op): number | boolean | Error {
    switch (op.type) {
      case 'allocate':
        return work.set(op.offset) ? op.offset : new AllocatedError(op.offset, this.what);
      case 'next': {
        const offset = work.pickFree(op.band);
        if (offset === undefined) return new RangeFullError();
        work.set(offset);
        return offset;
      }
      case 'release':
        return work.clear(op.offset);
    }
  }
}
