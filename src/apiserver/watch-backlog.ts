/**
 * What one watch still has to send, in order: the initial state (a snapshot of the cache's
 * objects, taken at the watch's starting revision), then the batches of changes the watch cache
 * delivered since. Both are references to the cache's immutable views and its event batches
 * (shared by every watcher), never copies, so a watch that cannot write holds pointers, not bytes;
 * items are encoded only when the response can take them.
 *
 * Contract: `drain` hands out every item exactly once, snapshot first, then changes in the order
 * their batches were pushed; it stops as soon as `canWrite()` is false and resumes from there. The
 * end of the snapshot is reported once, in its place in that order.
 */
const EMPTY: readonly never[] = [];

export class WatchBacklog<Item, Change> {
  private snapshot: readonly Item[] | undefined;
  private snapshotAt = 0;
  private batches: (readonly Change[])[] = [];
  /** Index of the head batch in `batches` (shift() per batch would be quadratic in a long backlog). */
  private head = 0;
  private batchAt = 0;
  /** Changes pushed and not yet handed out (an upper bound: the head batch counts whole). */
  queuedChanges = 0;

  constructor(snapshot?: readonly Item[]) {
    if (snapshot && snapshot.length > 0) this.snapshot = snapshot;
  }

  /** True once the whole initial state has been handed out. */
  get snapshotDone(): boolean {
    return this.snapshot === undefined;
  }

  /** True when nothing is left to hand out. */
  get empty(): boolean {
    return this.snapshot === undefined && this.head === this.batches.length;
  }

  /**
   * True once the end of the snapshot has been reported: the last item can be handed out by one
   * drain and its end reported by the next (a fair step's budget ran out between them), and
   * nothing may be sent between the two (a periodic bookmark there would precede the bookmark
   * that ends a watch-list's initial state).
   */
  get snapshotEnded(): boolean {
    return this.snapshotEndReported;
  }

  /** True when nothing is left to hand out and the end of the snapshot has been reported. */
  get drained(): boolean {
    return this.empty && this.snapshotEndReported;
  }

  /** The oldest change not yet handed out (undefined when none is queued). */
  get headChange(): Change | undefined {
    return this.head < this.batches.length ? this.batches[this.head]![this.batchAt] : undefined;
  }

  push(batch: readonly Change[]): void {
    if (batch.length === 0) return;
    this.batches.push(batch);
    this.queuedChanges += batch.length;
  }

  private snapshotEndReported = false;

  /**
   * Hands out items in order while `canWrite()` holds. `onSnapshotEnd` is called once, between
   * the last item of the initial state (or at the first drain, when there was none) and the first change.
   */
  drain(canWrite: () => boolean, onItem: (item: Item) => void, onChange: (change: Change) => void, onSnapshotEnd?: () => void): void {
    while (this.snapshot) {
      if (!canWrite()) return;
      const item = this.snapshot[this.snapshotAt++]!;
      if (this.snapshotAt === this.snapshot.length) this.snapshot = undefined;
      onItem(item);
    }
    if (!this.snapshotEndReported) {
      if (!canWrite()) return;
      this.snapshotEndReported = true;
      onSnapshotEnd?.();
    }
    while (this.head < this.batches.length) {
      if (!canWrite()) return;
      const batch = this.batches[this.head]!;
      const change = batch[this.batchAt++]!;
      if (this.batchAt === batch.length) {
        this.batches[this.head++] = EMPTY;
        this.batchAt = 0;
        this.queuedChanges -= batch.length;
        if (this.head === this.batches.length) {
          this.batches.length = 0;
          this.head = 0;
        } else if (this.head >= 1024 && this.head * 2 >= this.batches.length) {
          this.batches = this.batches.slice(this.head);
          this.head = 0;
        }
      }
      onChange(change);
    }
  }

  /** Drops everything left (the watch is ending). */
  clear(): void {
    this.snapshot = undefined;
    this.batches = [];
    this.head = 0;
    this.batchAt = 0;
    this.queuedChanges = 0;
  }
}
