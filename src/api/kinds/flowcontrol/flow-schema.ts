/**
 * FlowSchemas (flowcontrol.apiserver.svc.io/v1beta1, alias flowcontrol.apiserver.k8s.io;
 * cluster-scoped): which requests go to which priority level. A schema matches a request when one
 * of its `rules` does (a subject, and a resource or non-resource rule); among matching schemas the
 * lowest `matchingPrecedence` wins (then the name). `distinguisherMethod` splits its requests into
 * flows (ByUser, ByNamespace; none: one flow). Classification is src/apiserver/flowcontrol/matching.ts.
 *
 * Status: the `Dangling` condition says whether the referenced level exists (kept by the server).
 * Defaults and validation are the established ones (v1beta1): matchingPrecedence 1000, in [1, 10000].
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { goStringSlice, invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { asArray, asRecord, defineKind, section } from '../define.js';
import { atomicList, bool, conditions, int32, obj, objectSchema, setList, str } from '../schema-dsl.js';
import { flowSchemaColumns } from '../columns/flowcontrol.js';
import { FLOWCONTROL_GROUP, FLOWCONTROL_VERSION } from './priority-level.js';

export const FLOW_SCHEMA_EXEMPT = 'exempt';
export const FLOW_SCHEMA_CATCH_ALL = 'catch-all';
export const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'] as const;
export const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'] as const;
/** The condition saying the schema's priority level does not exist. */
export const CONDITION_DANGLING = 'Dangling';
const MAX_PRECEDENCE = 10_000;

const subject = () =>
  obj({ kind: str(), user: obj({ name: str() }), group: obj({ name: str() }), serviceAccount: obj({ namespace: str(), name: str() }) });
const resourceRule = () => obj({ verbs: setList(), apiGroups: setList(), resources: setList(), clusterScope: bool(), namespaces: setList() });
const nonResourceRule = () => obj({ verbs: setList(), nonResourceURLs: setList() });

export const flowSchemaDefinition = defineKind({
  group: FLOWCONTROL_GROUP,
  version: FLOWCONTROL_VERSION,
  kind: 'FlowSchema',
  plural: 'flowschemas',
  namespaced: false,
  subresources: ['status'],
  tableColumns: flowSchemaColumns,
  tracksGeneration: true,
  schema: objectSchema({
    spec: obj({
      priorityLevelConfiguration: obj({ name: str() }),
      matchingPrecedence: int32(),
      distinguisherMethod: obj({ type: str() }),
      rules: atomicList(obj({ subjects: atomicList(subject()), resourceRules: atomicList(resourceRule()), nonResourceRules: atomicList(nonResourceRule()) })),
    }),
    status: obj({ conditions: conditions() }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    if (!spec['matchingPrecedence']) spec['matchingPrecedence'] = 1000;
  },
  validate: validateFlowSchema,
});

function validateFlowSchema(o: SvcObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(o['spec']);
  const precedence = spec['matchingPrecedence'];
  if (typeof precedence !== 'number' || precedence <= 0) errs.push(invalidValue('spec.matchingPrecedence', precedence ?? 0, 'must be a positive value'));
  else if (precedence > MAX_PRECEDENCE) errs.push(invalidValue('spec.matchingPrecedence', precedence, `must not be greater than ${MAX_PRECEDENCE}`));
  const dm = spec['distinguisherMethod'];
  if (dm !== undefined && dm !== null) {
    const t = asRecord(dm)['type'];
    if (!(DISTINGUISHER_METHODS as readonly unknown[]).includes(t)) errs.push(notSupported('spec.distinguisherMethod.type', t ?? '', DISTINGUISHER_METHODS));
  }
  if (!asRecord(spec['priorityLevelConfiguration'])['name']) errs.push(required('spec.priorityLevelConfiguration.name', 'must reference a priority level'));
  asArray(spec['rules']).forEach((r, i) => errs.push(...validateRule(`spec.rules[${i}]`, asRecord(r))));
  return errs;
}

function validateRule(at: string, rule: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = asArray(rule['subjects']);
  if (subjects.length === 0) errs.push(required(`${at}.subjects`, 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(`${at}.subjects[${i}]`, asRecord(s))));
  const resourceRules = asArray(rule['resourceRules']);
  const nonResourceRules = asArray(rule['nonResourceRules']);
  if (resourceRules.length === 0 && nonResourceRules.length === 0) errs.push(required(at, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) => errs.push(...validateResourceRule(`${at}.resourceRules[${i}]`, asRecord(r))));
  nonResourceRules.forEach((r, i) => errs.push(...validateNonResourceRule(`${at}.nonResourceRules[${i}]`, asRecord(r))));
  return errs;
}

function validateSubject(at: string, s: Record<string, unknown>): FieldError[] {
  const kind = s['kind'];
  const errs: FieldError[] = [];
  const present = (k: string) => s[k] !== undefined && s[k] !== null;
  const forbidOthers = (own: string) => {
    for (const [k, name] of [['user', 'User'], ['group', 'Group'], ['serviceAccount', 'ServiceAccount']] as const) {
      if (k !== own && present(k)) errs.push({ field: `${at}.${k}`, type: 'FieldValueForbidden', message: `Forbidden: ${k} is forbidden when subject kind is not '${name}'` });
    }
  };
  switch (kind) {
    case 'User':
      if (!present('user')) errs.push(required(`${at}.user`, "user is required when subject kind is 'User'"));
      else if (!asRecord(s['user'])['name']) errs.push(required(`${at}.user.name`, 'username is required'));
      forbidOthers('user');
      break;
    case 'Group':
      if (!present('group')) errs.push(required(`${at}.group`, "group is required when subject kind is 'Group'"));
      else if (!asRecord(s['group'])['name']) errs.push(required(`${at}.group.name`, 'name is required'));
      forbidOthers('group');
      break;
    case 'ServiceAccount': {
      if (!present('serviceAccount')) {
        errs.push(required(`${at}.serviceAccount`, "serviceAccount is required when subject kind is 'ServiceAccount'"));
      } else {
        const sa = asRecord(s['serviceAccount']);
        if (!sa['name']) errs.push(required(`${at}.serviceAccount.name`, 'name is required'));
        if (!sa['namespace']) errs.push(required(`${at}.serviceAccount.namespace`, 'must specify namespace for service account'));
      }
      forbidOthers('serviceAccount');
      break;
    }
    default:
      errs.push(notSupported(`${at}.kind`, kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

/** A list that may hold '*' only alone. */
function starAlone(at: string, list: unknown[], what: string): FieldError[] {
  if (!list.includes('*') || list.length < 2) return [];
  return [{ field: at, type: 'FieldValueInvalid', message: `Invalid value: ${goStringSlice(list)}: if '*' is present, must not specify other ${what}` }];
}

function validateResourceRule(at: string, r: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const verbs = asArray(r['verbs']);
  const groups = asArray(r['apiGroups']);
  const resources = asArray(r['resources']);
  const namespaces = asArray(r['namespaces']);
  if (verbs.length === 0) errs.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
  errs.push(...starAlone(`${at}.verbs`, verbs, 'verbs'));
  if (groups.length === 0) errs.push(required(`${at}.apiGroups`, 'resource rules must supply at least one api group'));
  errs.push(...starAlone(`${at}.apiGroups`, groups, 'api groups'));
  if (resources.length === 0) errs.push(required(`${at}.resources`, 'resource rules must supply at least one resource'));
  errs.push(...starAlone(`${at}.resources`, resources, 'resources'));
  if (namespaces.length === 0 && r['clusterScope'] !== true) errs.push(required(`${at}.namespaces`, 'resource rules that are not cluster scoped must supply at least one namespace'));
  errs.push(...starAlone(`${at}.namespaces`, namespaces, 'namespaces'));
  return errs;
}

function validateNonResourceRule(at: string, r: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const verbs = asArray(r['verbs']);
  const urls = asArray(r['nonResourceURLs']);
  if (verbs.length === 0) errs.push(required(`${at}.verbs`, 'verbs must contain at least one value'));
  errs.push(...starAlone(`${at}.verbs`, verbs, 'verbs'));
  if (urls.length === 0) errs.push(required(`${at}.nonResourceURLs`, 'nonResourceURLs must contain at least one value'));
  errs.push(...starAlone(`${at}.nonResourceURLs`, urls, 'non-resource URLs'));
  urls.forEach((u, i) => {
    if (u === '*') return;
    const path = typeof u === 'string' ? u : '';
    const field = `${at}.nonResourceURLs[${i}]`;
    if (!path.startsWith('/')) errs.push(invalidValue(field, u, 'must start with slash'));
    else if (path.includes('//')) errs.push(invalidValue(field, u, 'must not contain double slash'));
    else if (path.slice(0, -1).includes('*') || (path.endsWith('*') && !path.endsWith('/*'))) errs.push(invalidValue(field, u, 'wildcard can only do suffix glob matching'));
  });
  return errs;
}
