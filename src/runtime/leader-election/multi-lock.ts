/**
 * Two locks kept as one, for migrating from the annotation locks to Leases (`endpointsleases`,
 * `configmapsleases`): every write goes to the primary first, then the secondary; a read takes the
 * primary's record, and reports an unknown holder when the two disagree (so nobody treats a
 * half-written pair as theirs). A secondary that does not exist yet is created on the next write.
 *
 * Round trips matter here: a renewal waits on each one, and a busy API server answers each in
 * hundreds of ms. The two reads go out together, and the secondary is written on the version it
 * holds from its last read or write (read again only when that write fails), so a leader's
 * renewal is two sequential requests rather than client-go's three (update, get, update).
 */
import { isNotFound, UNKNOWN_LEADER, type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './record.js';

export class MultiLock implements ResourceLock {
  constructor(
    readonly primary: ResourceLock,
    readonly secondary: ResourceLock,
  ) {}

  get identity(): string {
    return this.primary.identity;
  }

  describe(): string {
    return `${this.primary.describe()},${this.secondary.describe()}`;
  }

  async get(): Promise<ObservedRecord | undefined> {
    const [primary, secondary] = await Promise.all([this.primary.get(), this.secondary.get()]);
    if (!primary) return undefined;
    // Only the primary exists: held by a client that writes only the old lock.
    if (!secondary) return primary;
    if (primary.record.holderIdentity !== secondary.record.holderIdentity) {
      const record = { ...primary.record, holderIdentity: UNKNOWN_LEADER };
      return { record, raw: JSON.stringify(record) + secondary.raw };
    }
    return { record: primary.record, raw: primary.raw + secondary.raw };
  }

  /**
   * Only called when the primary was not found. Whoever creates the primary wins the pair: a primary
   * that appeared meanwhile (another replica's concurrent create) fails this attempt, so the loser
   * never goes on to write the secondary in its own name.
   */
  async create(record: LeaderElectionRecord): Promise<void> {
    await this.primary.create(record);
    await this.secondary.create(record);
  }

  async update(record: LeaderElectionRecord): Promise<void> {
    await this.primary.update(record);
    try {
      await this.secondary.update(record);
      return;
    } catch {
      // Not read yet, or changed since: read it and write again (or create it), as client-go does.
    }
    const secondary = await this.secondary.get().catch((e: unknown) => {
      if (isNotFound(e)) return undefined;
      throw e;
    });
    if (secondary) await this.secondary.update(record);
    else await this.secondary.create(record);
  }
}
