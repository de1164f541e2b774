/**
 * Gives memory back once a burst of load ends. Response bodies and TLS records are Buffers outside
 * V8's heap, freed only when a garbage collection finds them dead; V8 collects when JavaScript
 * allocates, so when an overload stops and the server goes quiet, gigabytes of dead Buffers stay
 * resident (measured: 2.2 GiB of `external` memory still held 20 s after a 2x in-flight overload).
 *
 * Contract: every `intervalMs` (unref'd timer) it reads `process.memoryUsage().external`; when that
 * is `thresholdBytes` above what the last full collection left AND moved less than `quietBytes`
 * since the previous reading (allocation has stopped: the burst is over), it runs one full GC.
 * Under steady load external memory keeps moving, so it never adds a collection to V8's own.
 * Process-wide: start it once per process (the daemons' entry points do).
 */
import type { Logger } from 'pino';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemoryReclaimerOptions {
  intervalMs?: number;
  thresholdBytes?: number;
  quietBytes?: number;
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
  const gc = fullGc();
  let afterGc = process.memoryUsage().external;
  let previous = afterGc;
  const timer = setInterval(() => {
    const external = process.memoryUsage().external;
    const settled = Math.abs(external - previous) < quiet;
    previous = external;
    if (external < afterGc) afterGc = external;
    if (!settled || external - afterGc < threshold) return;
    const started = performance.now();
    gc();
    afterGc = previous = process.memoryUsage().external;
    opts.logger?.debug({ externalBefore: external, externalAfter: afterGc, ms: Math.round(performance.now() - started) }, 'load ended: full garbage collection');
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
