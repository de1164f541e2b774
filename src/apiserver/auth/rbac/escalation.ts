/**
 * Escalation prevention on writes of Roles, ClusterRoles, RoleBindings and ClusterRoleBindings
 * (the established policy-based storage), run on the write path after validation (./write-hooks.ts):
 *
 * - a Role or ClusterRole may be created or changed only by someone who holds every permission it
 *   grants (RBAC rules of the writer in the role's namespace; `covers` in ./rules.ts), unless they
 *   may `escalate` roles/clusterroles; setting an `aggregationRule` needs cluster-admin's powers;
 * - a RoleBinding or ClusterRoleBinding may be created or changed only by someone who holds every
 *   permission of the role it references (in the binding's namespace), unless they may `bind` that
 *   role (by name);
 * - members of `system:masters` always pass; an update that only touches the fields the garbage
 *   collector writes (owner references, finalizers, deletion) is not checked;
 * - refusals are the established 403: `<resource> "<name>" is forbidden: user "<u>" (groups=[...])
 *   is attempting to grant RBAC permissions not currently held:\n<missing rules>`.
 *
 * The `escalate`/`bind` questions go to the authorizer chain in force, so with AlwaysAllow every
 * write passes as it does on the established server; the rules held come from the RBAC policy
 * (read only when a write needs them). Dry-run writes are checked exactly like real ones.
 */
import { clusterRoleBindingDefinition, clusterRoleDefinition, RBAC_GROUP, roleBindingDefinition, roleDefinition } from '../../../api/kinds/rbac/roles.js';
import { forbidden, notFound, StatusError } from '../../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../../api/types.js';
import type { FinishWrite, WriteHooks } from '../../write-hooks.js';
import type { Authorizer } from '../authorization.js';
import { MASTERS_GROUP, type UserInfo } from '../user.js';
import { RbacAuthorizer } from './authorizer.js';
import type { RbacPolicyIndex, RoleRef } from './policy-index.js';
import { covers, goQuotedList, type PolicyRule, rulesOf, rulesToString } from './rules.js';

/** Everything: what an aggregationRule may only be set by someone holding. */
const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const NOTHING: FinishWrite = () => {};

function forbiddenWrite(def: ResourceDefinition, name: string, why: string): StatusError {
  const what = `${def.plural}.${def.group}`;
  return forbidden(name ? `${what} "${name}" is forbidden: ${why}` : `${what} is forbidden: ${why}`, { group: def.group, resource: def.plural, name });
}

/** True when `next` differs from `old` only in the fields the garbage collector writes. */
function onlyGcFields(next: SvcObject, old: SvcObject): boolean {
  const strip = (o: SvcObject) => {
    const { ownerReferences: _o, finalizers: _f, deletionTimestamp: _d, deletionGracePeriodSeconds: _g, managedFields: _m, resourceVersion: _r, generation: _n, ...meta } = o.metadata;
    return JSON.stringify({ ...o, metadata: meta });
  };
  return strip(next) === strip(old);
}

export interface EscalationGuardOptions {
  /** The authorizer chain in force (asked about `escalate` and `bind`). */
  authorizer: () => Authorizer;
  /** The RBAC policy (the rules the writer holds); made when first needed. */
  policy: () => Promise<RbacPolicyIndex>;
}

/** The write hooks of the four RBAC kinds. */
export function escalationGuards(opts: EscalationGuardOptions): Map<ResourceDefinition, WriteHooks> {
  const resolver = async () => new RbacAuthorizer(await opts.policy());

  /** Refuses unless `user` holds every rule of `rules` in `namespace`. */
  async function confirmNoEscalation(def: ResourceDefinition, name: string, user: UserInfo, namespace: string, rules: PolicyRule[]): Promise<void> {
    const held = (await resolver()).rules(user, namespace);
    const { covered, missing } = covers(held.rules, rules);
    if (covered) return;
    let msg = `user "${user.username}" (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${rulesToString(missing)}`;
    if (held.errors.length) msg += `; resolution errors: [${held.errors.join(' ')}]`;
    throw forbiddenWrite(def, name, msg);
  }

  async function allowedBy(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
    const d = await opts.authorizer().authorize(user, { kind: 'resource', verb, group: RBAC_GROUP, version: '*', resource, subresource: '', namespace, name });
    return d.allowed;
  }

  function roleHooks(def: ResourceDefinition): WriteHooks {
    const check = async (obj: SvcObject, user: UserInfo, requestName: string): Promise<FinishWrite> => {
      if (user.groups.includes(MASTERS_GROUP)) return NOTHING;
      const namespace = obj.metadata.namespace ?? '';
      const name = obj.metadata.name ?? '';
      if (await allowedBy(user, 'escalate', def.plural, namespace, requestName)) return NOTHING;
      await confirmNoEscalation(def, name, user, namespace, rulesOf(obj['rules']));
      // An aggregationRule can gather anything, so setting one takes every permission there is.
      if (def === clusterRoleDefinition && obj['aggregationRule'] !== undefined && obj['aggregationRule'] !== null) {
        const held = (await resolver()).rules(user, '');
        if (!covers(held.rules, FULL_AUTHORITY).covered) throw forbiddenWrite(def, name, 'must have cluster-admin privileges to use the aggregationRule');
      }
      return NOTHING;
    };
    return {
      beginCreate: (obj, _dryRun, user) => check(obj, user, ''),
      beginUpdate: (next, old, _dryRun, user) => (onlyGcFields(next, old) ? Promise.resolve(NOTHING) : check(next, user, next.metadata.name ?? '')),
    };
  }

  function bindingHooks(def: ResourceDefinition): WriteHooks {
    const check = async (obj: SvcObject, user: UserInfo): Promise<FinishWrite> => {
      if (user.groups.includes(MASTERS_GROUP)) return NOTHING;
      const namespace = obj.metadata.namespace ?? '';
      const ref = (obj['roleRef'] ?? {}) as RoleRef;
      const resource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
      if (await allowedBy(user, 'bind', resource, namespace, ref.name)) return NOTHING;
      const role = (await opts.policy()).roleRules({ apiGroup: RBAC_GROUP, kind: ref.kind, name: ref.name }, namespace);
      // Established: a binding to a role that does not exist (and no `bind` on it) is a 404.
      if (!role) throw notFound({ group: RBAC_GROUP, resource, name: ref.name });
      await confirmNoEscalation(def, obj.metadata.name ?? '', user, namespace, role.rules);
      return NOTHING;
    };
    return {
      beginCreate: (obj, _dryRun, user) => check(obj, user),
      beginUpdate: (next, old, _dryRun, user) => (onlyGcFields(next, old) ? Promise.resolve(NOTHING) : check(next, user)),
    };
  }

  return new Map<ResourceDefinition, WriteHooks>([
    [roleDefinition, roleHooks(roleDefinition)],
    [clusterRoleDefinition, roleHooks(clusterRoleDefinition)],
    [roleBindingDefinition, bindingHooks(roleBindingDefinition)],
    [clusterRoleBindingDefinition, bindingHooks(clusterRoleBindingDefinition)],
  ]);
}
