/**
 * AlwaysDeny (selectable, for tests, as established): refuses every write that reaches admission
 * (create, update, delete, connect, of every resource) with 403
 * `<resource> "<name>" is forbidden: admission control is denying all modifications`.
 * Last in the run order; it refuses in the mutating phase already.
 */
import { type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

const WHY = 'admission control is denying all modifications';

export function alwaysDeny(): AdmissionPlugin {
  return {
    name: 'AlwaysDeny',
    sideEffects: 'None',
    handles: () => true,
    mutate(a) {
      throw admissionForbidden(a, WHY);
    },
    validate(a) {
      throw admissionForbidden(a, WHY);
    },
  };
}
