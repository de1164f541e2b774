/** Roles, ClusterRoles, RoleBindings, ClusterRoleBindings (rbac.authorization.svc.io/v1). Path-segment names. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { validateLabelSelectorSpec } from '../../labels.js';
import { invalidEach, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { isValidPathSegmentName } from '../../validation/names.js';
import { asArray, asRecord, defineKind } from '../define.js';
import { atomicList, labelSelector, obj, objectSchema, str } from '../schema-dsl.js';

export const RBAC_GROUP = 'rbac.authorization.svc.io';

/** One RBAC rule as stored (PolicyRule): the one shape the authorizer, the policy data and controllers' declared permissions use. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const policyRule = () =>
  obj({
    verbs: atomicList(str()),
    apiGroups: atomicList(str()),
    resources: atomicList(str()),
    resourceNames: atomicList(str()),
    nonResourceURLs: atomicList(str()),
  });

const subject = () => obj({ kind: str(), apiGroup: str(), name: str(), namespace: str() }, { 'x-svc-map-type': 'atomic' });
const roleRef = () => obj({ apiGroup: str(), kind: str(), name: str() }, { 'x-svc-map-type': 'atomic' });

function validateRules(rules: unknown, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  asArray(rules).forEach((raw, i) => {
    const r = asRecord(raw);
    const p = `rules[${i}]`;
    if (asArray(r['verbs']).length === 0) errs.push(required(`${p}.verbs`, 'verbs must contain at least one value'));
    const nonResource = asArray(r['nonResourceURLs']);
    if (nonResource.length > 0) {
      if (namespaced) errs.push(invalidValue(`${p}.nonResourceURLs`, nonResource, 'namespaced rules cannot apply to non-resource URLs'));
      if (asArray(r['apiGroups']).length || asArray(r['resources']).length || asArray(r['resourceNames']).length) {
        errs.push(invalidValue(`${p}.nonResourceURLs`, nonResource, 'rules cannot apply to both regular resources and non-resource URLs'));
      }
      return;
    }
    if (asArray(r['apiGroups']).length === 0) errs.push(required(`${p}.apiGroups`, 'resource rules must supply at least one api group'));
    if (asArray(r['resources']).length === 0) errs.push(required(`${p}.resources`, 'resource rules must supply at least one resource'));
  });
  return errs;
}

function validateBinding(o: SvcObject, old: SvcObject | undefined, clusterScoped: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asRecord(o['roleRef']);
  if (ref['apiGroup'] !== RBAC_GROUP) errs.push(notSupported('roleRef.apiGroup', ref['apiGroup'] ?? '', [RBAC_GROUP]));
  const kinds = clusterScoped ? ['ClusterRole'] : ['Role', 'ClusterRole'];
  if (typeof ref['kind'] !== 'string' || !kinds.includes(ref['kind'])) errs.push(notSupported('roleRef.kind', ref['kind'] ?? '', kinds));
  if (typeof ref['name'] !== 'string' || ref['name'] === '') errs.push(required('roleRef.name'));
  else errs.push(...invalidEach('roleRef.name', ref['name'], isValidPathSegmentName(ref['name'])));
  asArray(o['subjects']).forEach((raw, i) => {
    const s = asRecord(raw);
    const p = `subjects[${i}]`;
    if (typeof s['name'] !== 'string' || s['name'] === '') errs.push(required(`${p}.name`));
    switch (s['kind']) {
      case 'ServiceAccount':
        if (s['apiGroup']) errs.push(notSupported(`${p}.apiGroup`, s['apiGroup'], ['']));
        if (clusterScoped && !s['namespace']) errs.push(required(`${p}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (s['apiGroup'] !== RBAC_GROUP) errs.push(notSupported(`${p}.apiGroup`, s['apiGroup'] ?? '', [RBAC_GROUP]));
        break;
      default:
        errs.push(notSupported(`${p}.kind`, s['kind'] ?? '', ['ServiceAccount', 'User', 'Group']));
    }
  });
  if (old && JSON.stringify(asRecord(old['roleRef'])) !== JSON.stringify(ref)) errs.push(invalidValue('roleRef', ref, 'cannot change roleRef'));
  return errs;
}

export const roleDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
  nameRule: 'path-segment',
  schema: objectSchema({ rules: atomicList(policyRule()) }),
  validate: (o) => validateRules(o['rules'], true),
});

export const clusterRoleDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
  nameRule: 'path-segment',
  schema: objectSchema({ rules: atomicList(policyRule()), aggregationRule: obj({ clusterRoleSelectors: atomicList(labelSelector()) }) }),
  validate(o: SvcObject): FieldError[] {
    const errs = validateRules(o['rules'], false);
    asArray(asRecord(o['aggregationRule'])['clusterRoleSelectors']).forEach((s, i) => errs.push(...validateLabelSelectorSpec(s, `aggregationRule.clusterRoleSelectors[${i}]`)));
    return errs;
  },
});

export const roleBindingDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  plural: 'rolebindings',
  namespaced: true,
  nameRule: 'path-segment',
  schema: objectSchema({ subjects: atomicList(subject()), roleRef: roleRef() }),
  validate: (o, old) => validateBinding(o, old, false),
});

export const clusterRoleBindingDefinition = defineKind({
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
  namespaced: false,
  nameRule: 'path-segment',
  schema: objectSchema({ subjects: atomicList(subject()), roleRef: roleRef() }),
  validate: (o, old) => validateBinding(o, old, true),
});
