/**
 * Gives memory back once a burst of load ends. Response bodies and TLS records are Buffers outside
 * V8's heap, freed only when a garbage collection finds them dead; V8 collects when JavaScript
 * allocates, so when an overload stops and the server goes quiet, gigabytes of dead Buffers stay
 * resident (measured: 2.2 GiB of `external` memory still held 20 s after a 2x in-flight overload).
 *
 * V8's own heap likewise stays as large as the burst made it (measured: 83 MiB total, 43 MiB used,
 * 60 s after a 2x in-flight overload; a full collection brought it back to 32 MiB).
 *
 * Contract: every `intervalMs` (unref'd timer) it reads `process.memoryUsage()`. A reading is
 * settled when neither external nor heapUsed grew by `quietBytes` since the previous one
 * (allocation has stopped: the burst is over; a drop is a collection V8 made by itself, which it
 * keeps making for a while after a burst, and must not count as activity). When `external` is
 * `thresholdBytes` above what the last full collection left, or V8's heap holds `heapSlackBytes`
 * more unused space (heapTotal - heapUsed) than the last full collection left, at the second
 * settled reading in a row it runs one full GC. Under steady load they keep moving, so it never adds a collection to V8's own;
 * once idle it collects at most once per burst (the slack is gone after the collection).
 * Process-wide: start it once per process (the daemons' entry points do).
 *
 * Resident memory `residentGrowthBytes` above its size at rest (after the last such reclaim) is a
 * burst too, once the process has been settled for five readings in a row: closed connections'
 * TLS state lives in glibc's heap, not V8's, and is freed only when a collection finds their
 * sockets dead. That collection is made once per quiet period. At each of the next five settled
 * readings after any collection it asks the C allocator to give its free pages back
 * (./native-heap.ts: glibc keeps the freed TLS state and small Buffers of a burst resident
 * otherwise; finalizers free them over several seconds), and at further readings while a trim
 * releases 16 MiB or more. Where there is no glibc it only collects.
 * `memoryReleased()` asks for one more collection and trim at the next settled reading.
 */
import type { Logger } from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nativeAllocator, nativeHeapTrimmer, type NativeHeapTrimmer } from './native-heap.js';

export interface MemoryReclaimerOptions {
  intervalMs?: number;
  thresholdBytes?: number;
  quietBytes?: number;
  heapSlackBytes?: number;
  /** Resident memory above its size at rest that counts as a burst once the process is quiet (default 16 MiB). */
  residentGrowthBytes?: number;
  logger?: Logger;
  /** The C allocator's trim; default: jemalloc's purge or glibc's trim, whichever runs (undefined: never trims). */
  trimmer?: NativeHeapTrimmer | undefined;
  /** Where readings come from (default process.memoryUsage; injected in tests). */
  memoryUsage?: () => NodeJS.MemoryUsage;
}

/** V8's `gc` (exposed at run time when node did not get --expose-gc: no node flag needed). */
type ExposedGc = (options?: { type?: 'major' | 'minor'; execution?: 'sync' | 'async' }) => void;

/**
 * A full collection: `gc()` with no options (V8's full mark-compact). Not `gc({ type: 'major' })`:
 * on Node 20.20 that call took 2-3 ms on a server's 80 MiB heap and left old garbage in place (a
 * 300,000-object array stayed at 117 MiB after it, and went to 3 MiB with `gc()`). V8 shrinks its
 * young generation (128 MiB after a burst with the launchers' 64 MiB semi-space) at a collection
 * made once allocation has slowed: measured, a `gc()` 9 s after a burst took the heap from 132 to
 * 5 MiB and RSS from 175 to 48 MiB, which the quiet-period collection below is.
 */
function fullGc(): () => void {
  let exposed = (globalThis as { gc?: ExposedGc }).gc;
  if (!exposed) {
    setFlagsFromString('--expose-gc');
    exposed = runInNewContext('gc') as ExposedGc;
  }
  const gc = exposed;
  return () => gc();
}

/**
 * Set by `memoryReleased()`: something let go of much memory while the process is quiet (sessions
 * of clients that had gone, ended after the quiet period's reclaim), so the next settled reading
 * collects and trims once more.
 */
let releasedWhileQuiet = false;

/** Tells the reclaimer (if one runs in this process) that much memory has just become garbage. */
export function memoryReleased(): void {
  releasedWhileQuiet = true;
}

/**
 * Trims after a collection, one per settled reading: what it found dead is freed by finalizers
 * over the next seconds (measured: after a round with 1,400 connections, a trim 60 s later still
 * gave back 29 MiB that the trim just after the collection had not found free).
 */
const TRIMS_AFTER_COLLECTION = 5;

/**
 * Collections after the first, one per settled reading: one always, more while each still frees `quietBytes`: a
 * collection finds a closed socket's JavaScript object dead, and only its native part's weak
 * callback, after that collection, lets go of what the native part held (its parser, buffers,
 * context), which the next collection frees. Measured after 53,000 GETs and LISTs on 600
 * connections: one collection left 89 MiB of heap used; the several collections a heap snapshot
 * makes left 31 MiB.
 */
const MAX_FOLLOW_UP_COLLECTIONS = 4;

/** A trim that gave back this much is followed by another at the next reading. */
const RELEASED_MUCH = 16 * 2 ** 20;
/** Settled readings in a row before resident growth alone counts as a burst that ended. */
const QUIET_READINGS = 5;

export function startMemoryReclaimer(opts: MemoryReclaimerOptions = {}): { stop(): void } {
  const intervalMs = opts.intervalMs ?? 2_000;
  const threshold = opts.thresholdBytes ?? 64 * 2 ** 20;
  const quiet = opts.quietBytes ?? 4 * 2 ** 20;
  const heapSlack = opts.heapSlackBytes ?? 24 * 2 ** 20;
  const residentGrowth = opts.residentGrowthBytes ?? 16 * 2 ** 20;
  const gc = fullGc();
  const memoryUsage = opts.memoryUsage ?? (() => process.memoryUsage());
  let start = memoryUsage();
  let afterGc = start.external;
  let slackAfterGc = start.heapTotal - start.heapUsed;
  let previous = { external: start.external, heapUsed: start.heapUsed };
  const trimmer = 'trimmer' in opts ? opts.trimmer : nativeHeapTrimmer();
  if (!('trimmer' in opts)) {
    const allocator = nativeAllocator();
    if (allocator === 'glibc') {
      opts.logger?.warn({ allocator, trims: trimmer !== undefined }, 'running on glibc malloc: memory freed after a burst of load can stay resident; install libjemalloc2 and start the daemon from its launcher (docs/running.md)');
    } else opts.logger?.info({ allocator, trims: trimmer !== undefined }, 'native allocator');
  }
  /**
   * Resident size after the last quiet reclaim: what the process holds at rest. Only a reclaim made
   * after QUIET_READINGS settled readings sets it; one made in a lull of a burst would set it at
   * the burst's level, and the burst's end would then look like no growth.
   */
  let rssAtRest = start.rss;
  let quietReadings = 0;
  let reclaimedThisQuiet = false;
  /** Trims still due, one per settled reading (after a collection, and while trims keep releasing). */
  let trimsDue = 0;
  /** Further collections in a row (MAX_FOLLOW_UP_COLLECTIONS at most), one at the next settled reading when due. */
  let followUps = 0;
  let followUpDue = false;
  let trimming = false;
  const trim = (atRest: boolean) => {
    if (!trimmer || trimming) return;
    trimming = true;
    const before = memoryUsage().rss;
    trimmer.trim().then(
      (done) => {
        trimming = false;
        const after = memoryUsage();
        if (atRest) rssAtRest = after.rss;
        const released = before - after.rss;
        // Sockets and TLS state are freed by finalizers that run after the collection found them
        // dead, some seconds later than the first trim: trim again at the next readings, and for
        // as long as a trim still gives back much.
        trimsDue = Math.max(trimsDue - 1, released >= RELEASED_MUCH ? 1 : 0);
        if (done) opts.logger?.debug({ rssBefore: before, rssAfter: after.rss, ms: Math.round(done.ms) }, 'load ended: free native memory returned');
      },
      (err: unknown) => {
        trimming = false;
        trimsDue = 0;
        opts.logger?.warn({ err }, 'returning free native memory failed');
      },
    );
  };
  const collect = (external: number, heapTotal: number, heapUsedBefore: number) => {
    const started = performance.now();
    gc();
    start = memoryUsage();
    // One follow-up always (what the first found dead is let go of only after it), more while they free.
    followUpDue = (followUps === 0 || heapUsedBefore - start.heapUsed >= quiet) && followUps < MAX_FOLLOW_UP_COLLECTIONS;
    followUps = followUpDue ? followUps + 1 : 0;
    afterGc = start.external;
    slackAfterGc = start.heapTotal - start.heapUsed;
    previous = { external: start.external, heapUsed: start.heapUsed };
    opts.logger?.debug(
      { externalBefore: external, externalAfter: afterGc, heapTotalBefore: heapTotal, heapTotalAfter: start.heapTotal, ms: Math.round(performance.now() - started) },
      'load ended: full garbage collection',
    );
    // What the collection freed goes back to the C allocator, now or from finalizers soon after:
    // the next settled readings give it to the system.
    trimsDue = TRIMS_AFTER_COLLECTION;
  };
  const timer = setInterval(() => {
    const usage = memoryUsage();
    const { external, heapUsed, heapTotal } = usage;
    const settled = external - previous.external < quiet && heapUsed - previous.heapUsed < quiet;
    previous = { external, heapUsed };
    if (external < afterGc) afterGc = external;
    if (heapTotal - heapUsed < slackAfterGc) slackAfterGc = heapTotal - heapUsed;
    if (!settled) {
      quietReadings = 0;
      reclaimedThisQuiet = false;
      return;
    }
    quietReadings++;
    if (followUpDue) return collect(external, heapTotal, heapUsed);
    if (releasedWhileQuiet) {
      releasedWhileQuiet = false;
      return collect(external, heapTotal, heapUsed);
    }
    // Two settled readings: under load a reading just after one of V8's own collections can look
    // settled by itself.
    if (quietReadings >= 2 && (external - afterGc >= threshold || heapTotal - heapUsed - slackAfterGc >= heapSlack)) return collect(external, heapTotal, heapUsed);
    // Resident growth counts too, once the process has been quiet a while: a closed connection's
    // TLS state (glibc's, not V8's) is freed only when a collection finds its socket dead, and an
    // idle process does not collect by itself.
    if (trimmer && !reclaimedThisQuiet && quietReadings >= QUIET_READINGS && usage.rss - rssAtRest >= residentGrowth) {
      reclaimedThisQuiet = true;
      collect(external, heapTotal, heapUsed);
      return;
    }
    if (trimsDue > 0) trim(reclaimedThisQuiet);
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
