/**
 * klog-style logging flags mapped onto pino.
 *
 * Mapping (klog -> pino):
 * - `-v N`: the root logger's level. 0-3 -> `info`, 4-5 -> `debug`, 6 and above -> `trace`
 *   (klog's V(0..3) are operator-facing messages, V(4..5) debugging, V(6+) request/trace detail).
 * - `--vmodule pattern=N,...`: a child made with `logger.child({ module: 'name' })` takes the level
 *   of the first pattern (glob, `*` and `?`) that matches its module name, mapped as for `-v`.
 * - `--stderrthreshold`: INFO -> info, WARNING -> warn, ERROR -> error, FATAL -> fatal.
 * - `--logtostderr` (default true): every record goes to standard error and no file is written.
 *   When false, records go to `--log-file`, else `<--log-dir>/<component>.log`, else
 *   `<tmpdir>/<component>.log`; records at or above --stderrthreshold also go to standard error,
 *   and with `--alsologtostderr` all of them do.
 * - `--log-file-max-size` MB: when a write would pass it the file is renamed to `<file>.1`
 *   (replacing an older `.1`) and a new file is started. 0 is unlimited.
 * - `--log-flush-frequency`: file writes are buffered and flushed at least this often (and when
 *   64 KiB are pending, and on flush/close). Standard error is written synchronously.
 * - Headers: klog's line header is severity, time, pid and file:line. In pino those are the
 *   `level`, `time`, `pid` and `hostname` fields. `--skip-headers` drops `time`, `pid` and
 *   `hostname` (never `level`). Capturing file:line costs a stack trace per record, so it is off by
 *   default; `--add-dir-header` turns it on as a `caller` field holding the full path
 *   (`/dir/file.ts:12`). `--skip-log-headers` drops the first "log file created" record written
 *   whenever a log file is opened.
 * - `--log-backtrace-at file:N`: when a record is logged from a call site whose file base name
 *   (as shown in stack traces: `.ts` under --enable-source-maps, else `.js`) and line match, the
 *   record gets a `backtrace` field. Limit: only call sites of pino's level methods are seen.
 */
import { closeSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import pino from 'pino';
import pinoPretty from 'pino-pretty';
import type { Level, Logger, StreamEntry } from 'pino';
import type { ModuleVerbosity, Severity, TraceLocation } from './flag-types.js';

export interface LoggingOptions {
  /** -v; default 0. */
  verbosity: number;
  /** --vmodule; default none. */
  vmodule: ModuleVerbosity[];
  /** --logtostderr; default true. */
  logToStderr: boolean;
  /** --alsologtostderr; default false. */
  alsoLogToStderr: boolean;
  /** --log-file; wins over logDir. */
  logFile?: string;
  /** --log-dir; the file is `<component>.log` inside it. */
  logDir?: string;
  /** --log-file-max-size in MB; default 1800; 0 unlimited. */
  logFileMaxSizeMB: number;
  /** Overrides logFileMaxSizeMB in bytes (tests use tiny sizes). */
  logFileMaxSizeBytes?: number;
  /** --log-flush-frequency; default 5000. */
  flushFrequencyMs: number;
  /** --skip-headers. */
  skipHeaders: boolean;
  /** --skip-log-headers. */
  skipLogHeaders: boolean;
  /** --add-dir-header. */
  addDirHeader: boolean;
  /** --stderrthreshold; default ERROR. */
  stderrThreshold: Severity;
  /** --log-backtrace-at; undefined is off (`:0`). */
  backtraceAt?: TraceLocation;
  /** Where standard-error output goes; default fd 2. Tests pass a collector. */
  stderr?: { write(chunk: string): unknown };
  /**
   * --logging-format: `text` short human lines, `json` pino JSON lines, `auto` (default) text when
   * standard error is a terminal, else JSON. Log files are JSON whatever this says.
   */
  format?: 'auto' | 'text' | 'json';
}

/** Whether standard-error lines are for a person (text) rather than a program (JSON). */
export function humanLogs(o: Pick<LoggingOptions, 'format' | 'stderr'>, isTTY = process.stderr.isTTY === true): boolean {
  if (o.stderr) return o.format === 'text';
  return o.format === 'text' || ((o.format ?? 'auto') === 'auto' && isTTY);
}

/**
 * Standard error as short human lines: time, level, component (and module), message, then the
 * record's other fields on the same line. pino-pretty, written synchronously like the JSON sink.
 */
function humanStderr(colorize: boolean): { write(chunk: string): unknown } {
  return pinoPretty({
    destination: 2,
    sync: true,
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,component,module',
    messageFormat: '{component}{if module}/{module}{end}: {msg}',
  });
}

export function defaultLoggingOptions(): LoggingOptions {
  return {
    verbosity: 0,
    vmodule: [],
    logToStderr: true,
    alsoLogToStderr: false,
    logFileMaxSizeMB: 1800,
    flushFrequencyMs: 5000,
    skipHeaders: false,
    skipLogHeaders: false,
    addDirHeader: false,
    stderrThreshold: 'ERROR',
  };
}

/** klog verbosity -> pino level. */
export function verbosityToPinoLevel(v: number): Level {
  if (v >= 6) return 'trace';
  if (v >= 4) return 'debug';
  return 'info';
}

const SEVERITY_LEVEL: Record<Severity, Level> = { INFO: 'info', WARNING: 'warn', ERROR: 'error', FATAL: 'fatal' };

export function severityToPinoLevel(s: Severity): Level {
  return SEVERITY_LEVEL[s];
}

/** Returns the -v level a module gets from --vmodule, or undefined when no pattern matches. */
export function moduleVerbosity(vmodule: ModuleVerbosity[], module: string): number | undefined {
  for (const { pattern, level } of vmodule) {
    const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    if (re.test(module)) return level;
  }
  return undefined;
}

const FLUSH_AT_BYTES = 64 * 1024;

/** A buffered log file that renames itself to `<path>.1` when it would pass `maxBytes`. */
export class RotatingFileSink {
  private fd: number;
  private size: number;
  private pending: string[] = [];
  private pendingBytes = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly maxBytes: number,
    private readonly openHeader: (() => string) | undefined,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
    this.size = statSync(path).size;
    if (this.size === 0) this.writeHeader();
  }

  write(chunk: string): void {
    if (this.closed) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= FLUSH_AT_BYTES) this.flush();
  }

  flush(): void {
    if (this.closed) return;
    const chunks = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const chunk of chunks) {
      const bytes = Buffer.byteLength(chunk);
      if (this.maxBytes > 0 && this.size > 0 && this.size + bytes > this.maxBytes) this.rotate();
      writeSync(this.fd, chunk);
      this.size += bytes;
    }
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }

  private rotate(): void {
    closeSync(this.fd);
    renameSync(this.path, `${this.path}.1`);
    this.fd = openSync(this.path, 'a');
    this.size = 0;
    this.writeHeader();
  }

  private writeHeader(): void {
    if (!this.openHeader) return;
    const line = this.openHeader();
    writeSync(this.fd, line);
    this.size += Buffer.byteLength(line);
  }
}

interface LoggerSinks {
  files: RotatingFileSink[];
  stderr?: { flushSync(): void; end?(): void };
  timer?: ReturnType<typeof setInterval>;
  closed: boolean;
}

const sinksOf = new WeakMap<Logger, LoggerSinks>();

/** The path of the log file for these options, or undefined when logging only to stderr. */
export function logFilePath(component: string, o: LoggingOptions): string | undefined {
  if (o.logToStderr) return undefined;
  if (o.logFile) return o.logFile;
  return join(o.logDir || tmpdir(), `${component}.log`);
}

/** Builds the root logger of one component from its resolved logging flags. */
export function createLogger(component: string, o: LoggingOptions): Logger {
  const sinks: LoggerSinks = { files: [], closed: false };
  let stderr: { write(chunk: string): unknown };
  if (o.stderr) {
    stderr = o.stderr;
  } else if (humanLogs(o)) {
    stderr = humanStderr(process.stderr.isTTY === true);
  } else {
    const boom = pino.destination({ fd: 2, sync: true });
    sinks.stderr = boom;
    stderr = boom;
  }

  const streams: StreamEntry[] = [];
  const path = logFilePath(component, o);
  if (path === undefined) {
    streams.push({ level: 'trace', stream: stderr });
  } else {
    const maxBytes = o.logFileMaxSizeBytes ?? o.logFileMaxSizeMB * 1024 * 1024;
    const header = o.skipLogHeaders
      ? undefined
      : () =>
          `${JSON.stringify({
            level: 30,
            time: Date.now(),
            msg: 'log file created',
            component,
            host: hostname(),
            pid: process.pid,
            binary: process.argv[1] ?? process.argv0,
            format: 'pino JSON lines',
          })}\n`;
    const file = new RotatingFileSink(path, maxBytes, header);
    sinks.files.push(file);
    streams.push({ level: 'trace', stream: file });
    streams.push({ level: o.alsoLogToStderr ? 'trace' : severityToPinoLevel(o.stderrThreshold), stream: stderr });
    sinks.timer = setInterval(() => {
      for (const f of sinks.files) f.flush();
    }, Math.max(1, o.flushFrequencyMs));
    sinks.timer.unref();
  }

  const needCaller = o.addDirHeader || o.backtraceAt !== undefined;
  const vmodule = o.vmodule;
  const logger = pino(
    {
      level: verbosityToPinoLevel(o.verbosity),
      base: o.skipHeaders ? { component } : { pid: process.pid, hostname: hostname(), component },
      timestamp: !o.skipHeaders,
      mixin: needCaller ? () => callerFields(o) : undefined,
      onChild: (child) => {
        const mod = child.bindings()['module'];
        if (typeof mod !== 'string' || vmodule.length === 0) return;
        const v = moduleVerbosity(vmodule, mod);
        if (v !== undefined) child.level = verbosityToPinoLevel(v);
      },
    },
    pino.multistream(streams),
  );
  sinksOf.set(logger, sinks);
  return logger;
}

/** Writes out buffered file output (and sonic-boom's stderr buffer). */
export function flushLogger(logger: Logger): void {
  const sinks = sinksOf.get(logger);
  if (!sinks || sinks.closed) return;
  for (const f of sinks.files) f.flush();
  try {
    sinks.stderr?.flushSync();
  } catch {
    // A closed or non-blocking stderr cannot be flushed synchronously; nothing else to do.
  }
}

/** Flushes, stops the flush timer and closes log files. Later records to files are dropped. */
export function closeLogger(logger: Logger): void {
  const sinks = sinksOf.get(logger);
  if (!sinks || sinks.closed) return;
  flushLogger(logger);
  sinks.closed = true;
  if (sinks.timer) clearInterval(sinks.timer);
  for (const f of sinks.files) f.close();
}

// ---------------------------------------------------------------------------------------------
// call-site capture for --add-dir-header and --log-backtrace-at

const FRAME = /\(?((?:file:\/\/)?[^\s()]+):(\d+):\d+\)?$/;

interface CallSite {
  file: string;
  line: number;
  frames: string[];
}

function findCallSite(): CallSite | undefined {
  const lines = (new Error().stack ?? '').split('\n').slice(1);
  for (let i = 0; i < lines.length; i++) {
    const frame = (lines[i] as string).trim();
    if (frame.includes('/node_modules/pino/') || /\/cli\/logging\.[jt]s:\d+/.test(frame) || frame.includes('node:')) continue;
    const m = FRAME.exec(frame);
    if (!m) continue;
    const file = (m[1] as string).replace(/^file:\/\//, '');
    return { file, line: Number(m[2]), frames: lines.slice(i).map((l) => l.trim()) };
  }
  return undefined;
}

function callerFields(o: LoggingOptions): Record<string, unknown> {
  const site = findCallSite();
  if (!site) return {};
  const out: Record<string, unknown> = {};
  if (o.addDirHeader) out['caller'] = `${site.file}:${site.line}`;
  const at = o.backtraceAt;
  if (at && at.line === site.line && (basename(site.file) === at.file || site.file.endsWith(`/${at.file}`))) {
    out['backtrace'] = site.frames.join('\n');
  }
  return out;
}
