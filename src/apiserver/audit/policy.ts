/**
 * The audit policy (`--audit-policy-file`): an `audit.svc.io/v1` Policy (the established
 * `audit.k8s.io/v1` spelling accepted too), parsed and checked at start, and the established
 * evaluation rule: the FIRST rule that matches a request decides its level; no rule matching is
 * level None (not audited). A rule matches when every list it sets matches:
 *
 * - `users`: the (authenticated, not impersonated) user name; `userGroups`: any of its groups;
 * - `verbs`: the request's verb (get, list, watch, create, update, patch, delete, deletecollection,
 *   or the HTTP verb of a non-resource path);
 * - `namespaces` / `resources`: resource requests only; `""` names cluster-scoped objects; each
 *   `resources[]` entry names its group (`""` core) and resources: `pods`, `pods/log`, `*`,
 *   `*\/status`, `deployments/*`, optionally narrowed by `resourceNames`;
 * - `nonResourceURLs`: non-resource paths only; `*` or a prefix ending in `*`, or the exact path.
 *
 * Stages left out are the policy's `omitStages` plus the matching rule's; `omitManagedFields` is the
 * rule's when it sets one, else the policy's. Pure: no I/O here (unit-tested in
 * test/apiserver/audit/policy.test.ts).
 */
import { parse as parseYaml } from 'yaml';
import { canonicalGroup } from '../../api/established-spelling.js';
import type { UserInfo } from '../auth/user.js';
import type { RequestInfo } from '../request-info.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof STAGES)[number];

/** The API versions a policy may name (ours first). */
export const POLICY_API_VERSIONS = ['audit.svc.io/v1', 'audit.k8s.io/v1'] as const;

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: AuditLevel;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: AuditStage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/** What the policy decides for one request. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: ReadonlySet<AuditStage>;
  omitManagedFields: boolean;
}

export class PolicyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyError';
  }
}

/** The rank of a level (None < Metadata < Request < RequestResponse). */
export function levelRank(level: AuditLevel): number {
  return LEVELS.indexOf(level);
}

const NOT_AUDITED: RequestAuditConfig = Object.freeze({ level: 'None', omitStages: new Set<AuditStage>(), omitManagedFields: false });

/** Parses and checks a policy file's text (YAML or JSON); `source` names it in messages. */
export function parsePolicy(text: string, source: string): AuditPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`${source}: not a YAML or JSON document: ${(err as Error).message}`);
  }
  const fail = (msg: string): never => {
    throw new PolicyError(`${source}: ${msg}`);
  };
  if (!isRecord(doc)) fail('expected a Policy object (apiVersion: audit.svc.io/v1, kind: Policy, rules: [...])');
  const d = doc as Record<string, unknown>;
  if (d['kind'] !== 'Policy') fail(`kind must be Policy, got ${JSON.stringify(d['kind'])}`);
  if (!(POLICY_API_VERSIONS as readonly unknown[]).includes(d['apiVersion'])) {
    fail(`apiVersion ${JSON.stringify(d['apiVersion'])} is not supported; use ${POLICY_API_VERSIONS.join(' or ')}`);
  }
  const rulesRaw = d['rules'];
  if (rulesRaw !== undefined && !Array.isArray(rulesRaw)) fail('rules must be a list');
  const rules = ((rulesRaw as unknown[] | undefined) ?? []).map((r, i) => parseRule(r, `rules[${i}]`, fail));
  // Established: a policy without rules audits nothing, which is refused as surely a mistake.
  if (rules.length === 0) fail('loaded illegal policy with 0 rules');
  const omitManagedFields = d['omitManagedFields'];
  if (omitManagedFields !== undefined && typeof omitManagedFields !== 'boolean') fail('omitManagedFields must be true or false');
  return { rules, omitStages: stages(d['omitStages'], 'omitStages', fail), omitManagedFields: omitManagedFields === true };
}

function parseRule(raw: unknown, path: string, fail: (m: string) => never): PolicyRule {
  if (!isRecord(raw)) fail(`${path}: expected an object`);
  const r = raw as Record<string, unknown>;
  const level = r['level'];
  if (level === undefined || level === '') fail(`${path}.level: Required value`);
  if (!(LEVELS as readonly unknown[]).includes(level)) fail(`${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`);
  const resources = r['resources'];
  if (resources !== undefined && !Array.isArray(resources)) fail(`${path}.resources must be a list`);
  const groups = ((resources as unknown[] | undefined) ?? []).map((g, i) => {
    const p = `${path}.resources[${i}]`;
    if (!isRecord(g)) fail(`${p}: expected an object`);
    const gr = g as Record<string, unknown>;
    const group = gr['group'] ?? '';
    if (typeof group !== 'string') fail(`${p}.group must be a string`);
    const res = strings(gr['resources'], `${p}.resources`, fail);
    const names = strings(gr['resourceNames'], `${p}.resourceNames`, fail);
    for (const [j, x] of res.entries()) {
      if (x === '') fail(`${p}.resources[${j}]: must not be empty`);
      if (x.includes('/') && !/^[^/]+\/[^/]+$/.test(x)) fail(`${p}.resources[${j}]: ${JSON.stringify(x)}: expected resource, resource/subresource, */subresource or resource/*`);
      if (names.length > 0 && (x === '*' || x.startsWith('*/'))) fail(`${p}.resourceNames: using resourceNames with a wildcard resource ${JSON.stringify(x)} is not allowed`);
    }
    // The established group spelling (rbac.authorization.k8s.io) names our group (rbac.authorization.svc.io).
    return { group: canonicalGroup(group as string), resources: res, resourceNames: names };
  });
  const namespaces = strings(r['namespaces'], `${path}.namespaces`, fail);
  const nonResourceURLs = strings(r['nonResourceURLs'], `${path}.nonResourceURLs`, fail);
  if (nonResourceURLs.length > 0 && (groups.length > 0 || namespaces.length > 0)) {
    fail(`${path}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
  }
  for (const [i, u] of nonResourceURLs.entries()) {
    if (u !== '*' && !u.startsWith('/')) fail(`${path}.nonResourceURLs[${i}]: ${JSON.stringify(u)}: non-resource URL rules must begin with '/' or be '*'`);
    if (u.slice(0, -1).includes('*')) fail(`${path}.nonResourceURLs[${i}]: ${JSON.stringify(u)}: '*' is only allowed as the last character`);
  }
  const omf = r['omitManagedFields'];
  if (omf !== undefined && typeof omf !== 'boolean') fail(`${path}.omitManagedFields must be true or false`);
  return {
    level: level as AuditLevel,
    users: strings(r['users'], `${path}.users`, fail),
    userGroups: strings(r['userGroups'], `${path}.userGroups`, fail),
    verbs: strings(r['verbs'], `${path}.verbs`, fail),
    resources: groups,
    namespaces,
    nonResourceURLs,
    omitStages: stages(r['omitStages'], `${path}.omitStages`, fail),
    ...(typeof omf === 'boolean' ? { omitManagedFields: omf } : {}),
  };
}

function stages(raw: unknown, path: string, fail: (m: string) => never): AuditStage[] {
  const list = strings(raw, path, fail);
  for (const s of list) {
    if (!(STAGES as readonly string[]).includes(s)) fail(`${path}: Unsupported value: ${JSON.stringify(s)}: supported values: ${STAGES.map((x) => `"${x}"`).join(', ')}`);
  }
  return list as AuditStage[];
}

function strings(raw: unknown, path: string, fail: (m: string) => never): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((x) => typeof x !== 'string')) fail(`${path} must be a list of strings`);
  return raw as string[];
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The level and stages the policy gives a request made by `user` (the authenticated user). */
export function evaluatePolicy(policy: AuditPolicy, user: UserInfo | undefined, info: RequestInfo): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, user, info)) continue;
    if (rule.level === 'None') return NOT_AUDITED;
    return {
      level: rule.level,
      omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
  }
  return NOT_AUDITED;
}

export function ruleMatches(rule: PolicyRule, user: UserInfo | undefined, info: RequestInfo): boolean {
  if (rule.users.length > 0 && (!user || !rule.users.includes(user.username))) return false;
  if (rule.userGroups.length > 0 && (!user || !user.groups.some((g) => rule.userGroups.includes(g)))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(info.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return resourceMatches(rule, info);
  if (rule.nonResourceURLs.length > 0) return !info.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(info.path, spec));
  return true;
}

function resourceMatches(rule: PolicyRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(info.namespace)) return false;
  if (rule.resources.length === 0) return true;
  const { group, resource, subresource, name } = info;
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const gr of rule.resources) {
    if (gr.group !== group) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(name)) continue;
    for (const r of gr.resources) {
      if (r === combined || r === '*') return true;
      if (subresource && r.startsWith('*/') && r.slice(2) === subresource) return true;
      if (r.endsWith('/*') && r.slice(0, -2) === resource) return true;
    }
  }
  return false;
}

/** `*`, the exact path, or a prefix ending in `*`. */
export function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}
