/**
 * The persistentvolume-binder controller: binds claims to volumes, provisions volumes for claims
 * of a class, and reclaims released volumes, as the established PV controller.
 *
 * - Watches: PersistentVolumes (key: the volume's name). Triggers: PersistentVolumeClaims (key:
 *   `namespace/name`, a claim's sync, and its `spec.volumeName`), PersistentVolumes again (the
 *   claim of a volume's `claimRef`), StorageClasses (the Pending claims of that class), Pods (the
 *   recycler pods, by the volume they scrub). A key with `/` is a claim, one without a volume.
 * - Claims (./claim-sync.ts): static binding (./matching.ts: smallest fit by capacity, access
 *   modes, class, selector and volume mode; pre-bound volumes and `spec.volumeName`); phases
 *   Pending, Bound, Lost; `pv.svc.io/bind-completed` and `pv.svc.io/bound-by-controller`;
 *   dynamic provisioning (`--enable-dynamic-provisioning`) through ./provisioners.ts or, for other
 *   provisioner names, `volume.svc.io/storage-provisioner` for an external one; WaitForFirstConsumer
 *   classes wait for the scheduler's `volume.svc.io/selected-node`.
 * - Volumes (./volume-sync.ts): phases Available, Bound, Released, Failed; a volume whose claim is
 *   gone is reclaimed by its policy: Retain keeps it, Delete deletes it (./provisioners.ts says
 *   what can be deleted), Recycle scrubs it with a pod (./recycler.ts) and makes it Available.
 * - Timers: Pending claims and Released volumes are synced again every `--pvclaimbinder-sync-period`.
 * - Events: the established reasons (FailedBinding, WaitForFirstConsumer, ProvisioningSucceeded,
 *   ProvisioningFailed, ExternalProvisioning, VolumeMismatch, ClaimLost, ClaimMisbound,
 *   VolumeFailedDelete, VolumeRecycled, VolumeFailedRecycle, RecyclerPod).
 * - Guarantees: what it wrote is remembered until the cache catches up, and a volume chosen for a
 *   claim is reserved until that claim's binding is written, so two claims never take one volume;
 *   writes carry resourceVersions (409: retry). Workers: BINDER_WORKERS (the established binder
 *   runs one; each bind is four API writes in a row, each waiting for the one before, as
 *   established, so the binder's rate is its workers divided by the time of four writes; claims
 *   are independent, so many binds wait at once and the server's group commits stay full).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../src/api/generated/kinds.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { claimClass } from '../../src/api/volume-matching.js';
import { syncClaim } from './claim-sync.js';
import { recyclerPodName, RECYCLER_NAMESPACE, type RecyclerSettings } from './recycler.js';
import { BinderState } from './state.js';
import { syncVolume } from './volume-sync.js';

export interface BinderOptions {
  /** `--pvclaimbinder-sync-period`. */
  syncPeriodMs: number;
  /** `--enable-dynamic-provisioning`. */
  enableDynamicProvisioning: boolean;
  /** `--enable-hostpath-provisioner`. */
  enableHostPathProvisioner: boolean;
  /** `--pv-recycler-*`. */
  recycler: RecyclerSettings;
}

/**
 * No flag sets it (none is established); see the contract above. With 8, 1,000 claims bound at
 * 25/s on a loaded machine: each worker spent its time waiting for its four writes in turn
 * (docs/benchmarks.md "Volumes"). A waiting bind costs nothing but its place in the server's queue.
 */
export const BINDER_WORKERS = 64;

export function persistentVolumeBinderController(o: BinderOptions): ControllerDefinition<PersistentVolume> {
  const state = new BinderState();
  return defineController<PersistentVolume>({
    name: 'persistentvolume-binder',
    watches: resources.persistentvolumes,
    concurrency: BINDER_WORKERS,
    triggers: [
      {
        resource: resources.persistentvolumeclaims,
        keysFor: (obj) => {
          const c = obj as PersistentVolumeClaim;
          const keys = [keyFor(c.metadata.namespace, c.metadata.name ?? '')];
          if (c.spec?.volumeName) keys.push(c.spec.volumeName);
          return keys;
        },
      },
      {
        resource: resources.persistentvolumes,
        keysFor: (obj) => {
          const ref = (obj as PersistentVolume).spec?.claimRef;
          return ref?.name && ref.namespace ? [keyFor(ref.namespace, ref.name)] : [];
        },
      },
      {
        resource: resources.storageclasses,
        keysFor: (obj) => {
          const name = obj.metadata.name ?? '';
          return (state.claims?.list() ?? []).filter((c) => c.status?.phase !== 'Bound' && claimClass(c) === name).map((c) => keyFor(c.metadata.namespace, c.metadata.name ?? ''));
        },
      },
      {
        resource: resources.pods,
        selector: { namespace: RECYCLER_NAMESPACE },
        keysFor: (obj) => {
          const name = obj.metadata.name ?? '';
          const pv = name.startsWith(recyclerPodName('')) ? name.slice(recyclerPodName('').length) : '';
          return pv ? [pv] : [];
        },
      },
    ],
    permissions: [
      { apiGroups: [''], resources: ['persistentvolumes'], verbs: ['create', 'delete', 'update'] },
      { apiGroups: [''], resources: ['persistentvolumes/status'], verbs: ['update'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['get', 'update'] },
      { apiGroups: [''], resources: ['persistentvolumeclaims/status'], verbs: ['update'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete', 'get'] },
    ],
    async reconcile(key, ctx) {
      const parts = {
        client: ctx.client,
        recorder: ctx.recorder,
        logger: ctx.logger,
        volumes: ctx.cache,
        claims: ctx.cacheOf<PersistentVolumeClaim>(resources.persistentvolumeclaims),
        classes: ctx.cacheOf<StorageClass>(resources.storageclasses),
        pods: ctx.cacheOf<Pod>(resources.pods),
        state,
        options: o,
      };
      state.claims = parts.claims;
      state.now = () => ctx.clock.now();
      return key.includes('/') ? syncClaim(key, parts) : syncVolume(key, parts);
    },
  });
}
