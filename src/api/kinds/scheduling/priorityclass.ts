/**
 * PriorityClasses (scheduling.svc.io/v1, cluster-scoped): a name for a pod priority. The value is
 * fixed once written; user classes stay at or below 1,000,000,000 and may not use the `system-`
 * prefix, which belongs to the built-in classes the API server creates. That at most one class is
 * `globalDefault` is the Priority admission plugin's rule (src/apiserver/admission/priority.ts).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { fieldForbidden, immutable, invalidValue, oneOf, required } from '../../validation/field-errors.js';
import { defineKind, setDefault } from '../define.js';
import { bool, int32, objectSchema, str } from '../schema-dsl.js';
import { priorityClassColumns } from '../columns/core.js';
import { PREEMPTION_POLICIES } from '../core/scheduling-constraints.js';

/** The highest value a user-defined class may have. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** The built-in system classes (the API server creates them; their values are fixed). */
export const SYSTEM_PRIORITY_CLASSES: readonly { name: string; value: number; description: string }[] = Object.freeze([
  { name: 'system-node-critical', value: 2_000_001_000, description: 'Used for system critical pods that must not be moved from their current node.' },
  { name: 'system-cluster-critical', value: 2_000_000_000, description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.' },
]);

const SYSTEM_PRIORITY_VALUES: Readonly<Record<string, number>> = Object.fromEntries(SYSTEM_PRIORITY_CLASSES.map((c) => [c.name, c.value]));

export const priorityClassDefinition = defineKind({
  group: 'scheduling.svc.io',
  version: 'v1',
  kind: 'PriorityClass',
  plural: 'priorityclasses',
  tableColumns: priorityClassColumns,
  namespaced: false,
  shortNames: ['pc'],
  schema: objectSchema({ value: int32(), globalDefault: bool(), description: str(), preemptionPolicy: str() }),
  defaults(o: SvcObject): void {
    setDefault(o as Record<string, unknown>, 'preemptionPolicy', 'PreemptLowerPriority');
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const name = o.metadata.name ?? '';
    const value = o['value'];
    if (value === undefined || value === null) errs.push(required('value'));
    else if (typeof value !== 'number' || !Number.isInteger(value)) errs.push(invalidValue('value', value, 'must be an integer'));
    const system = SYSTEM_PRIORITY_VALUES[name];
    if (system !== undefined) {
      if (value !== system) errs.push(invalidValue('value', value, `the value of the system priority class ${name} must be ${system}`));
    } else if (name.startsWith('system-')) {
      errs.push(fieldForbidden('metadata.name', 'priority class names with the prefix "system-" are reserved for system use'));
    } else if (typeof value === 'number' && value > HIGHEST_USER_DEFINABLE_PRIORITY) {
      errs.push(invalidValue('value', value, `must not be greater than ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
    }
    errs.push(...oneOf('preemptionPolicy', o['preemptionPolicy'], PREEMPTION_POLICIES));
    if (old) {
      if (o['value'] !== old['value']) errs.push(fieldForbidden('value', 'may not be changed in an update.'));
      errs.push(...immutable('preemptionPolicy', o['preemptionPolicy'], old['preemptionPolicy']));
    }
    return errs;
  },
});
