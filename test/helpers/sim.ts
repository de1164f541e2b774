/** Helpers for driving actors and queues on xstate's SimulatedClock while real promises settle. */
import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { SimulatedClock } from 'xstate';

/** Lets pending promise callbacks and I/O callbacks run (a few macrotask turns). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
}

/** Advances `clock` by `ms` in `stepMs` steps, letting promises settle after every step. */
export async function advance(clock: SimulatedClock, ms: number, stepMs = 1, settle: () => Promise<void> = () => flush(2)): Promise<void> {
  for (let t = 0; t < ms; t += stepMs) {
    clock.increment(Math.min(stepMs, ms - t));
    await settle();
  }
}

/** A real pino logger whose JSON records are kept in `records`. */
export function capturedLogger(): { logger: Logger; records: Array<Record<string, unknown>> } {
  const records: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line) records.push(JSON.parse(line) as Record<string, unknown>);
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), records };
}
