export { AnnotationLock } from './annotation-lock.js';
export {
  defaultIdentity, JITTER_FACTOR, LEADER_ELECTION_DEFAULTS, leaderElectionConfig, LeaderElectionConfigError, LOCK_TYPES,
  type LeaderElectionConfig, type LockType,
} from './config.js';
export { LeaseLock } from './lease-lock.js';
export { LockKeeper, type AttemptOutcome } from './lock-keeper.js';
export { MultiLock } from './multi-lock.js';
export { newResourceLock, type LockTarget } from './new-lock.js';
export { LEADER_ANNOTATION, UNKNOWN_LEADER, type LeaderElectionRecord, type ObservedRecord, type ResourceLock } from './record.js';
export { startLeaderElection, type LeaderElection, type StartLeaderElectionOptions } from './start.js';
