/**
 * The pv-protection controller: a volume bound to a claim is not removed until it is unbound.
 *
 * - Watches: PersistentVolumes.
 * - Writes: the volume's `svc.io/pv-protection` finalizer: added to a volume that lacks it (the
 *   StorageObjectInUseProtection admission plugin adds it at creation), removed from a volume
 *   being deleted once its phase is no longer Bound, as established.
 */
import type { PersistentVolume } from '../../src/api/generated/kinds.js';
import { FINALIZER_PV_PROTECTION } from '../../src/api/well-known-labels.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

/** In use: bound (the established isVolumeUsed). */
export const volumeInUse = (v: PersistentVolume) => v.status?.phase === 'Bound';

export function pvProtectionController(): ControllerDefinition<PersistentVolume> {
  return defineController<PersistentVolume>({
    name: 'pv-protection',
    watches: resources.persistentvolumes,
    permissions: [{ apiGroups: [''], resources: ['persistentvolumes'], verbs: ['update'] }],
    async reconcile(_key, ctx) {
      const pv = ctx.object;
      if (!pv) return done();
      const finalizers = pv.metadata.finalizers ?? [];
      const has = finalizers.includes(FINALIZER_PV_PROTECTION);
      let next: string[] | undefined;
      if (!pv.metadata.deletionTimestamp && !has) next = [...finalizers, FINALIZER_PV_PROTECTION];
      if (pv.metadata.deletionTimestamp && has && !volumeInUse(pv)) next = finalizers.filter((f) => f !== FINALIZER_PV_PROTECTION);
      if (!next) return done();
      try {
        await ctx.client.update(resources.persistentvolumes, '', { ...pv, metadata: { ...pv.metadata, finalizers: next } });
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
      return done();
    },
  });
}
