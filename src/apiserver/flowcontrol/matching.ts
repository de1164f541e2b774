/**
 * Classification of a request by the FlowSchemas (the established rule.go): pure functions of the
 * schemas, the request's user and its RequestInfo.
 *
 * - A schema matches when one of its rules does: one subject matches the user (User by name or `*`;
 *   Group by one of the user's groups or `*`; ServiceAccount by `system:serviceaccount:<ns>:<name>`
 *   with name `*` for every account of the namespace) and, for a resource request, one resource
 *   rule matches (verb, API group, `resource` or `resource/subresource`, and the namespace: a
 *   request without one needs `clusterScope`), for any other request one non-resource rule matches
 *   (verb, and the path: equal, `*`, or below the rule's path: `/healthz` and `/healthz/*` cover
 *   `/healthz/etcd`).
 * - Schemas are tried by ascending matchingPrecedence, then name; the first that matches wins.
 * - The flow distinguisher: ByUser the user name, ByNamespace the request's namespace, none ''.
 * API groups are compared in our spelling, so a rule may name `coordination.k8s.io`.
 */
import { canonicalGroup } from '../../api/established-spelling.js';
import { asArray, asRecord } from '../../api/kinds/define.js';
import type { SvcObject } from '../../api/types.js';
import { serviceAccountOfUsername, type UserInfo } from '../auth/user.js';
import type { RequestInfo } from '../request-info.js';

export interface CompiledFlowSchema {
  name: string;
  uid: string;
  precedence: number;
  priorityLevel: string;
  distinguisher: '' | 'ByUser' | 'ByNamespace';
  rules: CompiledRule[];
  /** The stored object (for its status). */
  object: SvcObject;
}

interface CompiledSubject {
  kind: string;
  name: string;
  namespace: string;
}

interface CompiledResourceRule {
  verbs: Set<string>;
  groups: Set<string>;
  resources: Set<string>;
  clusterScope: boolean;
  namespaces: Set<string>;
}

interface CompiledNonResourceRule {
  verbs: Set<string>;
  urls: string[];
}

interface CompiledRule {
  subjects: CompiledSubject[];
  resourceRules: CompiledResourceRule[];
  nonResourceRules: CompiledNonResourceRule[];
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => asArray(v).filter((x): x is string => typeof x === 'string');

/** A stored FlowSchema in the form matching reads. */
export function compileFlowSchema(o: SvcObject): CompiledFlowSchema {
  const spec = asRecord(o['spec']);
  const dm = text(asRecord(spec['distinguisherMethod'])['type']);
  return {
    name: o.metadata.name ?? '',
    uid: o.metadata.uid ?? '',
    precedence: typeof spec['matchingPrecedence'] === 'number' ? spec['matchingPrecedence'] : 1000,
    priorityLevel: text(asRecord(spec['priorityLevelConfiguration'])['name']),
    distinguisher: dm === 'ByUser' || dm === 'ByNamespace' ? dm : '',
    object: o,
    rules: asArray(spec['rules']).map((r) => {
      const rule = asRecord(r);
      return {
        subjects: asArray(rule['subjects']).map((s) => {
          const sub = asRecord(s);
          const kind = text(sub['kind']);
          const detail = asRecord(kind === 'User' ? sub['user'] : kind === 'Group' ? sub['group'] : sub['serviceAccount']);
          return { kind, name: text(detail['name']), namespace: text(detail['namespace']) };
        }),
        resourceRules: asArray(rule['resourceRules']).map((x) => {
          const rr = asRecord(x);
          return {
            verbs: new Set(strings(rr['verbs'])),
            groups: new Set(strings(rr['apiGroups']).map((g) => (g === '*' ? g : canonicalGroup(g)))),
            resources: new Set(strings(rr['resources'])),
            clusterScope: rr['clusterScope'] === true,
            namespaces: new Set(strings(rr['namespaces'])),
          };
        }),
        nonResourceRules: asArray(rule['nonResourceRules']).map((x) => {
          const nr = asRecord(x);
          return { verbs: new Set(strings(nr['verbs'])), urls: strings(nr['nonResourceURLs']) };
        }),
      };
    }),
  };
}

/** The established order of evaluation: ascending precedence, then name. */
export function compareFlowSchemas(a: Pick<CompiledFlowSchema, 'precedence' | 'name'>, b: Pick<CompiledFlowSchema, 'precedence' | 'name'>): number {
  return a.precedence - b.precedence || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function matchesSubject(user: UserInfo, s: CompiledSubject): boolean {
  switch (s.kind) {
    case 'User':
      return s.name === '*' || s.name === user.username;
    case 'Group':
      return s.name === '*' || user.groups.includes(s.name);
    case 'ServiceAccount': {
      const sa = serviceAccountOfUsername(user.username);
      return sa !== undefined && sa.namespace === s.namespace && (s.name === '*' || s.name === sa.name);
    }
    default:
      return false;
  }
}

const has = (set: Set<string>, v: string): boolean => set.has('*') || set.has(v);

function matchesResourceRule(info: Extract<RequestInfo, { isResourceRequest: true }>, namespace: string, r: CompiledResourceRule): boolean {
  if (!has(r.verbs, info.verb)) return false;
  if (!has(r.resources, info.subresource ? `${info.resource}/${info.subresource}` : info.resource)) return false;
  if (!has(r.groups, info.group)) return false;
  if (!namespace) return r.clusterScope;
  return has(r.namespaces, namespace);
}

function matchesNonResourceRule(info: RequestInfo, r: CompiledNonResourceRule): boolean {
  if (!has(r.verbs, info.verb)) return false;
  return r.urls.some((u) => {
    if (u === '*' || u === info.path) return true;
    // Established: a rule is also a prefix of the paths below it (`/healthz` covers `/healthz/etcd`).
    let prefix = u.endsWith('*') ? u.slice(0, -1) : u;
    if (!prefix.endsWith('/')) prefix += '/';
    return info.path.startsWith(prefix);
  });
}

/**
 * The namespace a request is in, as the established RequestInfo has it: a request for one
 * namespace (`/api/v1/namespaces/team`) is in that namespace.
 */
export function requestNamespace(info: RequestInfo): string {
  if (!info.isResourceRequest) return '';
  if (!info.namespace && !info.group && info.resource === 'namespaces' && info.name) return info.name;
  return info.namespace;
}

export function matchesFlowSchema(fs: CompiledFlowSchema, user: UserInfo, info: RequestInfo): boolean {
  const namespace = requestNamespace(info);
  return fs.rules.some(
    (rule) =>
      rule.subjects.some((s) => matchesSubject(user, s)) &&
      (info.isResourceRequest ? rule.resourceRules.some((r) => matchesResourceRule(info, namespace, r)) : rule.nonResourceRules.some((r) => matchesNonResourceRule(info, r))),
  );
}

/** The flow distinguisher of a request in a schema. */
export function flowDistinguisher(fs: Pick<CompiledFlowSchema, 'distinguisher'>, user: UserInfo, info: RequestInfo): string {
  if (fs.distinguisher === 'ByUser') return user.username;
  if (fs.distinguisher === 'ByNamespace') return requestNamespace(info);
  return '';
}

/** The first schema (of `sorted`, in evaluation order) that matches and passes `usable`. */
export function classify(sorted: readonly CompiledFlowSchema[], user: UserInfo, info: RequestInfo, usable: (fs: CompiledFlowSchema) => boolean): CompiledFlowSchema | undefined {
  for (const fs of sorted) if (usable(fs) && matchesFlowSchema(fs, user, info)) return fs;
  return undefined;
}
