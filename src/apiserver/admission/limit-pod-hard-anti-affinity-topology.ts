/**
 * LimitPodHardAntiAffinityTopology (selectable): a pod created or updated whose required pod
 * anti-affinity terms use a topology key other than `svc.io/hostname` is refused (403), as
 * established: such a term can keep a whole zone free of a workload. Validating.
 */
import type { Pod } from '../../api/generated/kinds.js';
import { LABEL_HOSTNAME } from '../../api/well-known-labels.js';
import { type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

export function limitPodHardAntiAffinityTopology(): AdmissionPlugin {
  return {
    name: 'LimitPodHardAntiAffinityTopology',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    validate(a) {
      const terms = (a.object as Pod | undefined)?.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
      for (const t of terms) {
        if (t.topologyKey !== LABEL_HOSTNAME) {
          throw admissionForbidden(a, `affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey ${t.topologyKey ?? ''} but only key ${LABEL_HOSTNAME} is allowed`);
        }
      }
    },
  };
}
