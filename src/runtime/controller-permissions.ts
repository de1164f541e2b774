/**
 * The RBAC rules a controller needs, read off its definition: what it watches, owns and is
 * triggered by, the Events it records, plus the writes it declares in `permissions` (a reconcile's
 * writes cannot be seen from outside, so a controller states them). `svc rbac <module>` prints the
 * ClusterRole made of them, and the test cluster (src/testing) runs a user's controller as a service
 * account bound to exactly that role, so a permission the controller forgot to declare fails its
 * test with the server's 403, not a production cluster.
 *
 *   watches  -> get, list, watch
 *   owns     -> get, list, watch, create, update, patch, delete
 *   triggers -> get, list, watch
 *   Events   -> create, patch (the recorder writes core/v1 Events and aggregates repeats)
 *   permissions -> as declared
 *
 * Rules are merged per (apiGroup, resource, resourceNames) and sorted, so the printed role is
 * stable and small.
 */
import type { ControllerSpec } from './define-controller.js';
import type { ResourceRef } from '../client/types.js';
import type { SvcObject } from '../api/types.js';
import { EVENTS } from './resource-refs.js';

import type { PolicyRule } from '../api/kinds/rbac/roles.js';

export type { PolicyRule };

const READ = ['get', 'list', 'watch'];
const OWN = [...READ, 'create', 'update', 'patch', 'delete'];
/** The order verbs are printed in (the established roles' order). */
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/** What of a controller's definition its permissions come from. */
export type PermissionSource = Pick<ControllerSpec<SvcObject>, 'watches' | 'owns' | 'triggers' | 'permissions'>;

/** The rules controllers `specs` need together, merged and sorted. */
export function controllerPolicyRules(...specs: readonly PermissionSource[]): PolicyRule[] {
  const byKey = new Map<string, { group: string; resource: string; names: string[] | undefined; verbs: Set<string> }>();
  const add = (group: string, resource: string, verbs: readonly string[], names?: string[]) => {
    const key = `${group}\u0000${resource}\u0000${(names ?? []).join(',')}`;
    let r = byKey.get(key);
    if (!r) byKey.set(key, (r = { group, resource, names: names && names.length ? [...names].sort() : undefined, verbs: new Set() }));
    for (const v of verbs) r.verbs.add(v);
  };
  const ref = (r: ResourceRef, verbs: readonly string[]) => add(r.group, r.resource, verbs);
  const nonResource: PolicyRule[] = [];
  ref(EVENTS, ['create', 'patch']);
  for (const spec of specs) {
    ref(spec.watches, READ);
    for (const r of spec.owns ?? []) ref(r, OWN);
    for (const t of spec.triggers ?? []) ref(t.resource, READ);
    for (const p of spec.permissions ?? []) {
      if (p.nonResourceURLs?.length) {
        nonResource.push({ nonResourceURLs: [...p.nonResourceURLs], verbs: [...p.verbs] });
        continue;
      }
      for (const g of p.apiGroups ?? ['']) for (const res of p.resources ?? []) add(g, res, p.verbs, p.resourceNames);
    }
  }
  // Rules with the same group, names and verbs list their resources together.
  const grouped = new Map<string, PolicyRule>();
  for (const r of byKey.values()) {
    const verbs = [...r.verbs].sort(byVerbOrder);
    const key = `${r.group}\u0000${(r.names ?? []).join(',')}\u0000${verbs.join(',')}`;
    const rule = grouped.get(key);
    if (rule) rule.resources!.push(r.resource);
    else grouped.set(key, { apiGroups: [r.group], resources: [r.resource], verbs, ...(r.names ? { resourceNames: r.names } : {}) });
  }
  const rules = [...grouped.values()];
  for (const r of rules) r.resources!.sort();
  rules.sort((a, b) => `${a.apiGroups![0]}/${a.resources![0]}`.localeCompare(`${b.apiGroups![0]}/${b.resources![0]}`));
  return [...rules, ...nonResource];
}

function byVerbOrder(a: string, b: string): number {
  const ia = VERB_ORDER.indexOf(a);
  const ib = VERB_ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

/** The ClusterRole for controllers `specs` (one role for a module that hosts several). */
export function controllerClusterRole(name: string, specs: readonly PermissionSource[]): {
  apiVersion: string;
  kind: 'ClusterRole';
  metadata: { name: string };
  rules: PolicyRule[];
} {
  return { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', metadata: { name }, rules: controllerPolicyRules(...specs) };
}
