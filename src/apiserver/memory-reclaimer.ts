/**
 * Gives memory back once a burst of load ends. Response bodies and TLS records are Buffers outside
 * V8's heap, freed only when a garbage collection finds them dead; V8 collects when JavaScript
 * allocates, so when an overload stops and the server goes quiet, gigabytes of dead Buffers stay
 * resident (measured: 2.2 GiB of `external` memory still held 20 s after a 2x in-flight overload).
 *
 * V8's own heap likewise stays as large as the burst made it (measured: 83 MiB total, 43 MiB used,
 * 60 s after a 2x in-flight overload; a full collection brought it back to 32 MiB).
 *
 * Contract: every `intervalMs` (unref'd timer) it reads `process.memoryUsage()`; when `external` is
 * `thresholdBytes` above what the last full collection left, or V8's heap holds `heapSlackBytes`
 * more unused space (heapTotal - heapUsed) than the last full collection left, AND neither external nor heapUsed moved
 * more than `quietBytes` since the previous reading (allocation has stopped: the burst is over), it
 * runs one full GC. Under steady load they keep moving, so it never adds a collection to V8's own;
 * once idle it collects at most once per burst (the slack is gone after the collection).
 * Process-wide: start it once per process (the daemons' entry points do).
 */
import type { Logger } from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryReclaimerOptions {
  intervalMs?: number;
  thresholdBytes?: number;
  quietBytes?: number;
  heapSlackBytes?: number;
  logger?: Logger;
}

/** V8's full collection: `gc` when node runs with --expose-gc, else exposed at run time (no node flag needed). */
function fullGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

export function startMemoryReclaimer(opts: MemoryReclaimerOptions = {}): { stop(): void } {
  const intervalMs = opts.intervalMs ?? 2_000;
  const threshold = opts.thresholdBytes ?? 64 * 2 ** 20;
  const quiet = opts.quietBytes ?? 4 * 2 ** 20;
  const heapSlack = opts.heapSlackBytes ?? 24 * 2 ** 20;
  const gc = fullGc();
  let start = process.memoryUsage();
  let afterGc = start.external;
  let slackAfterGc = start.heapTotal - start.heapUsed;
  let previous = { external: start.external, heapUsed: start.heapUsed };
  const timer = setInterval(() => {
    const { external, heapUsed, heapTotal } = process.memoryUsage();
    const settled = Math.abs(external - previous.external) < quiet && Math.abs(heapUsed - previous.heapUsed) < quiet;
    previous = { external, heapUsed };
    if (external < afterGc) afterGc = external;
    if (heapTotal - heapUsed < slackAfterGc) slackAfterGc = heapTotal - heapUsed;
    if (!settled || (external - afterGc < threshold && heapTotal - heapUsed - slackAfterGc < heapSlack)) return;
    const started = performance.now();
    gc();
    start = process.memoryUsage();
    afterGc = start.external;
    slackAfterGc = start.heapTotal - start.heapUsed;
    previous = { external: start.external, heapUsed: start.heapUsed };
    opts.logger?.debug(
      { externalBefore: external, externalAfter: afterGc, heapTotalBefore: heapTotal, heapTotalAfter: start.heapTotal, ms: Math.round(performance.now() - started) },
      'load ended: full garbage collection',
    );
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
