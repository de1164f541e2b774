/**
 * What a simulated container prints, and how its log is cut as the established node agent's
 * `containerLogs` endpoint cuts it. Pure (times in, text out), so the rules are unit-tested here and
 * the endpoint (svclet-server.ts) only picks the run and streams.
 *
 * A container's output, per start ("run"):
 *   - at its start, the lines of the pod's `sim.svc.io/log` annotation, or one default line naming
 *     the container, its image, its pod and which start it is;
 *   - with `sim.svc.io/log-every-seconds: N`, one more line every N seconds while it runs
 *     (`sim.svc.io/log-line`, `{n}` its count from 1; default `tick {n}`).
 * Every line carries the time it was printed, so `sinceSeconds`/`sinceTime` and `timestamps` mean
 * what they mean on a real node. The order of the cuts is the established one: lines since the
 * given time, then the last `tailLines` of those, then at most `limitBytes` bytes of the text
 * (timestamps included; a cut may end mid-line).
 */
import type { PodBehaviour } from './sim-annotations.js';

/** One start of one container: what it prints depends only on this and the pod's behaviour. */
export interface ContainerRun {
  namespace: string;
  pod: string;
  container: string;
  image: string;
  /** 0 for the first start, one more per restart (the container's restartCount while it runs). */
  restart: number;
  startedAt: number;
  /** When it exited; undefined while it runs. */
  finishedAt: number | undefined;
}

export type LogBehaviour = Pick<PodBehaviour, 'logLines' | 'logEveryMs' | 'logLine'>;

export interface LogLine {
  at: number;
  text: string;
}

/** The cuts a log request asks for (PodLogOptions, already validated). */
export interface LogCuts {
  /** Only lines printed at or after this time (from sinceSeconds or sinceTime). */
  sinceMs?: number;
  tailLines?: number;
  timestamps?: boolean;
  limitBytes?: number;
}

/** The default line printed at each start when the pod has no `sim.svc.io/log`. */
export function defaultStartLine(run: ContainerRun): string {
  return `svc simulated container ${run.container} started (image ${run.image}, pod ${run.namespace}/${run.pod}, start ${run.restart + 1})`;
}

/** How many lines the run has printed by `upTo` (inclusive). */
export function lineCount(run: ContainerRun, b: LogBehaviour, upTo: number): number {
  if (upTo < run.startedAt) return 0;
  const starting = b.logLines?.length ?? 1;
  if (b.logEveryMs === undefined) return starting;
  const end = run.finishedAt === undefined ? upTo : Math.min(upTo, run.finishedAt);
  return starting + Math.max(0, Math.floor((end - run.startedAt) / b.logEveryMs));
}

/** Line `i` of the run (0-based; the caller keeps `i` below lineCount). */
export function lineAt(run: ContainerRun, b: LogBehaviour, i: number): LogLine {
  const starting = b.logLines ?? [defaultStartLine(run)];
  if (i < starting.length) return { at: run.startedAt, text: starting[i]! };
  const n = i - starting.length + 1;
  return { at: run.startedAt + n * (b.logEveryMs ?? 0), text: b.logLine.replaceAll('{n}', String(n)) };
}

/** The first line index at or after `sinceMs`. */
function firstSince(run: ContainerRun, b: LogBehaviour, sinceMs: number | undefined, count: number): number {
  if (sinceMs === undefined || sinceMs <= run.startedAt) return 0;
  const starting = b.logLines?.length ?? 1;
  if (b.logEveryMs === undefined) return count;
  const n = Math.ceil((sinceMs - run.startedAt) / b.logEveryMs);
  return Math.min(count, starting + Math.max(0, n - 1));
}

/** The indexes [from, to) of the lines a request for the log as of `now` gets, after `sinceMs` and `tailLines`. */
export function selectLines(run: ContainerRun, b: LogBehaviour, cuts: LogCuts, now: number): { from: number; to: number } {
  const to = lineCount(run, b, now);
  let from = firstSince(run, b, cuts.sinceMs, to);
  if (cuts.tailLines !== undefined) from = Math.max(from, to - cuts.tailLines);
  return { from, to };
}

/** Go's time.RFC3339Nano of a millisecond time: the fraction without trailing zeros, none when zero. */
export function logTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

/** One line as the endpoint writes it. */
export function formatLine(line: LogLine, timestamps: boolean | undefined): string {
  return timestamps ? `${logTimestamp(line.at)} ${line.text}\n` : `${line.text}\n`;
}

/** The whole answer to a (non-follow) log request as of `now`, cuts applied. */
export function renderLog(run: ContainerRun, b: LogBehaviour, cuts: LogCuts, now: number): string {
  const { from, to } = selectLines(run, b, cuts, now);
  let out = '';
  for (let i = from; i < to; i++) {
    out += formatLine(lineAt(run, b, i), cuts.timestamps);
    if (cuts.limitBytes !== undefined && Buffer.byteLength(out) >= cuts.limitBytes) break;
  }
  return limitBytes(out, cuts.limitBytes);
}

/** `text` cut to at most `limit` bytes (UTF-8), as a byte-counting writer would cut it. */
export function limitBytes(text: string, limit: number | undefined): string {
  if (limit === undefined) return text;
  const buf = Buffer.from(text);
  return buf.length <= limit ? text : buf.subarray(0, limit).toString('utf8');
}

/**
 * PodLogOptions from a containerLogs query, as the established node agent reads them; a bad value
 * gives the message for a 400.
 */
export function parseLogQuery(query: URLSearchParams, now: number): { follow: boolean; previous: boolean; cuts: LogCuts } | { error: string } {
  const bool = (k: string) => query.get(k) === 'true' || query.get(k) === '1';
  const int = (k: string, min: number): number | undefined | { error: string } => {
    const raw = query.get(k);
    if (raw === null || raw === '') return undefined;
    if (!/^-?\d+$/.test(raw) || Number(raw) < min) return { error: `${k}: Invalid value: "${raw}": must be ${min === 0 ? 'greater than or equal to 0' : 'greater than 0'}` };
    return Number(raw);
  };
  const tail = int('tailLines', 0);
  const limit = int('limitBytes', 1);
  const sinceSeconds = int('sinceSeconds', 1);
  for (const v of [tail, limit, sinceSeconds]) if (typeof v === 'object') return v;
  const sinceTimeRaw = query.get('sinceTime');
  let sinceMs: number | undefined;
  if (sinceTimeRaw) {
    if (sinceSeconds !== undefined) return { error: 'at most one of `sinceTime` or `sinceSeconds` may be specified' };
    const t = Date.parse(sinceTimeRaw);
    if (!/^\d{4}-\d\d-\d\dT/.test(sinceTimeRaw) || Number.isNaN(t)) return { error: `sinceTime: Invalid value: "${sinceTimeRaw}": must be an RFC 3339 time` };
    sinceMs = t;
  } else if (typeof sinceSeconds === 'number') sinceMs = now - sinceSeconds * 1000;
  return {
    follow: bool('follow'),
    previous: bool('previous'),
    cuts: {
      ...(sinceMs !== undefined ? { sinceMs } : {}),
      ...(typeof tail === 'number' ? { tailLines: tail } : {}),
      ...(typeof limit === 'number' ? { limitBytes: limit } : {}),
      timestamps: bool('timestamps'),
    },
  };
}
