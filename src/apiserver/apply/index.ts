/** Server-side apply and field ownership (managedFields). */
export { APPLY_PATCH_MEDIA_TYPE, handleApply, parseApplyConfiguration } from './apply.js';
export { type FieldPath, FieldSet, formatPath, type PathElement } from './field-set.js';
export {
  decodeManagedFields,
  encodeManagedFields,
  managerName,
  type ManagerEntry,
  type Ownership,
  recordOwnership,
  serverSideApplyEnabled,
  trackOwnership,
  updateOwnership,
} from './managed-fields.js';
export { mergeApplied } from './merge.js';
export { compareFields, fieldSetOf, objectFields, removeFields } from './object-fields.js';
