/**
 * The leader-election lock: its record and the interface every lock type implements.
 *
 * The record has the established shape: on a Lease it is the spec (`holderIdentity`,
 * `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaseTransitions`); on Endpoints and
 * ConfigMaps it is JSON in the annotation `control-plane.alpha.svc.io/leader` with the fields
 * `holderIdentity`, `leaseDurationSeconds`, `acquireTime`, `renewTime`, `leaderTransitions`.
 *
 * Every `update` is optimistic: it sends the resourceVersion of the object last read or written by
 * this lock, so a concurrent writer makes it fail with 409 Conflict instead of being overwritten.
 */
import { ApiError } from '../../client/types.js';

export const LEADER_ANNOTATION = 'control-plane.alpha.svc.io/leader';

export interface LeaderElectionRecord {
  /** '' when nobody holds the lock (e.g. released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  /** RFC 3339 times; '' when unknown. */
  acquireTime: string;
  renewTime: string;
  leaderTransitions: number;
}

/** A record as read, with its raw form: a change of the raw form is what "the holder renewed" means. */
export interface ObservedRecord {
  record: LeaderElectionRecord;
  raw: string;
}

export interface ResourceLock {
  readonly identity: string;
  /** `namespace/name` (both names for a multilock). */
  describe(): string;
  /** The current record, or `undefined` when the lock object does not exist. */
  get(): Promise<ObservedRecord | undefined>;
  /** Creates the lock object holding `record`; fails with 409 if it exists. */
  create(record: LeaderElectionRecord): Promise<void>;
  /** Writes `record` over the object last read or written (optimistic concurrency). */
  update(record: LeaderElectionRecord): Promise<void>;
}

export const UNKNOWN_LEADER = 'leaderelection.svc.io/unknown';

export function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.code === 404;
}

/** The record with every field present (missing ones as '' or 0), as stored by older writers too. */
export function normaliseRecord(r: Partial<LeaderElectionRecord> | undefined): LeaderElectionRecord {
  return {
    holderIdentity: r?.holderIdentity ?? '',
    leaseDurationSeconds: r?.leaseDurationSeconds ?? 0,
    acquireTime: r?.acquireTime ?? '',
    renewTime: r?.renewTime ?? '',
    leaderTransitions: r?.leaderTransitions ?? 0,
  };
}

