/**
 * Per-kind steps of the write path that need server state, beyond a kind's pure defaults and
 * validation (the established registry strategy's BeginCreate/BeginUpdate/AfterDelete hooks).
 * Services use them to allocate and release cluster IPs and node ports (./services/).
 *
 * Contract: `prepareUpdate` runs after defaults and before validation (it may fill values the
 * client left out, as the established PatchAllocatedValues does); `beginCreate`/`beginUpdate` run
 * after validation and before validating admission, may throw a Status, and return `finish`,
 * which the write path calls exactly once with whether the object was stored (false: a refusal,
 * a conflict that is retried, a dry run's end) so what was taken is kept or given back;
 * `afterDelete` runs once the object has left storage. `user` is who makes the write (RBAC's
 * escalation prevention, ./auth/rbac/escalation.ts, decides by it).
 */
import type { SvcObject } from '../api/types.js';
import type { UserInfo } from './auth/user.js';

export type FinishWrite = (stored: boolean) => void;

export interface WriteHooks {
  /** `subresource`: '' for the object itself, else the subresource written (status, approval, ...). */
  prepareUpdate?(next: SvcObject, old: SvcObject, subresource: string): void;
  beginCreate?(obj: SvcObject, dryRun: boolean, user: UserInfo): Promise<FinishWrite>;
  beginUpdate?(next: SvcObject, old: SvcObject, dryRun: boolean, user: UserInfo): Promise<FinishWrite>;
  afterDelete?(obj: SvcObject): void;
}
