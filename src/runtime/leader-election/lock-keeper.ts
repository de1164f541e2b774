/**
 * One attempt to acquire or renew a lock, with client-go's rules:
 *
 * - A missing lock object is created holding us.
 * - Someone else's lease counts as live until `leaseDurationSeconds` after WE last saw its record
 *   change (local observation time, so clocks of different hosts need not agree).
 * - Taking the lock over increments `leaderTransitions`; renewing keeps it and `acquireTime`.
 * - Writes are optimistic (resourceVersion): losing a race fails the attempt, never overwrites.
 * - A leader whose lease is still valid renews by writing at once, on the version it wrote last
 *   (client-go's fast path since 1.27): one request instead of a read and a write, so a renewal
 *   costs as few round trips to a busy API server as it can. Should that write fail (someone else
 *   wrote the lock, or the server refused), the attempt falls back to reading the lock first.
 */
import type { Clock } from '../clock.js';
import { rfc3339Micro } from '../../api/time.js';
import { type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './record.js';

export type AttemptOutcome =
  | { kind: 'acquired'; holder: string }
  | { kind: 'renewed'; holder: string }
  | { kind: 'heldByOther'; holder: string }
  | { kind: 'failed'; error: unknown };

export class LockKeeper {
  private observed: ObservedRecord | undefined;
  private observedAt = 0;

  constructor(
    readonly lock: ResourceLock,
    private readonly leaseDurationMs: number,
    private readonly clock: Pick<Clock, 'now'>,
  ) {}

  /** The holder in the record last seen or written ('' when none). */
  get observedHolder(): string {
    return this.observed?.record.holderIdentity ?? '';
  }

  async tryAcquireOrRenew(): Promise<AttemptOutcome> {
    const now = this.clock.now();
    const id = this.lock.identity;
    const desired: LeaderElectionRecord = {
      holderIdentity: id,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: rfc3339Micro(now),
      renewTime: rfc3339Micro(now),
      leaderTransitions: 0,
    };
    if (this.leaseValidForUs(now)) {
      const held = this.observed!.record;
      const renewal = { ...desired, acquireTime: held.acquireTime || desired.acquireTime, leaderTransitions: held.leaderTransitions };
      try {
        await this.lock.update(renewal);
        this.observe(renewal, now);
        return { kind: 'renewed', holder: id };
      } catch {
        // Fall through: read the lock and decide as any attempt does (a conflict means someone
        // else wrote it; a failed write is tried once more on the slow path).
      }
    }
    try {
      const current = await this.lock.get();
      if (!current) {
        await this.lock.create(desired);
        this.observe(desired, now);
        return { kind: 'acquired', holder: id };
      }
      if (current.raw !== this.observed?.raw) {
        this.observed = current;
        // When the read came back, not when it was sent: a write that landed while the read was
        // on its way must not count from before it was made (client-go times it the same way).
        this.observedAt = this.clock.now();
      }
      const held = current.record;
      if (held.holderIdentity && held.holderIdentity !== id && this.observedAt + held.leaseDurationSeconds * 1000 > this.clock.now()) {
        return { kind: 'heldByOther', holder: held.holderIdentity };
      }
      const renewing = held.holderIdentity === id;
      if (renewing) {
        desired.acquireTime = held.acquireTime || desired.acquireTime;
        desired.leaderTransitions = held.leaderTransitions;
      } else {
        desired.leaderTransitions = held.leaderTransitions + 1;
      }
      await this.lock.update(desired);
      this.observe(desired, now);
      return { kind: renewing ? 'renewed' : 'acquired', holder: id };
    } catch (error) {
      return { kind: 'failed', error };
    }
  }

  /**
   * When the lease of another holder, as last observed, runs out (local time), or undefined when
   * nobody else holds it: a follower need not wait longer than this for its next attempt.
   */
  otherHoldersLeaseEnds(): number | undefined {
    const held = this.observed?.record;
    if (!held || !held.holderIdentity || held.holderIdentity === this.lock.identity) return undefined;
    return this.observedAt + held.leaseDurationSeconds * 1000;
  }

  /** We hold the lock by the record we last wrote or saw, and its lease has not run out. */
  private leaseValidForUs(now: number): boolean {
    const held = this.observed?.record;
    return held !== undefined && held.holderIdentity === this.lock.identity && this.observedAt + held.leaseDurationSeconds * 1000 > now;
  }

  /** Gives the lock up if we hold it: holder '' and a 1 s lease, so a follower takes over at once. */
  async release(): Promise<boolean> {
    if (this.observedHolder !== this.lock.identity) return false;
    // A renewal still in flight when the stop came can write the lock first; the release then
    // conflicts. Read the lock again and release what is still ours, rather than leave the
    // follower to wait out the whole lease.
    for (let attempt = 0; ; attempt++) {
      const now = rfc3339Micro(this.clock.now());
      const record = { holderIdentity: '', leaseDurationSeconds: 1, acquireTime: now, renewTime: now, leaderTransitions: this.observed!.record.leaderTransitions };
      try {
        await this.lock.update(record);
        this.observe(record, this.clock.now());
        return true;
      } catch (error) {
        if (attempt >= 2) throw error;
        const current = await this.lock.get();
        if (!current || current.record.holderIdentity !== this.lock.identity) return false;
        this.observed = current;
      }
    }
  }

  private observe(record: LeaderElectionRecord, at: number): void {
    // Our own write: its raw form is unknown until the next read, which then counts as a change.
    this.observed = { record, raw: '' };
    this.observedAt = at;
  }
}
