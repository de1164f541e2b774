/**
 * DefaultStorageClass (default on): a new PersistentVolumeClaim that names no class (neither
 * `spec.storageClassName`, not even "", nor the beta annotation) gets the default StorageClass's
 * name: the class annotated `storageclass.svc.io/is-default-class: "true"` (or the beta key).
 * With several defaults the newest wins (then the name), as established since Kubernetes 1.26; with
 * none the claim is left without a class. Mutating, on create only.
 */
import {
  ANNOTATION_BETA_DEFAULT_STORAGE_CLASS, ANNOTATION_BETA_STORAGE_CLASS, ANNOTATION_DEFAULT_STORAGE_CLASS,
} from '../../api/well-known-labels.js';
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';

export const isDefaultClass = (c: SvcObject) =>
  c.metadata.annotations?.[ANNOTATION_DEFAULT_STORAGE_CLASS] === 'true' || c.metadata.annotations?.[ANNOTATION_BETA_DEFAULT_STORAGE_CLASS] === 'true';

/** The default class of `classes`, or undefined. */
export function defaultClass(classes: readonly SvcObject[]): SvcObject | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort((a, b) => {
    const ta = a.metadata.creationTimestamp ?? '';
    const tb = b.metadata.creationTimestamp ?? '';
    if (ta !== tb) return ta < tb ? 1 : -1;
    return (a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1;
  });
  return defaults[0];
}

export function defaultStorageClass(listClasses: () => Promise<SvcObject[]>): AdmissionPlugin {
  return {
    name: 'DefaultStorageClass',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.def.group === '' && a.def.plural === 'persistentvolumeclaims',
    async mutate(a) {
      const claim = a.object;
      if (!claim) return;
      const spec = (claim.spec ?? {}) as Record<string, unknown>;
      if (spec['storageClassName'] !== undefined && spec['storageClassName'] !== null) return;
      if (claim.metadata.annotations?.[ANNOTATION_BETA_STORAGE_CLASS] !== undefined) return;
      const d = defaultClass(await listClasses());
      if (!d) return;
      claim.spec = { ...spec, storageClassName: d.metadata.name };
    },
  };
}
