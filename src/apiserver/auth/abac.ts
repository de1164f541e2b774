/**
 * The ABAC authorization mode (--authorization-mode=...,ABAC,... with --authorization-policy-file):
 * a file of policies, one JSON document per line, in the established format:
 *
 *   {"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy",
 *    "spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}
 *
 * (`abac.authorization.svc.io/v1beta1` is accepted as our spelling; unversioned lines, the
 * established v0 format `{"user":...,"readonly":...}`, are converted as established.)
 *
 * The established rules, kept exactly:
 * - blank lines and lines starting with `#` are skipped; any other line that is not a Policy
 *   stops the server at start, naming the file, the line number and the line;
 * - a policy matches a user when its `user` is the user's name and its `group` one of the
 *   user's groups (either may be left out, not both; in v1beta1 `"*"` as user or group means
 *   every authenticated user, i.e. group system:authenticated);
 * - `readonly` policies match only get, list and watch; others every verb;
 * - a resource request matches `namespace`, `resource` and `apiGroup` (each `*` for any; the
 *   resource without its subresource, the group in either spelling); a non-resource request
 *   matches `nonResourcePath`: `*`, the exact path, or a prefix ending in `*`;
 * - the first matching policy allows; none: no opinion, "No policy matched.". ABAC never denies;
 * - rulesFor lists, for the user and namespace, one rule per matching policy (verbs `*` or
 *   get/list/watch) and is complete.
 */
import { canonicalGroup } from '../../api/established-spelling.js';
import { type AccessAttributes, type AccessDecision, type AccessRules, type Authorizer, NO_OPINION } from './authorization.js';
import { AUTHENTICATED_GROUP, type UserInfo } from './user.js';

/** One policy's spec, after conversion (fields the established internal version has). */
export interface AbacPolicy {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const VERSIONED = new Set(['abac.authorization.kubernetes.io/v1beta1', 'abac.authorization.svc.io/v1beta1']);
const V0 = new Set(['abac.authorization.kubernetes.io/v0', 'abac.authorization.svc.io/v0']);
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export class AbacPolicyError extends Error {}

/** The policies of a file's text; throws AbacPolicyError naming the file and line of the first bad line. */
export function parseAbacPolicies(text: string, file: string): AbacPolicy[] {
  const out: AbacPolicy[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, '');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      out.push(policyOf(trimmed));
    } catch (err) {
      throw new AbacPolicyError(`error reading policy file ${file}, line ${i + 1}: ${line}: ${(err as Error).message}`);
    }
  }
  return out;
}

function policyOf(line: string): AbacPolicy {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch (err) {
    throw new Error(`not a JSON object: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
  const d = doc as Record<string, unknown>;
  const apiVersion = d['apiVersion'];
  const kind = d['kind'];
  if (apiVersion === undefined && kind === undefined) return fromV0(d);
  if (typeof apiVersion !== 'string' || !(VERSIONED.has(apiVersion) || V0.has(apiVersion))) {
    throw new Error(`unknown apiVersion ${JSON.stringify(apiVersion)}: expected abac.authorization.kubernetes.io/v1beta1`);
  }
  if (kind !== 'Policy') throw new Error(`kind ${JSON.stringify(kind)} is not Policy`);
  if (V0.has(apiVersion)) return fromV0(d);
  const spec = d['spec'];
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new Error('spec must be an object');
  const s = spec as Record<string, unknown>;
  const p: AbacPolicy = {
    user: str(s, 'user'),
    group: str(s, 'group'),
    readonly: bool(s, 'readonly'),
    apiGroup: str(s, 'apiGroup'),
    resource: str(s, 'resource'),
    namespace: str(s, 'namespace'),
    nonResourcePath: str(s, 'nonResourcePath'),
  };
  // v1beta1: "*" as user or group is every authenticated subject.
  if (p.user === '*' || p.group === '*') {
    p.group = AUTHENTICATED_GROUP;
    p.user = '';
  }
  return p;
}

/** The established v0 -> internal conversion (unversioned lines). */
function fromV0(d: Record<string, unknown>): AbacPolicy {
  const user = str(d, 'user');
  const group = str(d, 'group');
  const namespace = str(d, 'namespace');
  const resource = str(d, 'resource');
  const p: AbacPolicy = { user, group, readonly: bool(d, 'readonly'), apiGroup: '*', resource: resource || '*', namespace: namespace || '*', nonResourcePath: '' };
  if (!user && !group) p.group = AUTHENTICATED_GROUP;
  if (user === '*' || group === '*') {
    p.group = AUTHENTICATED_GROUP;
    p.user = '';
  }
  if (!namespace && !resource) p.nonResourcePath = '*';
  return p;
}

function str(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new Error(`${field} must be a string`);
  return v;
}

function bool(o: Record<string, unknown>, field: string): boolean {
  const v = o[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new Error(`${field} must be true or false`);
  return v;
}

export function subjectMatches(p: AbacPolicy, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user === '*') matched = true;
    else if (p.user === user.username) matched = true;
    else return false;
  }
  if (p.group) {
    if (p.group === '*') matched = true;
    else if (user.groups.includes(p.group)) matched = true;
    else return false;
  }
  return matched;
}

function verbMatches(p: AbacPolicy, verb: string): boolean {
  return READ_ONLY_VERBS.has(verb) || !p.readonly;
}

function attributesMatch(p: AbacPolicy, a: AccessAttributes): boolean {
  if (a.kind === 'resource') {
    return (
      (p.namespace === '*' || p.namespace === a.namespace) &&
      (p.resource === '*' || p.resource === a.resource) &&
      (p.apiGroup === '*' || canonicalGroup(p.apiGroup) === canonicalGroup(a.group))
    );
  }
  if (p.nonResourcePath === '*' || p.nonResourcePath === a.path) return true;
  return p.nonResourcePath.endsWith('*') && a.path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

export class AbacAuthorizer implements Authorizer {
  readonly mode = 'ABAC';
  constructor(readonly policies: readonly AbacPolicy[]) {}

  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision {
    for (const p of this.policies) {
      if (subjectMatches(p, user) && verbMatches(p, attributes.verb) && attributesMatch(p, attributes)) return { allowed: true, reason: '' };
    }
    return { ...NO_OPINION, reason: 'No policy matched.' };
  }

  rulesFor(user: UserInfo, namespace: string): AccessRules {
    const out: AccessRules = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const p of this.policies) {
      if (!subjectMatches(p, user)) continue;
      if (p.namespace !== '*' && p.namespace !== namespace) continue;
      const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
      if (p.resource) out.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath) out.nonResourceRules.push({ verbs: [...verbs], nonResourceURLs: [p.nonResourcePath] });
    }
    return out;
  }
}
