/**
 * The established admission refusals, shared by the plugins that answer with them:
 *
 * - `admissionForbidden`: admission.NewForbidden — 403 `<resource>[.<group>] "<name>" is forbidden:
 *   <why>`, the name being the request's, else the object's (as established, "Unknown" when none);
 * - `aggregateMessages`: several refusals as one message, as an established aggregate error reads;
 * - `unclassifiedError`: a plugin's plain error (not a Status), which the established server
 *   answers 500 with no reason and the message as is (kubectl: `Error from server: <message>`).
 */
import { forbidden, StatusError, type StatusReason } from '../../api/status.js';
import type { AdmissionAttributes } from './chain.js';

export function admissionForbidden(a: AdmissionAttributes, why: string): StatusError {
  const name = a.name || a.object?.metadata.name || a.object?.metadata.generateName || 'Unknown';
  const resource = a.def.group ? `${a.def.plural}.${a.def.group}` : a.def.plural;
  return forbidden(`${resource} "${name}" is forbidden: ${why}`, { group: a.def.group, resource: a.def.plural, name });
}

export function unclassifiedError(message: string): StatusError {
  const err = new StatusError(500, 'InternalError', message);
  delete (err.status as { reason?: StatusReason }).reason;
  return err;
}

/** Several refusals as one message, as established (an aggregate): one alone, several deduplicated in brackets. */
export function aggregateMessages(errors: readonly string[]): string {
  const seen = [...new Set(errors)];
  return seen.length === 1 ? seen[0]! : `[${seen.join(', ')}]`;
}
