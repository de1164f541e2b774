/**
 * What a plugin says about a pod (and a node): named outcomes, as the established framework's
 * status codes. `unschedulable` may be cured by preemption (removing pods); `unresolvable`
 * (UnschedulableAndUnresolvable) may not, so preemption skips nodes refused that way. `reasons` are
 * the short phrases the FailedScheduling message counts ("Insufficient cpu").
 */
export type Verdict =
  | { readonly code: 'Success' }
  | { readonly code: 'Skip' }
  | { readonly code: 'Unschedulable' | 'UnschedulableAndUnresolvable'; readonly reasons: readonly string[]; plugin?: string }
  | { readonly code: 'Error'; readonly message: string; plugin?: string };

const SUCCESS: Verdict = Object.freeze({ code: 'Success' });
const SKIP: Verdict = Object.freeze({ code: 'Skip' });

export function success(): Verdict {
  return SUCCESS;
}

/** The plugin has nothing to do for this pod (e.g. no affinity terms): later phases skip it too. */
export function skip(): Verdict {
  return SKIP;
}

export function unschedulable(...reasons: string[]): Verdict {
  return { code: 'Unschedulable', reasons };
}

export function unresolvable(...reasons: string[]): Verdict {
  return { code: 'UnschedulableAndUnresolvable', reasons };
}

export function pluginError(message: string): Verdict {
  return { code: 'Error', message };
}

export function isSuccess(v: Verdict): boolean {
  return v.code === 'Success' || v.code === 'Skip';
}

export function isRejection(v: Verdict): v is Extract<Verdict, { reasons: readonly string[] }> {
  return v.code === 'Unschedulable' || v.code === 'UnschedulableAndUnresolvable';
}

/** The verdict's reasons (rejections), or its message (errors), for explanations. */
export function verdictReasons(v: Verdict): readonly string[] {
  if (isRejection(v)) return v.reasons;
  if (v.code === 'Error') return [v.message];
  return [];
}
