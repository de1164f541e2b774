/**
 * The embedded storage engine: an MVCC key-value store on one SQLite file (better-sqlite3), with the
 * same revision semantics as etcd v3 (see `KVStore` in ./types.ts for the guarantees).
 *
 * Layout (one file `svc.db` in `dir`):
 * - `revs`: every write as a row; `rev` (the rowid) is the global revision, so history reads and
 *   watch replays walk the primary key; `(key, rev)` is indexed for reads at an older revision.
 *   A delete is a tombstone row (`deleted = 1`, no value). `prev_rev` points at the row this write
 *   replaced (0 for a create), which gives watch events their `prevValue` by rowid.
 * - `latest`: the live record per key, so reads at the current revision never touch history.
 * - `meta`: the current and compacted revision.
 *
 * Writes are group-committed: every write issued before the next turn of the event loop runs in one
 * transaction, and each promise resolves only after that transaction committed. A single commit
 * costs ~90 µs here (WAL frames of three b-trees), so batching is what lets concurrent writers reach
 * tens of thousands of writes per second.
 *
 * Durability (acknowledged = on disk, as etcd promises): after a group's transaction has written its
 * WAL frames, the WAL file is fsynced from libuv's thread pool, and only then are the writes
 * acknowledged, the revision advanced and the events dispatched; the next group waits for that
 * fsync (its writes meanwhile join it). So the event loop never waits on the disk, and nothing a
 * client or a watcher saw can be lost to a power loss: while a group is being fsynced, reads at the
 * current revision are answered at the last durable one (from history rows, not `latest`) and a
 * watch replays history only up to it.
 */
import { closeSync, fsync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Logger } from 'pino';
import {
  CompactedError,
  ConflictError,
  FutureRevisionError,
  KeyExistsError,
  KeyNotFoundError,
  StorageUnavailableError,
  type KVEvent,
  type KVRecord,
  type KVStore,
  type ListOptions,
  type ListResult,
  type WatchCallbacks,
  type WatchHandle,
} from './types.js';
import { WatcherRegistry, type EngineWatcher } from './embedded-watchers.js';

export interface EmbeddedStoreOptions {
  /** Directory holding the database file (`svc.db`); created if missing. */
  dir: string;
  logger?: Logger;
  /** Clock (ms) used for timing logs; default Date.now. */
  now?: () => number;
  /**
   * How often (ms) watchers get a progress notification with the current revision after writes
   * happened (lets a watch cache of one prefix learn about revisions made under other prefixes).
   * 0 (default): right after each batch's events; negative: never.
   */
  progressIntervalMs?: number;
  /**
   * Fsync every commit before it is acknowledged; default true. false (`--data-dir-fsync=false`):
   * no fsync of commits, see the constructor.
   */
  fsync?: boolean;
  /** How a file is fsynced (tests hold it to see that nothing is acknowledged before it ends); default node:fs fsync. */
  fsyncFile?: (fd: number) => Promise<void>;
}

function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
}

/** The highest string any key can start with, used as the end of the range for the empty prefix. */
const KEY_SPACE_END = '\u{10FFFF}'.repeat(8);

/** End of the key range of `prefix`: the prefix with its last character incremented (exclusive). */
export function prefixRangeEnd(prefix: string): string {
  if (prefix === '') return KEY_SPACE_END;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last === 0xffff) return prefix + KEY_SPACE_END;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

function toBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

interface LatestRow {
  key: string;
  rev: number;
  create_rev: number;
  value: Buffer;
}

interface HistoryRow {
  rev: number;
  key: string;
  create_rev: number;
  prev_rev: number;
  value: Buffer | null;
  deleted: number;
  prev_value: Buffer | null;
}

/** One queued write: runs inside the batch transaction, returns its result and its event. */
interface PendingWrite {
  run(rev: number): { result: unknown; event?: KVEvent };
  resolve(result: unknown): void;
  reject(err: Error): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS revs (
  rev INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev INTEGER NOT NULL,
  value BLOB,
  deleted INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS revs_key_rev ON revs(key, rev);
CREATE TABLE IF NOT EXISTS latest (
  key TEXT PRIMARY KEY,
  rev INTEGER NOT NULL,
  create_rev INTEGER NOT NULL,
  value BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
INSERT OR IGNORE INTO meta(k, v) VALUES ('revision', 0), ('compacted', 0), ('schema', 1);
`;

export class EmbeddedStore implements KVStore {
  readonly engine = 'embedded';
  private readonly db: Database.Database;
  private readonly log: Logger | undefined;
  private readonly now: () => number;
  private rev: number;
  private compacted: number;
  private closed = false;
  private queue: PendingWrite[] = [];
  private flushScheduled = false;
  private flushed: Array<() => void> = [];
  /** Fsync commits before acknowledging them (off with --data-dir-fsync=false). */
  private readonly fsyncCommits: boolean;
  private readonly fsyncFile: (fd: number) => Promise<void>;
  private readonly dir: string;
  /** The WAL file, opened at the first commit to fsync it (the database's directory fsynced then too). */
  private walFd: number | undefined;
  /** A committed group is being fsynced: it is not visible yet, and the next group waits. */
  private syncing = false;
  private readonly watchers: WatcherRegistry;
  private readonly stmt;

  constructor(opts: EmbeddedStoreOptions) {
    mkdirSync(opts.dir, { recursive: true });
    this.log = opts.logger;
    this.now = opts.now ?? Date.now;
    this.dir = opts.dir;
    this.db = new Database(join(opts.dir, 'svc.db'));
    this.db.pragma('journal_mode = WAL');
    // Acknowledged = on disk, as etcd promises: every commit's WAL frames are fsynced before its
    // writes are acknowledged (flush), so they survive a power loss or kernel crash too. A commit
    // is a whole group of writes, so the fsync (about 0.2 ms on a quiet disk here) is paid once per
    // group, not per write; docs/benchmarks.md has the write rate both ways. The fsync is ours, off
    // the event loop: SQLite runs synchronous=NORMAL (WAL frames written at commit, the WAL fsynced
    // at checkpoints) where synchronous=FULL would fsync inside the commit, on the event loop.
    // With `fsync: false` (--data-dir-fsync=false) only SQLite's checkpoint fsyncs remain: a
    // commit's frames are in the kernel's page cache once write(2) returned, so it survives
    // `kill -9` of this process, but a power loss or kernel crash may lose the last commits (never
    // corrupting the database).
    this.fsyncCommits = opts.fsync !== false;
    this.fsyncFile = opts.fsyncFile ?? fsyncFd;
    this.db.pragma('synchronous = NORMAL');
    this.log?.info({ fsync: this.fsyncsCommits(), dir: opts.dir }, 'embedded store opened');
    // One process owns the file: never let a second API server open it underneath us.
    this.db.pragma('locking_mode = EXCLUSIVE');
    this.db.exec(SCHEMA);
    const db = this.db;
    this.stmt = {
      getMeta: db.prepare<[string], { v: number }>('SELECT v FROM meta WHERE k = ?'),
      setMeta: db.prepare<[number, string]>('UPDATE meta SET v = ? WHERE k = ?'),
      getLatest: db.prepare<[string], LatestRow>('SELECT key, rev, create_rev, value FROM latest WHERE key = ?'),
      insertLatest: db.prepare<[string, number, number, Buffer]>(
        'INSERT INTO latest(key, rev, create_rev, value) VALUES (?, ?, ?, ?)',
      ),
      updateLatest: db.prepare<[number, Buffer, string]>('UPDATE latest SET rev = ?, value = ? WHERE key = ?'),
      deleteLatest: db.prepare<[string]>('DELETE FROM latest WHERE key = ?'),
      insertRev: db.prepare<[number, string, number, number, Buffer | null, number]>(
        'INSERT INTO revs(rev, key, create_rev, prev_rev, value, deleted) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      getAt: db.prepare<[string, number], { rev: number; create_rev: number; value: Buffer | null; deleted: number }>(
        'SELECT rev, create_rev, value, deleted FROM revs WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1',
      ),
      listLatest: db.prepare<[string, string, number], LatestRow>(
        'SELECT key, rev, create_rev, value FROM latest WHERE key >= ? AND key < ? ORDER BY key LIMIT ?',
      ),
      countLatest: db.prepare<[string, string], { n: number }>(
        'SELECT COUNT(*) AS n FROM latest WHERE key >= ? AND key < ?',
      ),
      countLatestAfter: db.prepare<[string, string], { n: number }>(
        'SELECT COUNT(*) AS n FROM latest WHERE key > ? AND key < ?',
      ),
      // Walks the (key, rev) index in key order and keeps the newest row <= the revision of each key,
      // so a LIMIT stops the scan early (no temporary sort of the whole range).
      listAt: db.prepare<[string, string, number, number], LatestRow>(
        `SELECT r.key, r.rev, r.create_rev, r.value FROM revs r
         WHERE r.key >= ? AND r.key < ? AND r.deleted = 0
           AND r.rev = (SELECT MAX(x.rev) FROM revs x WHERE x.key = r.key AND x.rev <= ?)
         ORDER BY r.key LIMIT ?`,
      ),
      // Keys live at an old revision after `last` = keys live now + a correction computed only from
      // the keys written since that revision (cheap: walks the rowid range rev > at).
      countAtAfterCorrection: db.prepare<[{ at: number; last: string; end: string }], { d: number | null }>(
        `SELECT SUM(
           COALESCE((SELECT 1 - r.deleted FROM revs r WHERE r.key = c.key AND r.rev <= @at ORDER BY r.rev DESC LIMIT 1), 0)
           - EXISTS(SELECT 1 FROM latest l WHERE l.key = c.key)) AS d
         FROM (SELECT DISTINCT key FROM revs WHERE rev > @at AND +key > @last AND +key < @end) AS c`,
      ),
      history: db.prepare<[number, number, string, string], HistoryRow>(
        `SELECT r.rev, r.key, r.create_rev, r.prev_rev, r.value, r.deleted, p.value AS prev_value
         FROM revs r LEFT JOIN revs p ON p.rev = r.prev_rev
         WHERE r.rev > ? AND r.rev <= ? AND +r.key >= ? AND +r.key < ? ORDER BY r.rev`,
      ),
      // Rows superseded by a newer row written since the last compaction, up to the new one.
      compactSuperseded: db.prepare<[number, number]>(
        `DELETE FROM revs WHERE rev IN (
           SELECT old.rev FROM revs AS new JOIN revs AS old ON old.key = new.key AND old.rev < new.rev
           WHERE new.rev > ? AND new.rev <= ?)`,
      ),
      compactTombstones: db.prepare<[number, number]>('DELETE FROM revs WHERE rev > ? AND rev <= ? AND deleted = 1'),
    };
    this.rev = this.stmt.getMeta.get('revision')!.v;
    this.compacted = this.stmt.getMeta.get('compacted')!.v;
    this.watchers = new WatcherRegistry({
      logger: this.log,
      progressIntervalMs: opts.progressIntervalMs ?? 0,
      currentRevision: () => this.rev,
    });
    this.log?.info({ dir: opts.dir, revision: this.rev, compacted: this.compacted }, 'embedded store opened');
  }

  async currentRevision(): Promise<number> {
    this.assertOpen();
    return this.rev;
  }

  async compactedRevision(): Promise<number> {
    this.assertOpen();
    return this.compacted;
  }

  async get(key: string, revision?: number): Promise<KVRecord | undefined> {
    const at = this.readRevision(revision);
    if (at === this.rev && !this.syncing) {
      const row = this.stmt.getLatest.get(key);
      return row && { key, value: row.value, createRevision: row.create_rev, modRevision: row.rev };
    }
    const row = this.stmt.getAt.get(key, at);
    if (!row || row.deleted) return undefined;
    return { key, value: row.value!, createRevision: row.create_rev, modRevision: row.rev };
  }

  async list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    const at = this.readRevision(opts.revision);
    const start = opts.startKey !== undefined && opts.startKey > prefix ? opts.startKey : prefix;
    const end = prefixRangeEnd(prefix);
    const limit = opts.limit && opts.limit > 0 ? opts.limit : -1;
    // While a group is being fsynced, `latest` already has its rows: read at the durable revision.
    const current = at === this.rev && !this.syncing;
    const rows = current ? this.stmt.listLatest.all(start, end, limit) : this.stmt.listAt.all(start, end, at, limit);
    const items = rows.map((r) => ({ key: r.key, value: r.value, createRevision: r.create_rev, modRevision: r.rev }));
    let remaining = 0;
    if (limit > 0 && items.length === limit) {
      const last = items[items.length - 1]!.key;
      remaining = this.stmt.countLatestAfter.get(last, end)!.n;
      if (!current) remaining += this.stmt.countAtAfterCorrection.get({ at, last, end })!.d ?? 0;
    }
    return { items, revision: at, remaining };
  }

  async count(prefix: string): Promise<number> {
    this.assertOpen();
    return this.stmt.countLatest.get(prefix, prefixRangeEnd(prefix))!.n;
  }

  create(key: string, value: Uint8Array): Promise<KVRecord> {
    const buf = toBuffer(value);
    return this.enqueue<KVRecord>((rev) => {
      if (this.stmt.getLatest.get(key)) throw new KeyExistsError(key);
      this.stmt.insertRev.run(rev, key, rev, 0, buf, 0);
      this.stmt.insertLatest.run(key, rev, rev, buf);
      const record: KVRecord = { key, value: buf, createRevision: rev, modRevision: rev };
      const event: KVEvent = { type: 'put', key, value: buf, modRevision: rev, createRevision: rev, prevModRevision: 0 };
      return { result: record, event };
    });
  }

  update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KVRecord> {
    const buf = toBuffer(value);
    return this.enqueue<KVRecord>((rev) => {
      const cur = this.stmt.getLatest.get(key);
      if (!cur) throw new KeyNotFoundError(key);
      if (cur.rev !== expectedModRevision) throw new ConflictError(key, latestToRecord(cur));
      this.stmt.insertRev.run(rev, key, cur.create_rev, cur.rev, buf, 0);
      this.stmt.updateLatest.run(rev, buf, key);
      const record: KVRecord = { key, value: buf, createRevision: cur.create_rev, modRevision: rev };
      const event: KVEvent = {
        type: 'put',
        key,
        value: buf,
        prevValue: cur.value,
        modRevision: rev,
        createRevision: cur.create_rev,
        prevModRevision: cur.rev,
      };
      return { result: record, event };
    });
  }

  delete(key: string, expectedModRevision?: number): Promise<{ deleted: KVRecord; revision: number }> {
    return this.enqueue<{ deleted: KVRecord; revision: number }>((rev) => {
      const cur = this.stmt.getLatest.get(key);
      if (!cur) throw new KeyNotFoundError(key);
      if (expectedModRevision !== undefined && cur.rev !== expectedModRevision) {
        throw new ConflictError(key, latestToRecord(cur));
      }
      this.stmt.insertRev.run(rev, key, cur.create_rev, cur.rev, null, 1);
      this.stmt.deleteLatest.run(key);
      const event: KVEvent = {
        type: 'delete',
        key,
        value: cur.value,
        prevValue: cur.value,
        modRevision: rev,
        createRevision: cur.create_rev,
        prevModRevision: cur.rev,
      };
      return { result: { deleted: latestToRecord(cur), revision: rev }, event };
    });
  }

  /**
   * Watch changes under `prefix` after `afterRevision`. The history replay and the registration for
   * live commits happen in one synchronous step (no write can commit in between), so the handoff has
   * neither a gap nor a duplicate. Callbacks always run asynchronously, in revision order.
   */
  watch(prefix: string, afterRevision: number, callbacks: WatchCallbacks): WatchHandle {
    if (this.closed) {
      const w = this.watchers.add(prefix, afterRevision, callbacks, []);
      this.watchers.fail(w, new StorageUnavailableError('embedded store is closed'));
      return { close: () => this.watchers.remove(w) };
    }
    if (afterRevision < this.compacted) {
      const w = this.watchers.add(prefix, afterRevision, callbacks, []);
      this.watchers.fail(w, new CompactedError(afterRevision, this.compacted));
      return { close: () => this.watchers.remove(w) };
    }
    const replay: KVEvent[] = [];
    if (afterRevision < this.rev) {
      // Up to the durable revision: a group being fsynced is dispatched to this watcher with the rest.
      for (const row of this.stmt.history.iterate(afterRevision, this.rev, prefix, prefixRangeEnd(prefix))) {
        replay.push(historyToEvent(row));
      }
    }
    const w: EngineWatcher = this.watchers.add(prefix, afterRevision, callbacks, replay);
    return { close: () => this.watchers.remove(w) };
  }

  async compact(revision: number): Promise<void> {
    this.assertOpen();
    // Runs in the write queue so it is ordered with writes; `next` is the revision a write would get.
    await this.enqueue<void>((next) => {
      const current = next - 1;
      if (revision > current) throw new FutureRevisionError(revision, current);
      if (revision <= this.compacted) return { result: undefined };
      const started = this.now();
      const superseded = this.stmt.compactSuperseded.run(this.compacted, revision).changes;
      const tombstones = this.stmt.compactTombstones.run(this.compacted, revision).changes;
      this.stmt.setMeta.run(revision, 'compacted');
      // Set inside the transaction so no read between commit and resolve sees half-missing history;
      // flush() restores it if the transaction fails.
      this.compacted = revision;
      this.log?.info({ revision, superseded, tombstones, ms: this.now() - started }, 'embedded store compacted');
      return { result: undefined };
    });
  }

  /** Waits for queued writes to commit, ends every watch and closes the database file. */
  /** Whether each commit is fsynced before it is acknowledged. */
  fsyncsCommits(): boolean {
    return this.fsyncCommits;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.queue.length > 0 || this.syncing) await new Promise<void>((resolve) => this.flushed.push(resolve));
    this.closed = true;
    this.watchers.closeAll(new StorageUnavailableError('embedded store is closed'));
    try {
      this.db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      this.db.close();
      if (this.walFd !== undefined) closeSync(this.walFd);
    }
    this.log?.info('embedded store closed');
  }

  private assertOpen(): void {
    if (this.closed) throw new StorageUnavailableError('embedded store is closed');
  }

  /** The revision a read runs at: 0/undefined -> current; checked against compaction and the future. */
  private readRevision(revision: number | undefined): number {
    this.assertOpen();
    if (!revision) return this.rev;
    if (revision > this.rev) throw new FutureRevisionError(revision, this.rev);
    if (revision < this.compacted) throw new CompactedError(revision, this.compacted);
    return revision;
  }

  /** Queue a write for the next group commit; `run` gets the revision the write would commit at. */
  private enqueue<T>(run: (rev: number) => { result: T; event?: KVEvent }): Promise<T> {
    if (this.closed) return Promise.reject(new StorageUnavailableError('embedded store is closed'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        run,
        resolve: resolve as (r: unknown) => void,
        reject,
      });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate (not a microtask) so writes arriving during the same I/O phase share a commit.
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Run every queued write in one transaction; once it is on disk, settle the promises and fan out
   * the events. While the previous group is being fsynced this waits: that group's end runs it.
   */
  private flush(): void {
    this.flushScheduled = false;
    if (this.syncing) return;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: boolean; value: unknown }> = new Array(batch.length);
    const events: KVEvent[] = [];
    let rev = this.rev;
    const compactedBefore = this.compacted;
    try {
      this.db.transaction(() => {
        for (let i = 0; i < batch.length; i++) {
          const op = batch[i]!;
          try {
            // A write checks its preconditions before touching any row, so a typed failure leaves
            // nothing behind and the rest of the batch proceeds.
            const { result, event } = op.run(rev + 1);
            if (event) {
              rev = event.modRevision;
              events.push(event);
            }
            outcomes[i] = { ok: true, value: result };
          } catch (err) {
            if (!isTypedStoreError(err)) throw err;
            outcomes[i] = { ok: false, value: err };
          }
        }
        if (rev !== this.rev) this.stmt.setMeta.run(rev, 'revision');
      })();
    } catch (err) {
      this.compacted = compactedBefore;
      this.log?.error({ err, writes: batch.length }, 'embedded store commit failed');
      const failure = new StorageUnavailableError(`embedded store commit failed: ${(err as Error).message}`);
      for (const op of batch) op.reject(failure);
      this.settleFlushed();
      return;
    }
    const acknowledge = (failure?: Error) => {
      this.rev = rev;
      this.watchers.dispatch(events);
      for (let i = 0; i < batch.length; i++) {
        const o = outcomes[i]!;
        if (failure && o.ok) batch[i]!.reject(failure);
        else if (o.ok) batch[i]!.resolve(o.value);
        else batch[i]!.reject(o.value as Error);
      }
      this.settleFlushed();
    };
    if (!this.fsyncCommits || events.length === 0) return acknowledge();
    this.syncing = true;
    this.syncWal().then(
      () => this.synced(acknowledge),
      (err: unknown) => {
        // The group is in the database (visible from now on, so watchers get its events and no
        // revision is skipped) but not known to be on disk: its writers hear a failure, not a success.
        this.log?.error({ err, writes: batch.length }, 'embedded store fsync failed');
        this.synced(() => acknowledge(new StorageUnavailableError(`embedded store fsync failed, the write may or may not be stored: ${(err as Error).message}`)));
      },
    );
  }

  private synced(acknowledge: () => void): void {
    this.syncing = false;
    acknowledge();
    if (this.queue.length > 0 && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Fsyncs the WAL (opened at the first commit; the directory fsynced once then, for its entry). */
  private async syncWal(): Promise<void> {
    if (this.walFd === undefined) {
      this.walFd = openSync(join(this.dir, 'svc.db-wal'), 'r+');
      const dirFd = openSync(this.dir, 'r');
      try {
        await this.fsyncFile(dirFd);
      } finally {
        closeSync(dirFd);
      }
    }
    await this.fsyncFile(this.walFd);
  }

  private settleFlushed(): void {
    if (this.queue.length > 0 || this.syncing || this.flushed.length === 0) return;
    const waiters = this.flushed;
    this.flushed = [];
    for (const w of waiters) w();
  }
}

function isTypedStoreError(err: unknown): boolean {
  return (
    err instanceof KeyExistsError ||
    err instanceof KeyNotFoundError ||
    err instanceof ConflictError ||
    err instanceof FutureRevisionError
  );
}

function latestToRecord(row: LatestRow): KVRecord {
  return { key: row.key, value: row.value, createRevision: row.create_rev, modRevision: row.rev };
}

function historyToEvent(row: HistoryRow): KVEvent {
  const prevValue = row.prev_value ?? undefined;
  if (row.deleted) {
    return {
      type: 'delete',
      key: row.key,
      value: prevValue ?? Buffer.alloc(0),
      prevValue,
      modRevision: row.rev,
      createRevision: row.create_rev,
      prevModRevision: row.prev_rev,
    };
  }
  return {
    type: 'put',
    key: row.key,
    value: row.value!,
    prevValue,
    modRevision: row.rev,
    createRevision: row.create_rev,
    prevModRevision: row.prev_rev,
  };
}

/** Open (or create) the embedded store in `opts.dir`. */
export function openEmbeddedStore(opts: EmbeddedStoreOptions): EmbeddedStore {
  return new EmbeddedStore(opts);
}
