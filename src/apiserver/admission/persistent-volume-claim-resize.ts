/**
 * PersistentVolumeClaimResize (default on): a claim's storage request may grow only when the claim
 * is Bound and its class allows expansion (`allowVolumeExpansion: true`); the persistentvolume-expander
 * then grows the volume. Validating, on updates of the claim (not its status), with the established
 * messages; shrinking and other spec changes are left to validation.
 */
import { forbidden } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { parseQuantity } from '../../api/validation/quantity.js';
import { claimClass } from '../../api/volume-matching.js';
import type { PersistentVolumeClaim, StorageClass } from '../../api/generated/kinds.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

const request = (o: SvcObject | undefined) => parseQuantity((o as PersistentVolumeClaim | undefined)?.spec?.resources?.requests?.['storage']) ?? 0;

export function persistentVolumeClaimResize(storageClass: (name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    sideEffects: 'None',
    handles: (a) => a.operation === 'UPDATE' && a.subresource === '' && a.def.group === '' && a.def.plural === 'persistentvolumeclaims',
    async validate(a: AdmissionAttributes) {
      if (!a.object || !a.oldObject || request(a.object) <= request(a.oldObject)) return;
      const old = a.oldObject as PersistentVolumeClaim;
      const refuse = (why: string) => forbidden(`persistentvolumeclaims "${a.name}" is forbidden: ${why}`, { group: '', resource: 'persistentvolumeclaims', name: a.name });
      if (old.status?.phase !== 'Bound') throw refuse('Only bound persistent volume claims can be expanded');
      const name = claimClass(old);
      const cls = name ? ((await storageClass(name)) as StorageClass | undefined) : undefined;
      if (!cls?.allowVolumeExpansion) throw refuse('only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    },
  };
}
