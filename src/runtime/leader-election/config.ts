/**
 * Leader-election settings with the spec's defaults (`--leader-elect-*`), their validation and the
 * default identity.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export const LOCK_TYPES = ['leases', 'endpoints', 'configmaps', 'endpointsleases', 'configmapsleases'] as const;
export type LockType = (typeof LOCK_TYPES)[number];

/** client-go's JitterFactor: the renew deadline must exceed retryPeriod × 1.2 (its validation). */
export const JITTER_FACTOR = 1.2;

/**
 * Followers wait retryPeriod × (0.75 − random × 0.25) between attempts: jittered so they do not
 * poll in step, and at most three quarters of a retry period, so the holder's last renewal is seen
 * within one retry period, the read's own time included, and a takeover after the holder dies
 * comes within lease duration + retry period (client-go waits retryPeriod × (1 + random × 1.2);
 * see machines/leader-election.ts).
 */
export const FOLLOWER_POLL = { longest: 0.75, jitter: 0.25 } as const;

export interface LeaderElectionConfig {
  /** --leader-elect-resource-lock; default `endpointsleases`. */
  lockType: LockType;
  /** --leader-elect-resource-name (per component, e.g. `svc-controller-manager`). */
  resourceName: string;
  /** --leader-elect-resource-namespace; default `svc-system`. */
  resourceNamespace: string;
  /** --leader-elect-lease-duration; default 15 s. */
  leaseDurationMs: number;
  /** --leader-elect-renew-deadline; default 10 s; must be <= the lease duration. */
  renewDeadlineMs: number;
  /** --leader-elect-retry-period; default 2 s. */
  retryPeriodMs: number;
  /** Default `hostname_uuid`. */
  identity: string;
  /** Give the lock up (holder '' and a 1 s lease) when stopped while leading; default false. */
  releaseOnStop: boolean;
}

export const LEADER_ELECTION_DEFAULTS = {
  lockType: 'endpointsleases',
  resourceNamespace: 'svc-system',
  leaseDurationMs: 15_000,
  renewDeadlineMs: 10_000,
  retryPeriodMs: 2_000,
  releaseOnStop: false,
} as const satisfies Partial<LeaderElectionConfig>;

export class LeaderElectionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeaderElectionConfigError';
  }
}

/** `<hostname>_<uuid>`: unique per process even with several on one host. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

function secs(ms: number): string {
  return `${ms / 1000}s`;
}

/** Fills in defaults and validates; throws LeaderElectionConfigError naming the flags at fault. */
export function leaderElectionConfig(opts: Partial<LeaderElectionConfig> & { resourceName: string }): LeaderElectionConfig {
  const c: LeaderElectionConfig = { ...LEADER_ELECTION_DEFAULTS, identity: defaultIdentity(), ...opts };
  if (!LOCK_TYPES.includes(c.lockType)) {
    throw new LeaderElectionConfigError(`--leader-elect-resource-lock: "${c.lockType}" is not one of ${LOCK_TYPES.join(', ')}`);
  }
  if (!c.resourceName) throw new LeaderElectionConfigError('--leader-elect-resource-name must not be empty');
  if (!c.resourceNamespace) throw new LeaderElectionConfigError('--leader-elect-resource-namespace must not be empty');
  if (!c.identity) throw new LeaderElectionConfigError('the leader-election identity must not be empty');
  for (const [flag, v] of [
    ['--leader-elect-lease-duration', c.leaseDurationMs],
    ['--leader-elect-renew-deadline', c.renewDeadlineMs],
    ['--leader-elect-retry-period', c.retryPeriodMs],
  ] as const) {
    if (!(v > 0)) throw new LeaderElectionConfigError(`${flag} must be greater than zero, got ${secs(v)}`);
  }
  if (c.renewDeadlineMs > c.leaseDurationMs) {
    throw new LeaderElectionConfigError(
      `--leader-elect-renew-deadline (${secs(c.renewDeadlineMs)}) must be less than or equal to --leader-elect-lease-duration (${secs(c.leaseDurationMs)})`,
    );
  }
  if (c.renewDeadlineMs <= JITTER_FACTOR * c.retryPeriodMs) {
    throw new LeaderElectionConfigError(
      `--leader-elect-renew-deadline (${secs(c.renewDeadlineMs)}) must be greater than ${JITTER_FACTOR} × --leader-elect-retry-period (${secs(c.retryPeriodMs)})`,
    );
  }
  return c;
}
