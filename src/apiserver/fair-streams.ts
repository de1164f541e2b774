/**
 * Fair streaming of large responses: the initial state of watches (watch-list, resourceVersion=0
 * or unset) and large LIST bodies are written a slice at a time, round-robin across every response
 * that has something to send, a bounded amount of work per event-loop turn.
 *
 * Why: on loopback the kernel takes megabytes per socket before `write()` reports backpressure, so
 * a response that writes "while the socket accepts" wrote its whole initial state in the tick that
 * served its request; 200 watch-lists of 2,000 ConfigMaps held the event loop for 1.9 s and a
 * single GET waited that long (issue 23: 13 s with 1,000 watches of 5,000 objects).
 *
 * Contract:
 * - `schedule(stream)` queues a stream once (queuing it again while queued does nothing). Each turn
 *   the scheduler takes streams from the head of the queue and calls `step(SLICE_BYTES)`; a stream
 *   answers `more` (it goes to the back of the queue), `blocked` (its response said no more until
 *   'drain': it schedules itself again from its 'drain' listener) or `done`.
 * - A turn ends after TURN_MS of steps; the next one runs from setImmediate, so every I/O callback
 *   ready meanwhile (new requests, health checks, short GETs, acknowledgements) runs in between.
 * - Order within a stream is the stream's own business; the scheduler only decides when it runs.
 * The scheduler is process-wide, like the event loop it shares out.
 */

/** What a stream answers after a step. */
export type StepResult = 'more' | 'blocked' | 'done';

export interface FairStream {
  /** Writes about `budgetBytes` (at least one item), then answers; never waits. */
  step(budgetBytes: number): StepResult;
}

/** Bytes one stream writes per step: 4 TLS records; 1,000 streams take about 64 MB per round. */
export const SLICE_BYTES = 64 * 1024;
/** Work per event-loop turn before other callbacks get their turn. */
export const TURN_MS = 8;

export class FairStreamScheduler {
  private queue: FairStream[] = [];
  private head = 0;
  private readonly queued = new WeakSet<FairStream>();
  private pending = false;

  constructor(
    private readonly sliceBytes = SLICE_BYTES,
    private readonly turnMs = TURN_MS,
  ) {}

  /** Streams waiting for a turn. */
  get size(): number {
    return this.queue.length - this.head;
  }

  schedule(stream: FairStream): void {
    if (this.queued.has(stream)) return;
    this.queued.add(stream);
    this.queue.push(stream);
    if (!this.pending) {
      this.pending = true;
      setImmediate(this.turn);
    }
  }

  /** True while `stream` waits for its turn (it must not write out of turn meanwhile). */
  isScheduled(stream: FairStream): boolean {
    return this.queued.has(stream);
  }

  private readonly turn = (): void => {
    this.pending = false;
    const end = performance.now() + this.turnMs;
    // At most one round per turn, so a stream scheduled during the turn waits for the next one.
    let left = this.size;
    while (left-- > 0) {
      const stream = this.queue[this.head]!;
      this.queue[this.head++] = undefined as unknown as FairStream;
      this.queued.delete(stream);
      let result: StepResult;
      try {
        result = stream.step(this.sliceBytes);
      } catch {
        // A stream that throws has ended (its response is gone); it is not scheduled again.
        result = 'done';
      }
      if (result === 'more') this.schedule(stream);
      if (performance.now() >= end) break;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    } else if (this.head === this.queue.length) {
      this.queue.length = 0;
      this.head = 0;
    }
    if (this.size > 0 && !this.pending) {
      this.pending = true;
      setImmediate(this.turn);
    }
  };
}

/** The process's scheduler (every server in the process shares its one event loop). */
export const fairStreams = new FairStreamScheduler();

/** The part of a response a streamed body needs (HTTP/1.1 and HTTP/2 compatibility responses). */
export interface StreamedResponse {
  write(chunk: Buffer): boolean;
  end(chunk?: Buffer): unknown;
  readonly writableEnded: boolean;
  readonly destroyed?: boolean;
  once(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * Writes `parts` (headers already sent) through the scheduler, a slice per turn, waiting for
 * 'drain' when the response says so, then ends the response. The parts are referenced, not copied
 * (list items are the cache's shared JSON). Gives up quietly if the client goes away.
 */
export function streamBody(res: StreamedResponse, parts: readonly Buffer[], scheduler = fairStreams): void {
  let part = 0;
  let offset = 0;
  let gone = false;
  res.once('close', () => (gone = true));
  const stream: FairStream = {
    step(budget) {
      if (gone || res.writableEnded || res.destroyed) return 'done';
      // The slice goes out as one buffer (one TLS write), not as one write per item.
      const slice: Buffer[] = [];
      let spent = 0;
      while (part < parts.length && spent < budget) {
        const buf = parts[part]!;
        const take = Math.min(buf.length - offset, budget - spent);
        slice.push(offset === 0 && take === buf.length ? buf : buf.subarray(offset, offset + take));
        offset += take;
        if (offset === buf.length) {
          part++;
          offset = 0;
        }
        spent += take;
      }
      const ok = spent === 0 || res.write(slice.length === 1 ? slice[0]! : Buffer.concat(slice, spent));
      if (part === parts.length) res.end();
      if (part === parts.length) return 'done';
      if (!ok) {
        res.once('drain', () => scheduler.schedule(stream));
        return 'blocked';
      }
      return 'more';
    },
  };
  scheduler.schedule(stream);
}
