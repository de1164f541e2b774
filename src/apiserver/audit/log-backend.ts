/**
 * The audit log backend (--audit-log-path, `-` for standard output): one line per event, JSON (an
 * `audit.svc.io/v1` Event) or the legacy text line, with the established file rules of its
 * rotating writer (lumberjack):
 *
 * - the file is created with mode 0600 (its folder 0700 when missing) and appended to;
 * - before a write that would take it past --audit-log-maxsize MB (100 MB when 0 or unset) it is
 *   renamed to `<name>-<UTC time as 2006-01-02T15-04-05.000><ext>` and a new file is started; a
 *   single event larger than the limit is refused (`write length N exceeds maximum file size M`);
 * - after a rotation, backups beyond --audit-log-maxbackup (0: all kept) and older than
 *   --audit-log-maxage days (0: no limit), by the time in their name, are removed.
 *
 * Lines are group-committed: those that arrive while a write is under way go together in the
 * next asynchronous `write(2)` (fewer system calls, and the event loop never waits on the disk);
 * the promise `processEvents` returns settles once the write carrying its lines has returned, so
 * the lines are in the kernel and a `kill -9` of the server cannot lose them (the established
 * backend does not fsync either; a machine crash may lose the page cache's last writes). The
 * pipeline relies on this in the blocking modes: a response is released only after its
 * ResponseComplete line is written. A rotation under load loses nothing: the rename and the reopen
 * happen between two whole writes.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, renameSync, unlinkSync, write } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { Logger } from 'pino';
import type { AuditBackend } from './backend.js';
import { type AuditEvent, encodeEventJson, encodeEventLegacy } from './event.js';

export interface LogBackendOptions {
  /** A file path, or `-` for standard output. */
  path: string;
  format: 'json' | 'legacy';
  apiVersion: string;
  /** Days; 0: no limit. */
  maxAgeDays: number;
  /** 0: keep every backup. */
  maxBackups: number;
  /** MB; 0: 100 (the established writer's default). */
  maxSizeMB: number;
}

const MB = 1024 * 1024;
const DEFAULT_MAX_SIZE_MB = 100;

/** Creates the log file (and its folder) at start, so a path that cannot be written stops the server. */
export function ensureLogFile(path: string): void {
  if (path === '-') return;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, 'a', 0o600));
}

/** The backup name of a rotated file at `ms` (UTC): `audit-2026-01-02T15-04-05.000.log`. */
export function backupName(path: string, ms: number): string {
  const ext = extname(path);
  const prefix = basename(path, ext);
  const t = new Date(ms).toISOString().slice(0, 23).replace(/:/g, '-');
  return join(dirname(path), `${prefix}-${t}${ext}`);
}

/** A backup's time from its name, or undefined when the name is not one of ours. */
export function backupTime(path: string, file: string): number | undefined {
  const ext = extname(path);
  const prefix = `${basename(path, ext)}-`;
  if (!file.startsWith(prefix) || !file.endsWith(ext)) return undefined;
  const t = file.slice(prefix.length, file.length - ext.length);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/.exec(t);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`);
  return Number.isNaN(ms) ? undefined : ms;
}

interface QueuedLine {
  buf: Buffer;
  done: (ok: boolean) => void;
}

/** write(2) until every byte is in the kernel. */
function writeAll(fd: number, buf: Buffer, cb: (err: NodeJS.ErrnoException | null) => void, off = 0): void {
  write(fd, buf, off, buf.length - off, null, (err, n) => {
    if (err) return cb(err);
    if (off + n < buf.length) return writeAll(fd, buf, cb, off + n);
    cb(null);
  });
}

export class LogBackend implements AuditBackend {
  private fd: number | undefined;
  private size = 0;
  private readonly queue: QueuedLine[] = [];
  private busy = false;
  private readonly idle: (() => void)[] = [];
  private readonly maxBytes: number;
  private lastBackupMs = 0;

  constructor(
    private readonly opts: LogBackendOptions,
    private readonly logger: Logger,
  ) {
    this.maxBytes = (opts.maxSizeMB > 0 ? opts.maxSizeMB : DEFAULT_MAX_SIZE_MB) * MB;
  }

  processEvents(events: readonly AuditEvent[]): boolean | Promise<boolean> {
    const lines = events.map((ev) => Buffer.from(`${this.opts.format === 'legacy' ? encodeEventLegacy(ev) : encodeEventJson(ev, this.opts.apiVersion)}\n`));
    if (this.opts.path === '-') {
      try {
        process.stdout.write(lines.length === 1 ? lines[0]! : Buffer.concat(lines));
        return true;
      } catch (err) {
        this.logger.error({ err, path: '-', events: events.length }, 'could not write audit events');
        return false;
      }
    }
    const written = lines.map((buf) => new Promise<boolean>((done) => this.queue.push({ buf, done })));
    if (!this.busy) this.drain();
    return written.length === 1 ? written[0]! : Promise.all(written).then((all) => all.every(Boolean));
  }

  /**
   * Group commit: the lines queued while a write was under way go together in the next one (in
   * the order they came), each line's promise settled when the write that carried it returned.
   * Rotation happens between two writes, never inside one.
   */
  private drain(): void {
    if (this.queue.length === 0) {
      this.busy = false;
      for (const w of this.idle.splice(0)) w();
      return;
    }
    this.busy = true;
    let batch: QueuedLine[];
    let bytes = 0;
    try {
      const first = this.queue[0]!;
      if (first.buf.length > this.maxBytes) {
        this.queue.shift();
        this.logger.error({ path: this.opts.path, bytes: first.buf.length }, `could not write an audit event: write length ${first.buf.length} exceeds maximum file size ${this.maxBytes}`);
        first.done(false);
        this.drain();
        return;
      }
      if (this.fd === undefined) this.open();
      if (this.size + first.buf.length > this.maxBytes) this.rotate();
      let n = 0;
      while (n < this.queue.length && this.size + bytes + this.queue[n]!.buf.length <= this.maxBytes) bytes += this.queue[n++]!.buf.length;
      batch = this.queue.splice(0, n);
    } catch (err) {
      this.logger.error({ err, path: this.opts.path, events: this.queue.length }, 'could not write audit events');
      for (const q of this.queue.splice(0)) q.done(false);
      this.drain();
      return;
    }
    const buf = batch.length === 1 ? batch[0]!.buf : Buffer.concat(batch.map((b) => b.buf), bytes);
    this.size += buf.length;
    writeAll(this.fd!, buf, (err) => {
      if (err) this.logger.error({ err, path: this.opts.path, events: batch.length }, 'could not write audit events');
      for (const b of batch) b.done(!err);
      this.drain();
    });
  }

  private open(): void {
    mkdirSync(dirname(this.opts.path), { recursive: true, mode: 0o700 });
    this.fd = openSync(this.opts.path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private rotate(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    // Two rotations in one millisecond must not give the same name (the second would overwrite the first).
    let ms = Math.max(Date.now(), this.lastBackupMs + 1);
    while (existsSync(backupName(this.opts.path, ms))) ms++;
    this.lastBackupMs = ms;
    if (existsSync(this.opts.path)) renameSync(this.opts.path, backupName(this.opts.path, ms));
    this.open();
    this.removeOldBackups();
  }

  private removeOldBackups(): void {
    const { maxBackups, maxAgeDays } = this.opts;
    if (maxBackups <= 0 && maxAgeDays <= 0) return;
    try {
      const dir = dirname(this.opts.path);
      const backups = readdirSync(dir)
        .map((f) => ({ f, t: backupTime(this.opts.path, f) }))
        .filter((b): b is { f: string; t: number } => b.t !== undefined)
        .sort((a, b) => b.t - a.t);
      const cutoff = maxAgeDays > 0 ? Date.now() - maxAgeDays * 24 * 3600 * 1000 : -Infinity;
      backups.forEach((b, i) => {
        if ((maxBackups > 0 && i >= maxBackups) || b.t < cutoff) unlinkSync(join(dir, b.f));
      });
    } catch (err) {
      this.logger.warn({ err, path: this.opts.path }, 'could not remove old audit log files');
    }
  }

  async shutdown(): Promise<void> {
    if (this.busy) await new Promise<void>((r) => this.idle.push(r));
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
