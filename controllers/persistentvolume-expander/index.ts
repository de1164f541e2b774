/**
 * The persistentvolume-expander controller (the established expand controller): grows the volume of
 * a bound claim whose storage request is now larger than its capacity.
 *
 * - Watches: PersistentVolumeClaims. Triggers: PersistentVolumes (the claim of a volume's
 *   claimRef), StorageClasses (their claims).
 * - Writes, for a volume provisioned by `svc.io/simulated` (this controller is its expander; a
 *   simulated volume has no filesystem for a node to grow, so expansion ends here):
 *   1. the claim's condition `Resizing` (True);
 *   2. the volume's `spec.capacity.storage` = the request;
 *   3. the claim's `status.capacity.storage` = the request, its `Resizing` and
 *      `FileSystemResizePending` conditions removed; Event `VolumeResizeSuccessful`.
 *   A volume of any other plugin is left to an external resizer: Event `ExternalExpanding`, as
 *   established. The PersistentVolumeClaimResize admission plugin lets a request grow only for a
 *   Bound claim whose class has `allowVolumeExpansion`.
 */
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../src/api/generated/kinds.js';
import { parseQuantity } from '../../src/api/validation/quantity.js';
import { claimClass } from '../../src/api/volume-matching.js';
import { ANNOTATION_PROVISIONED_BY } from '../../src/api/well-known-labels.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';
import { SIMULATED_PROVISIONER } from '../persistentvolume/provisioners.js';

const RESIZE_CONDITIONS = new Set(['Resizing', 'FileSystemResizePending']);
const bytes = (q: unknown) => parseQuantity(q) ?? 0;

/** The storage the claim asks for, when it is more than it has (undefined: nothing to do). */
export function pendingExpansion(c: PersistentVolumeClaim): string | number | undefined {
  if (c.status?.phase !== 'Bound' || !c.spec?.volumeName) return undefined;
  const requested = c.spec.resources?.requests?.['storage'];
  return bytes(requested) > bytes(c.status.capacity?.['storage']) ? requested : undefined;
}

export function persistentVolumeExpanderController(): ControllerDefinition<PersistentVolumeClaim> {
  return defineController<PersistentVolumeClaim>({
    name: 'persistentvolume-expander',
    watches: resources.persistentvolumeclaims,
    triggers: [
      {
        resource: resources.persistentvolumes,
        keysFor: (obj) => {
          const ref = (obj as PersistentVolume).spec?.claimRef;
          return ref?.name && ref.namespace ? [keyFor(ref.namespace, ref.name)] : [];
        },
      },
      { resource: resources.storageclasses, keysFor: (obj, claims) => claims.list().filter((c) => claimClass(c) === obj.metadata.name && pendingExpansion(c) !== undefined).map((c) => keyFor(c.metadata.namespace, c.metadata.name ?? '')) },
    ],
    permissions: [
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['update', 'patch'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims/status'], verbs: ['update', 'patch'] },
    ],
    async reconcile(_key, ctx) {
      const claim = ctx.object;
      if (!claim) return done();
      const requested = pendingExpansion(claim);
      if (requested === undefined) return done();
      const cls = ctx.cacheOf<StorageClass>(resources.storageclasses).get(claimClass(claim));
      if (!cls?.allowVolumeExpansion) return done();
      const pv = ctx.cacheOf<PersistentVolume>(resources.persistentvolumes).get(claim.spec?.volumeName ?? '');
      if (!pv) return done();
      if (pv.metadata.annotations?.[ANNOTATION_PROVISIONED_BY] !== SIMULATED_PROVISIONER) {
        await ctx.recorder.event(claim, 'Normal', 'ExternalExpanding', 'Ignoring the PVC: didn\'t find a plugin capable of expanding the volume; waiting for an external controller to process this PVC.');
        return done();
      }
      const now = new Date(ctx.clock.now()).toISOString();
      const others = (claim.status?.conditions ?? []).filter((c) => !RESIZE_CONDITIONS.has(c.type ?? ''));
      let c = await ctx.client.updateStatus<PersistentVolumeClaim>(resources.persistentvolumeclaims, claim.metadata.namespace ?? '', {
        ...claim,
        status: { ...claim.status, conditions: [...others, { type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: now } as never] },
      });
      if (bytes(pv.spec?.capacity?.['storage']) < bytes(requested)) {
        await ctx.client.update<PersistentVolume>(resources.persistentvolumes, '', { ...pv, spec: { ...pv.spec, capacity: { ...pv.spec?.capacity, storage: requested } } });
      }
      c = await ctx.client.updateStatus<PersistentVolumeClaim>(resources.persistentvolumeclaims, c.metadata.namespace ?? '', {
        ...c,
        status: { ...c.status, capacity: { ...c.status?.capacity, storage: requested }, conditions: others },
      });
      await ctx.recorder.event(c, 'Normal', 'VolumeResizeSuccessful', `ExpandVolume succeeded for volume ${pv.metadata.name}`);
      return done();
    },
  });
}
