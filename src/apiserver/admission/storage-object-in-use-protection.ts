/**
 * StorageObjectInUseProtection (default on): every new PersistentVolume gets the
 * `svc.io/pv-protection` finalizer and every new PersistentVolumeClaim `svc.io/pvc-protection`,
 * so that one in use is not removed while used: the pv-protection and pvc-protection controllers
 * take the finalizers off once nothing uses them. Mutating, on create only, as established.
 */
import { FINALIZER_PV_PROTECTION, FINALIZER_PVC_PROTECTION } from '../../api/well-known-labels.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

const isCore = (a: AdmissionAttributes, plural: string) => a.def.group === '' && a.def.plural === plural;

export function storageObjectInUseProtection(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && (isCore(a, 'persistentvolumes') || isCore(a, 'persistentvolumeclaims')),
    mutate(a) {
      if (!a.object) return;
      const finalizer = a.def.plural === 'persistentvolumes' ? FINALIZER_PV_PROTECTION : FINALIZER_PVC_PROTECTION;
      const list = a.object.metadata.finalizers ?? [];
      if (!list.includes(finalizer)) a.object.metadata.finalizers = [...list, finalizer];
    },
  };
}
