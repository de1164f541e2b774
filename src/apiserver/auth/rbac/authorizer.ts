/**
 * The RBAC authorization mode (`--authorization-mode=RBAC`), with the established decision rules:
 *
 * - the ClusterRoleBindings naming the user (or one of their groups; a ServiceAccount subject is
 *   its `system:serviceaccount:<ns>:<name>` user) grant their ClusterRole's rules everywhere;
 * - the RoleBindings of the request's namespace grant their Role's, or their ClusterRole's, rules
 *   in that namespace only — so a cluster-wide request (a LIST or WATCH across all namespaces, or
 *   a cluster-scoped resource) needs a cluster grant, and a user bound in one namespace sees only it;
 * - RBAC only allows: a request no rule matches gets no opinion (the next mode, or a 403). The
 *   reason of an allow names the binding (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole
 *   "y" to User "z"`); a refusal's reason is empty unless a binding named a missing role (`RBAC:
 *   clusterrole.rbac.authorization.svc.io "y" not found`), as established.
 *
 * Decisions read the in-memory policy (./policy-index.ts) and cost O(bindings of the user).
 */
import { RBAC_GROUP } from '../../../api/kinds/rbac/roles.js';
import type { AccessAttributes, AccessDecision, AccessRules, Authorizer } from '../authorization.js';
import { NO_OPINION } from '../authorization.js';
import { serviceAccountUsername, type UserInfo } from '../user.js';
import { type IndexedBinding, type RbacPolicyIndex, type Subject, subjectKeysOf } from './policy-index.js';
import { type PolicyRule, ruleAllows } from './rules.js';

/** The established text of a missing role (the informer lister's NotFound). */
export function roleNotFound(kind: string, name: string): string {
  return `${kind.toLowerCase()}.${RBAC_GROUP} "${name}" not found`;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} "${s.name}/${s.namespace || bindingNamespace}"`;
  return `${s.kind} "${s.name}"`;
}

function describeBinding(b: IndexedBinding, s: Subject): string {
  const name = b.kind === 'RoleBinding' ? `${b.name}/${b.namespace}` : b.name;
  return `${b.kind} "${name}" of ${b.roleRef.kind} "${b.roleRef.name}" to ${describeSubject(s, b.namespace)}`;
}

/** The subject of `b` that names `user` (for the reason text). */
function matchingSubject(b: IndexedBinding, user: UserInfo): Subject {
  for (const s of b.subjects) {
    if (s.kind === 'User' && s.name === user.username) return s;
    if (s.kind === 'Group' && user.groups.includes(s.name)) return s;
    if (s.kind === 'ServiceAccount' && user.username === serviceAccountUsername(s.namespace || b.namespace, s.name)) return s;
  }
  return b.subjects[0] ?? { kind: 'User', name: user.username };
}

/** An allow whose reason (read by access reviews, not by ordinary requests) is made only when asked for. */
class RbacAllow implements AccessDecision {
  readonly allowed = true;
  constructor(
    private readonly binding: IndexedBinding,
    private readonly user: UserInfo,
  ) {}
  get reason(): string {
    return `RBAC: allowed by ${describeBinding(this.binding, matchingSubject(this.binding, this.user))}`;
  }
}

export class RbacAuthorizer implements Authorizer {
  readonly mode = 'RBAC';
  constructor(readonly policy: RbacPolicyIndex) {}

  /** The bindings that apply to `user` in `namespace`: cluster bindings first, then the namespace's. */
  private bindingsFor(user: UserInfo, namespace: string): IndexedBinding[] {
    const keys = subjectKeysOf(user);
    const cluster = this.policy.clusterBindingsFor(keys);
    if (!namespace) return cluster;
    const local = this.policy.roleBindingsFor(namespace, keys);
    return local.length ? [...cluster, ...local] : cluster;
  }

  authorize(user: UserInfo, attributes: AccessAttributes): AccessDecision {
    const namespace = attributes.kind === 'resource' ? attributes.namespace : '';
    let allowedBy: IndexedBinding | undefined;
    let errors: string[] | undefined;
    // The request path: no arrays or strings are built unless a binding names a missing role.
    const visit = (b: IndexedBinding): boolean => {
      const role = this.policy.roleRules(b.roleRef, b.namespace);
      if (!role) {
        (errors ??= []).push(roleNotFound(b.roleRef.kind, b.roleRef.name));
        return false;
      }
      for (const r of role.compiled) {
        if (ruleAllows(r, attributes)) {
          allowedBy = b;
          return true;
        }
      }
      return false;
    };
    if (this.policy.someClusterBinding(user, visit) || (namespace !== '' && this.policy.someRoleBinding(namespace, user, visit))) {
      return new RbacAllow(allowedBy!, user);
    }
    if (!errors) return NO_OPINION;
    const unique = [...new Set(errors)];
    return { allowed: false, reason: `RBAC: ${unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`}` };
  }

  /** The rules RBAC grants `user` in `namespace` ('' : cluster-wide grants only), and roles it could not find. */
  rules(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const b of this.bindingsFor(user, namespace)) {
      const role = this.policy.roleRules(b.roleRef, b.namespace);
      if (role) rules.push(...role.rules);
      else errors.push(roleNotFound(b.roleRef.kind, b.roleRef.name));
    }
    return { rules, errors };
  }

  rulesFor(user: UserInfo, namespace: string): AccessRules {
    const { rules, errors } = this.rules(user, namespace);
    const out: AccessRules = { resourceRules: [], nonResourceRules: [], incomplete: errors.length > 0 };
    for (const r of rules) {
      if (r.resources?.length) {
        out.resourceRules.push({
          verbs: [...r.verbs],
          apiGroups: [...(r.apiGroups ?? [])],
          resources: [...r.resources],
          ...(r.resourceNames?.length ? { resourceNames: [...r.resourceNames] } : {}),
        });
      }
      if (r.nonResourceURLs?.length) out.nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] });
    }
    if (errors.length) out.evaluationError = errors.join(', ');
    return out;
  }
}
