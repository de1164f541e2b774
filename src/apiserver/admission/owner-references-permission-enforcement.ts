/**
 * OwnerReferencesPermissionEnforcement (off by default; validating, CREATE and UPDATE): who may
 * change an object's `metadata.ownerReferences`, so a user cannot make the garbage collector
 * delete, or hold back the deletion of, what they could not delete themselves. Established
 * behaviour, kept:
 *
 * - a write that leaves the owner references as they were is always allowed; so is pods/status
 *   (the one whitelisted subresource);
 * - an UPDATE that changes them needs `delete` permission on the object itself (same resource,
 *   subresource, namespace and name): else 403 `cannot set an ownerRef on a resource you can't
 *   delete: <reason>, <error>`; a CREATE does not (the creator may delete what it creates);
 * - every reference newly set with `blockOwnerDeletion: true` (added, or changed from unset/false)
 *   needs `update` permission on `<owner resource>/finalizers` for the owner's name (in the
 *   object's namespace when the owner's kind is namespaced), for every resource the owner's
 *   apiVersion and kind map to: else 403 `cannot set blockOwnerDeletion if an ownerReference
 *   refers to a resource you can't set finalizers on: <reason>, <error>`; a kind this server does
 *   not serve: 403 `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for
 *   APIVersion <v> Kind <k>: no matches for kind "<k>" in version "<v>"`.
 *
 * `<error>` is the authorizer's evaluation error, `<nil>` when none (Go prints a nil error so).
 */
import type { ResourceRegistry } from '../../api/index.js';
import { canonicalGroup } from '../../api/established-spelling.js';
import type { OwnerReference, ResourceDefinition, SvcObject } from '../../api/types.js';
import type { AccessAttributes, Authorizer } from '../auth/authorization.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

const refsOf = (o: SvcObject | undefined): OwnerReference[] => o?.metadata?.ownerReferences ?? [];
const blocking = (r: OwnerReference): boolean => r.blockOwnerDeletion === true;
const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x as object).filter(([, y]) => y !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

/** Is the write adding, removing or changing any owner reference? */
export function isChangingOwnerReference(next: SvcObject | undefined, old: SvcObject | undefined): boolean {
  const now = refsOf(next);
  if (!old) return now.length > 0;
  const before = refsOf(old);
  if (before.length !== now.length) return true;
  return before.some((r, i) => canonicalJson(r) !== canonicalJson(now[i]));
}

/** The blocking references that are new, or were not blocking before (matched by uid). */
export function newBlockingOwnerDeletionRefs(next: SvcObject | undefined, old: SvcObject | undefined): OwnerReference[] {
  const blockingNow = refsOf(next).filter(blocking);
  if (blockingNow.length === 0 || !old) return blockingNow;
  const before = new Map(refsOf(old).map((r) => [r.uid, r]));
  return blockingNow.filter((r) => {
    const was = before.get(r.uid);
    return !was || !blocking(was);
  });
}

/** The resources an owner reference's apiVersion and kind name (RESTMappings for one version). */
function ownerMappings(registry: ResourceRegistry, ref: OwnerReference): ResourceDefinition[] {
  const slash = ref.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : canonicalGroup(ref.apiVersion.slice(0, slash));
  const version = slash < 0 ? ref.apiVersion : ref.apiVersion.slice(slash + 1);
  return registry.enabledResources().filter((d) => d.group === group && d.version === version && d.kind === ref.kind);
}

const decisionText = (reason: string, evaluationError: string | undefined) => `${reason}, ${evaluationError ?? '<nil>'}`;

export function ownerReferencesPermissionEnforcement(registry: ResourceRegistry, authorizer: () => Authorizer): AdmissionPlugin {
  const ask = async (a: AdmissionAttributes, attrs: AccessAttributes) => authorizer().authorize(a.user, attrs);
  return {
    name: 'OwnerReferencesPermissionEnforcement',
    sideEffects: 'None',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && !!a.object && !(a.def.group === '' && a.def.plural === 'pods' && a.subresource === 'status'),
    async validate(a) {
      if (!isChangingOwnerReference(a.object, a.oldObject)) return;
      if (a.operation !== 'CREATE') {
        const d = await ask(a, { kind: 'resource', verb: 'delete', group: a.def.group, version: a.def.version, resource: a.def.plural, subresource: a.subresource, namespace: a.namespace, name: a.name });
        if (!d.allowed) throw admissionForbidden(a, `cannot set an ownerRef on a resource you can't delete: ${decisionText(d.reason, d.evaluationError)}`);
      }
      for (const ref of newBlockingOwnerDeletionRefs(a.object, a.oldObject)) {
        const mappings = ownerMappings(registry, ref);
        if (mappings.length === 0) {
          throw admissionForbidden(
            a,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`,
          );
        }
        for (const m of mappings) {
          const d = await ask(a, { kind: 'resource', verb: 'update', group: m.group, version: m.version, resource: m.plural, subresource: 'finalizers', namespace: m.namespaced ? a.namespace : '', name: ref.name });
          if (!d.allowed) throw admissionForbidden(a, `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${decisionText(d.reason, d.evaluationError)}`);
        }
      }
    },
  };
}
