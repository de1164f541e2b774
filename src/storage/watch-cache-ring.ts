/**
 * The event history of a watch cache: a growable circular buffer ordered by revision.
 *
 * Retention: at least `capacity` events, plus every event younger than `windowMs`, as long as the
 * events beyond `capacity` hold no more than `maxBytes` (each event's size as its appender gives it),
 * which never takes an event younger than `minAgeMs`, and there are never more than `maxEvents`.
 * Eviction happens on append (O(1) amortized) and from `evictExpired` (the cache calls it on a
 * timer, so an idle resource lets its old events go too); finding where a replay starts is a binary
 * search on revision.
 */
export interface RingEvent {
  readonly revision: number;
}

export class EventRing<E extends RingEvent> {
  private slots: Array<E | undefined>;
  private times: number[];
  private sizes: number[];
  /** Sum of `sizes` over the events held. */
  private held = 0;
  private head = 0;
  private len = 0;
  private readonly hardMax: number;
  /** Revision of the newest evicted event (0 if none): every event above it is still here. */
  private evicted = 0;

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    maxEvents: number,
    private readonly maxBytes = Infinity,
    private readonly minAgeMs = 0,
  ) {
    this.hardMax = Math.max(1, capacity, maxEvents);
    const initial = Math.min(this.hardMax, Math.max(16, capacity));
    this.slots = new Array<E | undefined>(initial);
    this.times = new Array<number>(initial).fill(0);
    this.sizes = new Array<number>(initial).fill(0);
  }

  get length(): number {
    return this.len;
  }

  /** Revision of the newest event that was dropped (0 when nothing was dropped since `clear`). */
  get evictedRevision(): number {
    return this.evicted;
  }

  /** Bytes held by the events (their sizes as appended). */
  get bytes(): number {
    return this.held;
  }

  /** Append an event (revisions must increase); `at` is the time it was received, `bytes` its size. */
  append(event: E, at: number, bytes = 0): void {
    while (this.len >= this.hardMax) this.evictHead();
    // Room for the new event within `capacity`, and within `maxBytes` beyond it.
    this.evictAgedOut(at, this.capacity - 1);
    this.evictOverBytes(at, bytes);
    if (this.len === this.slots.length) this.grow();
    const i = (this.head + this.len) % this.slots.length;
    this.slots[i] = event;
    this.times[i] = at;
    this.sizes[i] = bytes;
    this.held += bytes;
    this.len++;
  }

  /**
   * Drop what has aged out of the window (beyond `capacity`) without waiting for the next append:
   * an idle resource would otherwise keep its last burst's events, and their objects, for good.
   */
  evictExpired(now: number): number {
    return this.evictAgedOut(now, this.capacity) + this.evictOverBytes(now, 0);
  }

  /** Evicts from the head, beyond `capacity` and past `minAgeMs`, until `incoming` more bytes fit in `maxBytes`; how many went. */
  private evictOverBytes(now: number, incoming: number): number {
    const youngest = now - this.minAgeMs;
    let n = 0;
    while (this.len >= this.capacity && this.len > 0 && this.held + incoming > this.maxBytes && this.times[this.head]! <= youngest) {
      this.evictHead();
      n++;
    }
    return n;
  }

  /** Evicts events older than the window from the head while more than `keep` remain; how many went. */
  private evictAgedOut(now: number, keep: number): number {
    const expired = now - this.windowMs;
    let n = 0;
    while (this.len > 0 && this.len > keep && this.times[this.head]! <= expired) {
      this.evictHead();
      n++;
    }
    return n;
  }

  /** Events with revision > `after`, oldest first. */
  since(after: number): E[] {
    let lo = 0;
    let hi = this.len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at(mid).revision > after) hi = mid;
      else lo = mid + 1;
    }
    const out: E[] = new Array(this.len - lo);
    for (let i = lo; i < this.len; i++) out[i - lo] = this.at(i);
    return out;
  }

  /** Drop everything (after a re-list); `evictedRevision` restarts at `revision`. */
  clear(revision: number): void {
    this.slots = new Array<E | undefined>(this.slots.length);
    this.head = 0;
    this.len = 0;
    this.held = 0;
    this.evicted = revision;
  }

  private at(i: number): E {
    return this.slots[(this.head + i) % this.slots.length]!;
  }

  private evictHead(): void {
    this.evicted = this.slots[this.head]!.revision;
    this.slots[this.head] = undefined;
    this.held -= this.sizes[this.head]!;
    this.head = (this.head + 1) % this.slots.length;
    this.len--;
  }

  private grow(): void {
    const size = Math.min(this.hardMax, this.slots.length * 2);
    const slots = new Array<E | undefined>(size);
    const times = new Array<number>(size).fill(0);
    const sizes = new Array<number>(size).fill(0);
    for (let i = 0; i < this.len; i++) {
      const j = (this.head + i) % this.slots.length;
      slots[i] = this.slots[j];
      times[i] = this.times[j]!;
      sizes[i] = this.sizes[j]!;
    }
    this.slots = slots;
    this.times = times;
    this.sizes = sizes;
    this.head = 0;
  }
}
