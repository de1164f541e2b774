/**
 * RuntimeClass (default on, with the RuntimeClass gate): a new pod naming `spec.runtimeClassName`
 * gets what its RuntimeClass says, as established.
 *
 * - A name no RuntimeClass has is refused: `pods "p" is forbidden: pod rejected: RuntimeClass "x" not found`.
 * - Overhead (PodOverhead gate, on): the class's `overhead.podFixed` becomes `spec.overhead`; a pod
 *   that brings a different overhead is refused ("Pod's Overhead doesn't match RuntimeClass's defined
 *   Overhead"), as is one with an overhead but no class overhead ("Pod Overhead set without
 *   corresponding RuntimeClass defined Overhead"): checked again in the validating phase, after
 *   every other plugin.
 * - Scheduling: the class's `scheduling.nodeSelector` is merged into the pod's (a key with another
 *   value is a conflict, refused) and its tolerations merged with the pod's (./../../api/tolerations.ts).
 *
 * Classes are read from the watch cache; a name the cache does not have yet is read from storage.
 */
import type { Pod, RuntimeClass } from '../../api/generated/kinds.js';
import { toMilli } from '../../api/quota/amounts.js';
import { mergeTolerations } from '../../api/tolerations.js';
import { type AdmissionAttributes, type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

export interface RuntimeClassOptions {
  /** The PodOverhead gate (beta, on). */
  podOverhead: boolean;
}

type ResourceList = Record<string, number | string>;

/** Semantic equality of two resource lists (`1000m` equals `1`). */
function sameResources(a: ResourceList, b: ResourceList): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] === undefined || b[k] === undefined || toMilli(a[k]) !== toMilli(b[k])) return false;
  return true;
}

export function runtimeClassAdmission(lookup: (name: string) => Promise<RuntimeClass | undefined>, opts: RuntimeClassOptions): AdmissionPlugin {
  const classOf = async (a: AdmissionAttributes, pod: Pod): Promise<RuntimeClass | undefined> => {
    const name = pod.spec?.runtimeClassName;
    if (name === undefined || name === null) return undefined;
    const rc = await lookup(name);
    if (!rc) throw admissionForbidden(a, `pod rejected: RuntimeClass ${JSON.stringify(name)} not found`);
    return rc;
  };
  const mismatch = (a: AdmissionAttributes) => admissionForbidden(a, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  return {
    name: 'RuntimeClass',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.def.group === '' && a.def.plural === 'pods',
    async mutate(a) {
      const pod = a.object as Pod | undefined;
      if (!pod) return;
      const rc = await classOf(a, pod);
      if (!rc) return;
      const spec = (pod.spec ??= {});
      const fixed = rc.overhead?.podFixed;
      if (opts.podOverhead && fixed) {
        if (spec.overhead && !sameResources(fixed, spec.overhead)) throw mismatch(a);
        spec.overhead = { ...fixed };
      }
      const scheduling = rc.scheduling;
      if (!scheduling) return;
      const selector = { ...(spec.nodeSelector ?? {}) };
      for (const [key, value] of Object.entries(scheduling.nodeSelector ?? {})) {
        const own = selector[key];
        if (own !== undefined && own !== value) {
          throw admissionForbidden(a, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${value}; pod.spec.nodeSelector[${key}] = ${own}`);
        }
        selector[key] = value;
      }
      if (Object.keys(selector).length > 0) spec.nodeSelector = selector;
      const tolerations = mergeTolerations(spec.tolerations ?? [], scheduling.tolerations ?? []);
      if (tolerations.length > 0) spec.tolerations = tolerations;
    },
    async validate(a) {
      const pod = a.object as Pod | undefined;
      if (!pod || !opts.podOverhead) return;
      const rc = await classOf(a, pod);
      const fixed = rc?.overhead?.podFixed;
      if (fixed) {
        if (!pod.spec?.overhead || !sameResources(fixed, pod.spec.overhead)) throw mismatch(a);
      } else if (pod.spec?.overhead) {
        throw admissionForbidden(a, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
      }
    },
  };
}
