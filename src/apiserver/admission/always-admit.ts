/**
 * AlwaysAdmit (selectable, deprecated as established): admits every request; it changes and
 * refuses nothing, so enabling it is the same as not. Kept so a flag that names it is honoured.
 */
import type { AdmissionPlugin } from './chain.js';

export function alwaysAdmit(): AdmissionPlugin {
  return { name: 'AlwaysAdmit', sideEffects: 'None', handles: () => false };
}
