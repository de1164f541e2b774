/**
 * RBAC policy rules: what one rule allows, whether one set of rules covers another, and the
 * established text forms of rules in messages. Pure functions over plain rule values; the
 * authorizer (./authorizer.ts), escalation prevention (./escalation.ts) and the aggregation
 * controller's tests read these.
 *
 * Matching carries over the established rules exactly:
 * - verbs: `*` or the verb;
 * - apiGroups: `*` or the group (groups are compared in our canonical spelling, so a rule written
 *   with `rbac.authorization.k8s.io` matches requests to `rbac.authorization.svc.io`);
 * - resources: `*`, the resource (`pods`), the resource with its subresource (`pods/log`), or
 *   `*\/<subresource>` (`*\/scale`, any resource's scale);
 * - resourceNames: empty (any name) or contains the name (a request with no name — list, watch,
 *   create, deletecollection — never matches a rule with names);
 * - nonResourceURLs: `*`, the path, or a prefix ending in `*`.
 */
import { canonicalGroup } from '../../../api/established-spelling.js';
import type { PolicyRule } from '../../../api/kinds/rbac/roles.js';
import type { AccessAttributes } from '../authorization.js';

export type { PolicyRule };

export const VERB_ALL = '*';
export const GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const URL_ALL = '*';

/** `value` from a stored object's rules field: only well-formed string lists are kept. */
export function rulesOf(raw: unknown): PolicyRule[] {
  if (!Array.isArray(raw)) return [];
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
  return raw.map((r) => {
    const o = (r ?? {}) as Record<string, unknown>;
    const rule: PolicyRule = { verbs: strings(o['verbs']) ?? [] };
    const g = strings(o['apiGroups']);
    const res = strings(o['resources']);
    const names = strings(o['resourceNames']);
    const urls = strings(o['nonResourceURLs']);
    if (g) rule.apiGroups = g;
    if (res) rule.resources = res;
    if (names) rule.resourceNames = names;
    if (urls) rule.nonResourceURLs = urls;
    return rule;
  });
}

/**
 * A rule prepared for fast matching: its lists as Sets, its groups in our spelling. Built once per
 * stored role (the policy index keeps these), never per request.
 */
export interface CompiledRule {
  readonly rule: PolicyRule;
  readonly allVerbs: boolean;
  readonly verbs: ReadonlySet<string>;
  readonly allGroups: boolean;
  readonly groups: ReadonlySet<string>;
  readonly allResources: boolean;
  readonly resources: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
  readonly urls: readonly string[];
}

export function compileRule(rule: PolicyRule): CompiledRule {
  const verbs = new Set(rule.verbs);
  const groups = new Set((rule.apiGroups ?? []).map(canonicalGroup));
  const resources = new Set(rule.resources ?? []);
  return {
    rule,
    allVerbs: verbs.has(VERB_ALL),
    verbs,
    allGroups: groups.has(GROUP_ALL),
    groups,
    allResources: resources.has(RESOURCE_ALL),
    resources,
    names: new Set(rule.resourceNames ?? []),
    urls: rule.nonResourceURLs ?? [],
  };
}

/** The established rule check (RuleAllows): does this rule allow the request? */
export function ruleAllows(r: CompiledRule, a: AccessAttributes): boolean {
  if (!r.allVerbs && !r.verbs.has(a.verb)) return false;
  if (a.kind === 'nonResource') {
    for (const u of r.urls) if (urlMatches(u, a.path)) return true;
    return false;
  }
  if (!r.allGroups && !r.groups.has(a.group)) return false;
  if (!r.allResources) {
    const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
    if (!r.resources.has(combined) && !(a.subresource && r.resources.has(`*/${a.subresource}`))) return false;
  }
  return r.names.size === 0 || r.names.has(a.name);
}

function urlMatches(ruleUrl: string, path: string): boolean {
  if (ruleUrl === URL_ALL || ruleUrl === path) return true;
  return ruleUrl.endsWith('*') && path.startsWith(ruleUrl.slice(0, -1));
}

// ---------------------------------------------------------------------------------------------
// Covers: does a set of rules (what a user holds) include every permission of another set (what
// they try to grant)? The established algorithm: break each requested rule into atomic rules (one
// verb, one group, one resource, at most one name; one verb and one URL), and look for an owner
// rule covering each one.

/** Each requested permission alone (the established BreakdownRule). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (rule.resourceNames?.length) {
          for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[], want: readonly string[]) => want.every((w) => set.includes(w));

function resourceCoversAll(owner: readonly string[], wanted: readonly string[]): boolean {
  if (owner.includes(RESOURCE_ALL) || hasAll(owner, wanted)) return true;
  for (const path of wanted) {
    if (owner.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!owner.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function urlCovers(owner: string, sub: string): boolean {
  if (owner === sub) return true;
  // Established: the owner's trailing stars are trimmed, so `/api/*` covers `/api/v1` and `/api/*`.
  return owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, ''));
}

/** The established ruleCovers: does one owner rule include all of `sub`? */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerGroups = (owner.apiGroups ?? []).map(canonicalGroup);
  const subGroups = (sub.apiGroups ?? []).map(canonicalGroup);
  const verbs = owner.verbs.includes(VERB_ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = ownerGroups.includes(GROUP_ALL) || hasAll(ownerGroups, subGroups);
  const resources = resourceCoversAll(owner.resources ?? [], sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** Whether `owner` covers every permission of `requested`, and the permissions it lacks (compacted). */
export function covers(owner: readonly PolicyRule[], requested: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const r of requested) {
    for (const atom of breakdownRule(r)) {
      if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
    }
  }
  return { covered: missing.length === 0, missing: compactRules(missing) };
}

/**
 * The established CompactRules: atomic resource rules with one group and one resource and no names
 * are merged into one rule per (group, resource) listing every verb; everything else stays.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const simple = new Map<string, PolicyRule>();
  const out: PolicyRule[] = [];
  for (const r of rules) {
    const simpleRule = r.apiGroups?.length === 1 && r.resources?.length === 1 && !r.resourceNames?.length && !r.nonResourceURLs?.length;
    if (!simpleRule) {
      out.push(r);
      continue;
    }
    const key = `${r.apiGroups![0]}\0${r.resources![0]}`;
    const existing = simple.get(key);
    if (existing) {
      for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
    } else {
      const merged: PolicyRule = { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] };
      simple.set(key, merged);
      out.push(merged);
    }
  }
  return out;
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuotedList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** The established CompactString of a rule: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuotedList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuotedList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuotedList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuotedList(r.resourceNames)}`);
  if (r.verbs.length) parts.push(`Verbs:${goQuotedList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Missing rules as the established message lists them: sorted, one per line. */
export function rulesToString(rules: readonly PolicyRule[]): string {
  return [...new Set(rules.map(compactString))].sort().join('\n');
}
