/**
 * Fair streaming of large responses: the initial state of watches (watch-list, resourceVersion=0
 * or unset) and large LIST bodies are written a slice at a time, round-robin across every response
 * that has something to send, a bounded amount of work per event-loop turn, answers to short
 * requests before watches.
 *
 * Why: on loopback the kernel takes megabytes per socket before `write()` reports backpressure, so
 * a response that writes "while the socket accepts" wrote its whole initial state in the tick that
 * served its request; 200 watch-lists of 2,000 ConfigMaps held the event loop for 1.9 s and a
 * single GET waited that long (issue 23: 13 s with 1,000 watches of 5,000 objects).
 *
 * Contract:
 * - `schedule(stream)` queues a stream once (queuing it again while queued does nothing) in its
 *   lane (`stream.lane`). Each turn the scheduler takes the STREAMS_PER_TURN oldest queued answers
 *   (by when each was first scheduled) and calls `step(SLICE_BYTES)` on each in turn, for up to
 *   ANSWER_SHARE of the turn when watches wait too, then does the same for the oldest watches; a stream answers `more` (queued again,
 *   keeping its age), `blocked` (its response said no more until 'drain': it schedules itself again
 *   from its 'drain' listener, and holds no place meanwhile) or `done`.
 * - A turn ends after TURN_MS of steps; the next one runs from setImmediate, so every I/O callback
 *   ready meanwhile (new requests, health checks, short GETs, acknowledgements) runs in between.
 * - Order within a stream is the stream's own business; the scheduler only decides when it runs.
 * The scheduler is process-wide, like the event loop it shares out.
 */

/** What a stream answers after a step. */
export type StepResult = 'more' | 'blocked' | 'done';

/**
 * Which queue a stream waits in. `answer`: the body of a short request (a LIST, a large Table or
 * Protobuf answer) that holds an in-flight slot and whose client waits for all of it; `watch`: a
 * watch's initial state or backlog, which its client takes event by event and which has no deadline.
 */
export type StreamLane = 'answer' | 'watch';

export interface FairStream {
  /** Writes about `budgetBytes` (at least one item), then answers; never waits. */
  step(budgetBytes: number): StepResult;
  /** Default `answer`. */
  readonly lane?: StreamLane;
}

/** Bytes one stream writes per step: 4 TLS records. */
export const SLICE_BYTES = 64 * 1024;
/** Work per event-loop turn before other callbacks get their turn. */
export const TURN_MS = 8;
/**
 * Streams served per turn and lane, the oldest ready ones: 64 slices (4 MiB) a round. A storm of
 * 2,000 watch-lists is then served 64 at a time, oldest first, so watches complete one after
 * another instead of all at the very end (the established server likewise admits a bounded number
 * of watch initializations at once); a stream waiting for 'drain' holds no place.
 */
export const STREAMS_PER_TURN = 64;
/**
 * The part of a turn answers may take while watches wait too; the rest is the watches'. Answers go
 * first because each holds an in-flight slot and its client's whole request waits on it: behind a
 * burst of 400 watch-lists (oldest first), LISTs of the same size waited for the whole burst (p99
 * 13.7 s in the overload suite's full form). Watches keep a quarter, so a stream of LISTs never
 * stops them; either lane takes the whole turn when the other has nothing to send.
 */
export const ANSWER_SHARE = 0.75;

interface Entry {
  /** When the stream was first scheduled: older streams go first. */
  seq: number;
  stream: FairStream;
}

/** Ready streams of one lane, a binary min-heap by `seq`. */
class Lane {
  readonly heap: Entry[] = [];

  push(e: Entry): void {
    const h = this.heap;
    let i = h.push(e) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.seq <= e.seq) break;
      h[i] = h[parent]!;
      i = parent;
    }
    h[i] = e;
  }

  pop(): Entry {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && h[r]!.seq < h[l]!.seq ? r : l;
        if (h[c]!.seq >= last.seq) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

export class FairStreamScheduler {
  private readonly answers = new Lane();
  private readonly watches = new Lane();
  private readonly seqOf = new WeakMap<FairStream, number>();
  private readonly queued = new WeakSet<FairStream>();
  private nextSeq = 0;
  private pending = false;

  constructor(
    private readonly sliceBytes = SLICE_BYTES,
    private readonly turnMs = TURN_MS,
    private readonly streamsPerTurn = STREAMS_PER_TURN,
    private readonly answerShare = ANSWER_SHARE,
  ) {}

  /** Streams waiting for a turn. */
  get size(): number {
    return this.answers.heap.length + this.watches.heap.length;
  }

  /** Queues a stream (once; it keeps its age across steps and waits for 'drain'). */
  schedule(stream: FairStream): void {
    if (this.queued.has(stream)) return;
    this.queued.add(stream);
    let seq = this.seqOf.get(stream);
    if (seq === undefined) this.seqOf.set(stream, (seq = this.nextSeq++));
    this.laneOf(stream).push({ seq, stream });
    this.wake();
  }

  /** True while `stream` waits for its turn (it must not write out of turn meanwhile). */
  isScheduled(stream: FairStream): boolean {
    return this.queued.has(stream);
  }

  private laneOf(stream: FairStream): Lane {
    return stream.lane === 'watch' ? this.watches : this.answers;
  }

  private wake(): void {
    if (this.pending || this.size === 0) return;
    this.pending = true;
    setImmediate(this.turn);
  }

  /** Answers first (their share of the turn while watches wait), then watches until the turn's time is up. */
  private readonly turn = (): void => {
    this.pending = false;
    const started = performance.now();
    const end = started + this.turnMs;
    this.serve(this.answers, this.watches.heap.length > 0 ? started + this.turnMs * this.answerShare : end);
    // At least one watch step a turn, however long the answers' steps took.
    this.serve(this.watches, end);
    this.wake();
  };

  /** One step each for the lane's oldest ready streams, round-robin, until `end`. */
  private serve(lane: Lane, end: number): void {
    if (lane.heap.length === 0 || (lane === this.answers && performance.now() >= end)) return;
    const batch: Entry[] = [];
    while (batch.length < this.streamsPerTurn && lane.heap.length > 0) batch.push(lane.pop());
    const again: Entry[] = [];
    let i = 0;
    while (i < batch.length) {
      const e = batch[i++]!;
      this.queued.delete(e.stream);
      let result: StepResult;
      try {
        result = e.stream.step(this.sliceBytes);
      } catch {
        // A stream that throws has ended (its response is gone); it is not scheduled again.
        result = 'done';
      }
      if (result === 'more' && !this.queued.has(e.stream)) {
        this.queued.add(e.stream);
        again.push(e);
      }
      if (performance.now() >= end) break;
    }
    // Streams not reached keep their place; stepped ones go back by age.
    for (; i < batch.length; i++) lane.push(batch[i]!);
    for (const e of again) lane.push(e);
  }
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
    lane: 'answer',
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
      const chunk = slice.length === 1 ? slice[0]! : Buffer.concat(slice, spent);
      // The last slice goes with end(): nothing of the answer's end reaches the client before
      // end() runs (the audit's ResponseComplete is written there first: ./audit/auditor.ts).
      if (part === parts.length) {
        if (spent > 0) res.end(chunk);
        else res.end();
        return 'done';
      }
      const ok = spent === 0 || res.write(chunk);
      if (!ok) {
        res.once('drain', () => scheduler.schedule(stream));
        return 'blocked';
      }
      return 'more';
    },
  };
  scheduler.schedule(stream);
}
