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
 * - With `reserve` > 0, each write also takes up to that many free offsets of the dynamic band as
 *   this server's reservation, recorded in the stored object (`reservations`, our addition:
 *   holder, offsets, until), and `allocateNext` hands them out from memory with no store write,
 *   so a create does not wait for the bitmap's write (the write that refills the reservation runs
 *   beside the creates). A reserved offset is marked taken in the stored bitmap before it is
 *   handed out, so it is never given twice; one not handed out when the server stops is given
 *   back (`close`), or, after `kill -9`, treated as in use until `until` and then freed by the
 *   repair loop like any leak. Reserved offsets are handed out only until `until` minus
 *   `reservationMarginMs` (at least the longest a create may take to be stored, plus clock skew
 *   between servers), so the repair loop can never free an offset a create is still storing.
 *   A reservation is renewed or extended only by a write made against the stored object that
 *   still lists it; one the repair loop dropped is never revived.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { ConflictError, KeyExistsError, KeyNotFoundError, type KVRecord, type KVStore } from '../../storage/types.js';
import { Bitmap } from '../../api/net/bitmap.js';

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

type Settle = { resolve: (offset: number) => void; reject: (err: Error) => void };
type Op =
  | ({ type: 'allocate'; offset: number } & Settle)
  | ({ type: 'next'; band: number } & Settle)
  | ({ type: 'release'; offset: number } & Settle)
  /** Refill this server's reservation (nobody waits on the offsets). */
  | ({ type: 'refill' } & Settle)
  /** Give back the reservation (stopping, or it is about to be too old to hand out). */
  | ({ type: 'return' } & Settle);

/** Offsets one API server has taken ahead of its creates (see the contract). */
export interface Reservation {
  holder: string;
  offsets: number[];
  /** Epoch milliseconds after which the reservation no longer protects its offsets. */
  until: number;
}

interface State {
  bitmap: Bitmap;
  /** The key's modRevision; 0 when the key does not exist yet. */
  revision: number;
  /** The reservations stored with it. */
  reservations: Reservation[];
}

/** What is stored under the key, read without judging its range (for the repair loop). */
export interface StoredAllocation {
  revision: number;
  range?: string;
  data?: Uint8Array;
  reservations?: Reservation[];
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
  /** Offsets of the dynamic band to keep reserved for `allocateNext(reserveBand)` (0: none). */
  reserve?: number;
  /** The band start `allocateNext` is called with for dynamic allocations. */
  reserveBand?: number;
  /** How long a reservation protects its offsets (default 5 minutes). */
  reservationTtlMs?: number;
  /** Reserved offsets are not handed out in the last this-long of a reservation (default 90 s). */
  reservationMarginMs?: number;
  /** Who holds this allocator's reservation (default: host name, process id and a random suffix). */
  holder?: string;
}

const MAX_ATTEMPTS = 100;
/** A batch within this long of the previous one counts as a stream ... */
const BUSY_MS = 5;
/** ... and waits this long for more operations. */
const LINGER_MS = 2;

export function encodeAllocation(range: string, bitmap: Bitmap, createdAt: string, reservations: readonly Reservation[] = []): Uint8Array {
  const record: Record<string, unknown> = { kind: 'RangeAllocation', apiVersion: 'v1', metadata: { creationTimestamp: createdAt }, range, data: Buffer.from(bitmap.data()).toString('base64') };
  if (reservations.length > 0) {
    record['reservations'] = reservations.map((r) => ({ holder: r.holder, offsets: r.offsets, until: new Date(r.until).toISOString() }));
  }
  return Buffer.from(JSON.stringify(record));
}

export function decodeAllocation(rec: KVRecord | undefined): StoredAllocation {
  if (!rec) return { revision: 0 };
  const parsed = JSON.parse(Buffer.from(rec.value).toString('utf8')) as { range?: unknown; data?: unknown; reservations?: unknown };
  const reservations: Reservation[] = [];
  if (Array.isArray(parsed.reservations)) {
    for (const r of parsed.reservations as unknown[]) {
      if (!r || typeof r !== 'object') continue;
      const { holder, offsets, until } = r as Record<string, unknown>;
      const ms = typeof until === 'string' ? Date.parse(until) : NaN;
      if (typeof holder !== 'string' || !Array.isArray(offsets) || !Number.isFinite(ms)) continue;
      reservations.push({ holder, offsets: offsets.filter((o): o is number => Number.isInteger(o)), until: ms });
    }
  }
  return {
    revision: rec.modRevision,
    ...(typeof parsed.range === 'string' ? { range: parsed.range } : {}),
    ...(typeof parsed.data === 'string' ? { data: Buffer.from(parsed.data, 'base64') } : {}),
    ...(reservations.length > 0 ? { reservations } : {}),
  };
}

export class RangeAllocator {
  readonly range: string;
  readonly size: number;
  readonly key: string;
  /** Who this allocator's reservation belongs to in the stored object. */
  readonly holder: string;
  private readonly kv: KVStore;
  private readonly what: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly reserveTarget: number;
  private readonly reserveBand: number;
  private readonly ttlMs: number;
  private readonly marginMs: number;
  private state: State | undefined;
  private queue: Op[] = [];
  private flushing = false;
  private lastFlushAt = 0;
  /** Offsets stored as this server's reservation and not handed out yet. */
  private reserve: number[] = [];
  /** Reserved offsets may be handed out before this time (the reservation's `until` minus the margin). */
  private reserveUsableUntil = 0;
  private refillQueued = false;
  /** Set by `close`: nothing more is reserved. */
  private closed = false;
  private returnTimer: NodeJS.Timeout | undefined;
  /** Store writes made, operations they carried, and offsets handed out from the reservation. */
  readonly stats = { writes: 0, operations: 0, fromReservation: 0 };

  constructor(o: RangeAllocatorOptions) {
    this.kv = o.kv;
    this.key = o.key;
    this.range = o.range;
    this.size = o.size;
    this.what = o.what;
    this.logger = o.logger;
    this.now = o.now ?? Date.now;
    this.reserveTarget = o.reserve ?? 0;
    this.reserveBand = o.reserveBand ?? 0;
    this.ttlMs = o.reservationTtlMs ?? 5 * 60_000;
    this.marginMs = o.reservationMarginMs ?? 90_000;
    this.holder = o.holder ?? `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`;
  }

  /** Takes `offset` (a user's choice); AllocatedError when taken. */
  allocate(offset: number): Promise<number> {
    // One of ours: it is already marked taken in the store.
    const i = this.reserveUsable() ? this.reserve.indexOf(offset) : -1;
    if (i >= 0) {
      this.reserve.splice(i, 1);
      this.stats.fromReservation++;
      return Promise.resolve(offset);
    }
    return new Promise((resolve, reject) => this.enqueue({ type: 'allocate', offset, resolve, reject }));
  }

  /** Takes a free offset, chosen at random from [band, size) first; RangeFullError when none. */
  allocateNext(band: number): Promise<number> {
    if (band === this.reserveBand && this.reserve.length > 0 && this.reserveUsable()) {
      const offset = this.reserve.pop()!;
      this.stats.fromReservation++;
      if (this.reserve.length <= this.reserveTarget / 2) this.refill();
      return Promise.resolve(offset);
    }
    return new Promise((resolve, reject) => this.enqueue({ type: 'next', band, resolve, reject }));
  }

  /** Gives `offset` back (a no-op when it was free). */
  release(offset: number): Promise<void> {
    return new Promise((resolve, reject) => this.enqueue({ type: 'release', offset, resolve: () => resolve(), reject }));
  }

  /** Gives back what is reserved and stops the timers (the server is stopping; the store is still open). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.returnTimer);
    // Queued behind any write in flight (a refill may still add to the reservation).
    await new Promise<number>((resolve, reject) => this.enqueue({ type: 'return', resolve, reject })).catch((err: unknown) =>
      this.logger.warn({ err, key: this.key }, 'giving back the reserved offsets failed; the repair loop frees them once the reservation ends'),
    );
  }

  /** Dry run of `allocate`: throws AllocatedError when the local copy has it taken; changes nothing. */
  async checkFree(offset: number): Promise<void> {
    const state = await this.current();
    if (state.bitmap.has(offset) && !this.reserve.includes(offset)) throw new AllocatedError(offset, this.what);
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
   * The repair loop's write: `bitmap` and `reservations` replace what is stored if the key is still
   * at `revision` (0: absent). False when someone wrote in between (the caller starts over).
   */
  async replaceIfUnchanged(bitmap: Bitmap, revision: number, reservations: readonly Reservation[] = []): Promise<boolean> {
    try {
      const value = encodeAllocation(this.range, bitmap, this.stamp(), reservations);
      const rec = revision ? await this.kv.update(this.key, value, revision) : await this.kv.create(this.key, value);
      this.state = { bitmap: bitmap.clone(), revision: rec.modRevision, reservations: [...reservations] };
      return true;
    } catch (err) {
      if (err instanceof ConflictError || err instanceof KeyExistsError || err instanceof KeyNotFoundError) {
        this.state = undefined;
        return false;
      }
      throw err;
    }
  }

  /** How many offsets the local copy has taken, not counting this allocator's reservation (tests, metrics). */
  async used(): Promise<number> {
    return (await this.current()).bitmap.count - this.reserve.length;
  }

  /** How many reserved offsets this allocator holds now (tests, metrics). */
  get reserved(): number {
    return this.reserve.length;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  }

  private reserveUsable(): boolean {
    return this.now() < this.reserveUsableUntil;
  }

  private async current(): Promise<State> {
    this.state ??= this.fromStored(await this.readStored());
    return this.state;
  }

  private fromStored(s: StoredAllocation): State {
    if (s.revision === 0) return { bitmap: new Bitmap(this.size), revision: 0, reservations: [] };
    if (s.range !== this.range) throw new RangeMismatchError(s.range ?? '(none)', this.range);
    return { bitmap: new Bitmap(this.size, s.data), revision: s.revision, reservations: s.reservations ?? [] };
  }

  private refill(): void {
    if (this.refillQueued || this.reserveTarget === 0) return;
    this.refillQueued = true;
    this.enqueue({
      type: 'refill',
      resolve: () => (this.refillQueued = false),
      reject: () => (this.refillQueued = false),
    });
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
        const now = this.now();
        // What of the reservation is still ours in this copy: listed under our name and marked taken.
        const listed = new Set(state.reservations.find((r) => r.holder === this.holder)?.offsets ?? []);
        this.reserve = this.reserve.filter((o) => listed.has(o) && state.bitmap.has(o));
        const work = state.bitmap.clone();
        const taken: number[] = [];
        const results = batch.map((op) => this.apply(work, op, taken));
        const refused = results.some((r) => r instanceof AllocatedError || r instanceof RangeFullError);
        if (refused && !fresh) {
          // Only refuse on what the store holds now: another server may have released it.
          this.reserve.push(...taken);
          this.state = this.fromStored(await this.readStored());
          fresh = true;
          continue;
        }
        // Given back: no longer handed out from memory from now on, cleared by this write.
        const returning = batch.some((op) => op.type === 'return');
        const returned = returning ? this.reserve : [];
        if (returned.length > 0) {
          this.reserveUsableUntil = 0;
          this.reserve = [];
          for (const o of returned) work.clear(o);
        }
        const added = returning ? [] : this.pickReserve(work);
        const reservations = this.reservationsAfter(state, now, added);
        const changed =
          results.some((r, i) => typeof r === 'number' && batch[i]!.type !== 'release' && !taken.includes(r)) ||
          results.some((r, i) => r === true && batch[i]!.type === 'release') ||
          added.length > 0 ||
          JSON.stringify(reservations) !== JSON.stringify(state.reservations);
        if (changed) {
          try {
            const value = encodeAllocation(this.range, work, this.stamp(), reservations);
            const rec = state.revision ? await this.kv.update(this.key, value, state.revision) : await this.kv.create(this.key, value);
            this.state = { bitmap: work, revision: rec.modRevision, reservations };
            this.stats.writes++;
            this.stats.operations += batch.length;
          } catch (err) {
            this.reserve.push(...taken, ...returned);
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
          // Offsets handed out from the reservation while the write was on its way are gone from
          // `reserve` already; the new ones join it only now that they are stored.
          this.reserve.push(...added);
          const mine = reservations.find((r) => r.holder === this.holder);
          this.reserveUsableUntil = mine ? mine.until - this.marginMs : 0;
          this.armReturn();
        }
        this.stats.fromReservation += taken.length;
        batch.forEach((op, i) => {
          const r = results[i];
          if (r instanceof Error) op.reject(r);
          else op.resolve(op.type === 'next' ? (r as number) : op.type === 'allocate' || op.type === 'release' ? op.offset : 0);
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

  /**
   * One operation on the working copy: the offset taken, true/false for a release, or the refusal.
   * Offsets given from the reservation are recorded in `taken` (put back if the write fails).
   */
  private apply(work: Bitmap, op: Op, taken: number[]): number | boolean | Error | undefined {
    switch (op.type) {
      case 'allocate': {
        if (work.set(op.offset)) return op.offset;
        const i = this.reserve.indexOf(op.offset);
        if (i < 0) return new AllocatedError(op.offset, this.what);
        this.reserve.splice(i, 1);
        taken.push(op.offset);
        return op.offset;
      }
      case 'next': {
        if (op.band === this.reserveBand && this.reserve.length > 0) {
          const offset = this.reserve.pop()!;
          taken.push(offset);
          return offset;
        }
        const offset = work.pickFree(op.band);
        if (offset === undefined) return new RangeFullError();
        work.set(offset);
        return offset;
      }
      case 'release':
        return work.clear(op.offset);
      case 'refill':
      case 'return':
        return undefined;
    }
  }

  /**
   * Free offsets of the dynamic band to add to the reservation, marked taken in `work`. None when
   * the range is nearly full: a reservation must not keep addresses from other servers' creates.
   */
  private pickReserve(work: Bitmap): number[] {
    const added: number[] = [];
    if (this.closed || this.reserveTarget === 0 || this.reserve.length > this.reserveTarget / 2) return added;
    const want = this.reserveTarget - this.reserve.length;
    if (work.free < want * 8) return added;
    for (let k = 0; k < want; k++) {
      const offset = work.pickFree(this.reserveBand);
      if (offset === undefined || offset < this.reserveBand) break;
      work.set(offset);
      added.push(offset);
    }
    return added;
  }

  /**
   * The reservations to store with this write: others' still running ones as they are (an ended one
   * is dropped; its offsets stay taken until the repair loop frees them), and ours renewed with
   * what we hold, when it is still listed or new offsets join it.
   */
  private reservationsAfter(state: State, now: number, added: number[]): Reservation[] {
    const out = state.reservations.filter((r) => r.holder !== this.holder && r.until > now);
    const offsets = [...this.reserve, ...added];
    if (offsets.length > 0) out.push({ holder: this.holder, offsets: offsets.sort((a, b) => a - b), until: now + this.ttlMs });
    return out;
  }

  /** Gives the reservation back before it gets too old to hand out (an idle server keeps nothing). */
  private armReturn(): void {
    clearTimeout(this.returnTimer);
    if (this.reserve.length === 0) return;
    this.returnTimer = setTimeout(() => {
      if (this.reserve.length > 0 && !this.reserveUsable()) this.enqueue({ type: 'return', resolve: () => undefined, reject: () => undefined });
    }, Math.max(0, this.reserveUsableUntil - this.now()));
    this.returnTimer.unref();
  }
}
