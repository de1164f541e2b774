/**
 * ExtendedResourceToleration (selectable): a pod created or updated that requests an extended
 * resource (`example.com/gpu`: a name with a domain outside `svc.io/` (or `kubernetes.io/`) that is
 * a valid quota name once prefixed with `requests.`) gets a toleration `{key: <resource>, operator:
 * Exists, effect: NoSchedule}` for each, in name order, so nodes tainted with the resource's name
 * (as operators mark their GPU nodes) accept exactly the pods that use it. Mutating.
 */
import type { Pod } from '../../api/generated/kinds.js';
import { addOrUpdateToleration } from '../../api/tolerations.js';
import { isQualifiedName } from '../../api/validation/names.js';
import type { AdmissionPlugin } from './chain.js';

/** Whether a resource name is an extended resource, as established (`IsExtendedResourceName`). */
export function isExtendedResourceName(name: string): boolean {
  // Native: unprefixed, or in the system's own domain.
  if (!name.includes('/') || name.includes('svc.io/') || name.includes('kubernetes.io/')) return false;
  if (name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

export function extendedResourceToleration(): AdmissionPlugin {
  return {
    name: 'ExtendedResourceToleration',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    mutate(a) {
      const pod = a.object as Pod | undefined;
      if (!pod?.spec) return;
      const names = new Set<string>();
      for (const c of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
        for (const r of Object.keys(c.resources?.requests ?? {})) if (isExtendedResourceName(r)) names.add(r);
      }
      for (const key of [...names].sort()) {
        const next = addOrUpdateToleration(pod.spec.tolerations ?? [], { key, operator: 'Exists', effect: 'NoSchedule' });
        if (next) pod.spec.tolerations = next;
      }
    },
  };
}
