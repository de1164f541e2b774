/**
 * A volume's sync (the established syncVolume): its phase from its claimRef and that claim, the
 * unbinding of a volume whose claim went elsewhere, and the reclaiming of a volume whose claim is
 * gone (Retain: kept Released; Delete: deleted when a deleter exists here, else Failed; Recycle:
 * scrubbed by a recycler pod, then Available, else Failed).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/api/generated/kinds.js';
import { ANNOTATION_BOUND_BY_CONTROLLER, ANNOTATION_PROVISIONED_BY } from '../../src/api/well-known-labels.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { deleteRefusal, externallyProvisioned } from './provisioners.js';
import { NO_RECYCLER, recyclable, recyclerPod, recyclerPodName, RECYCLER_NAMESPACE } from './recycler.js';
import type { SyncParts } from './state.js';
import { setVolumePhase, writeVolume } from './writes.js';

const gone = (e: unknown) => e instanceof ApiError && e.code === 404;

export async function syncVolume(name: string, p: SyncParts): Promise<ReconcileOutcome> {
  const volume = p.state.volume(p.volumes, name);
  if (!volume) return done();
  const ref = volume.spec?.claimRef;
  if (!ref || !ref.uid) {
    // Unbound, or pre-bound by the user to a claim that has not come yet.
    await setVolumePhase(p, volume, 'Available');
    return done();
  }
  const claimKey = keyFor(ref.namespace, ref.name ?? '');
  let claim: PersistentVolumeClaim | undefined = p.state.claim(p.claims, claimKey);
  if (!claim) {
    // The cache may be behind a claim created a moment ago: the server decides before releasing.
    claim = await p.client.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, ref.namespace ?? '', ref.name ?? '').catch((e: unknown) => {
      if (gone(e)) return undefined;
      throw e;
    });
  }
  if (claim && claim.metadata.uid !== ref.uid) claim = undefined;
  if (!claim) {
    let v = volume;
    if (v.status?.phase !== 'Released' && v.status?.phase !== 'Failed') v = await setVolumePhase(p, v, 'Released');
    return reclaim(p, v);
  }
  if (!claim.spec?.volumeName) {
    // Bound by the binder with the claim's half still to write (the claim's sync does it), or pre-bound by the user: wait for the claim.
    return done();
  }
  if (claim.spec.volumeName === name) {
    await setVolumePhase(p, volume, 'Bound');
    return done();
  }
  // The claim is bound to another volume.
  if (volume.metadata.annotations?.[ANNOTATION_PROVISIONED_BY] !== undefined && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
    let v = volume;
    if (v.status?.phase !== 'Released' && v.status?.phase !== 'Failed') v = await setVolumePhase(p, v, 'Released');
    return reclaim(p, v);
  }
  await unbind(p, volume);
  return done();
}

/** The established unbindVolume: the binder's own binding is undone; a user's pre-binding loses only the uid. */
async function unbind(p: SyncParts, volume: PersistentVolume): Promise<PersistentVolume> {
  const next = structuredClone(volume);
  const annotations = { ...next.metadata.annotations };
  if (annotations[ANNOTATION_BOUND_BY_CONTROLLER] !== undefined) {
    delete next.spec!.claimRef;
    delete annotations[ANNOTATION_BOUND_BY_CONTROLLER];
  } else if (next.spec?.claimRef) {
    next.spec.claimRef = { ...next.spec.claimRef, uid: '' };
  }
  next.metadata.annotations = annotations;
  const written = await writeVolume(p, next);
  return setVolumePhase(p, written, 'Available');
}

async function reclaim(p: SyncParts, volume: PersistentVolume): Promise<ReconcileOutcome> {
  switch (volume.spec?.persistentVolumeReclaimPolicy ?? 'Retain') {
    case 'Retain':
      return done();
    case 'Delete':
      return deleteVolume(p, volume);
    case 'Recycle':
      return recycle(p, volume);
    default:
      await p.recorder.event(volume, 'Warning', 'VolumeUnknownReclaimPolicy', 'Volume has unrecognized PersistentVolumeReclaimPolicy');
      return done();
  }
}

async function failed(p: SyncParts, volume: PersistentVolume, reason: string, message: string): Promise<ReconcileOutcome> {
  if (volume.status?.phase !== 'Failed' || volume.status?.message !== message) {
    await setVolumePhase(p, volume, 'Failed', message);
    await p.recorder.event(volume, 'Warning', reason, message);
  }
  return requeueAfter(p.options.syncPeriodMs);
}

async function deleteVolume(p: SyncParts, volume: PersistentVolume): Promise<ReconcileOutcome> {
  if (volume.metadata.deletionTimestamp) return done();
  const external = externallyProvisioned(volume);
  if (external) {
    p.logger.info({ provisioner: external }, 'released volume: its external provisioner deletes it');
    return done();
  }
  const refusal = deleteRefusal(volume);
  if (refusal) return failed(p, volume, 'VolumeFailedDelete', refusal);
  // Simulated storage: nothing to erase but the object.
  try {
    await p.client.delete(resources.persistentvolumes, '', volume.metadata.name ?? '', { preconditions: { uid: volume.metadata.uid ?? '' } });
    p.logger.info('released volume deleted (reclaim policy Delete)');
  } catch (e) {
    if (!(gone(e) || (e instanceof ApiError && e.code === 409))) throw e;
  }
  p.state.wroteVolume(volume.metadata.name ?? '', undefined);
  return done();
}

/** Recycle: start the pod, wait for it (its changes queue this volume), then make the volume Available. */
async function recycle(p: SyncParts, volume: PersistentVolume): Promise<ReconcileOutcome> {
  if (!recyclable(volume)) return failed(p, volume, 'VolumeFailedRecycle', NO_RECYCLER);
  const podName = recyclerPodName(volume.metadata.name ?? '');
  const pod = p.pods.get(keyFor(RECYCLER_NAMESPACE, podName));
  if (!pod) {
    try {
      await p.client.create<Pod>(resources.pods, RECYCLER_NAMESPACE, recyclerPod(volume, p.options.recycler));
      await p.recorder.event(volume, 'Normal', 'RecyclerPod', `Recycler pod: Successfully assigned ${RECYCLER_NAMESPACE}/${podName}`);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409)) {
        if (e instanceof ApiError) return failed(p, volume, 'VolumeFailedRecycle', `Recycle failed: ${e.message}`);
        throw e;
      }
    }
    return requeueAfter(p.options.syncPeriodMs);
  }
  const phase = pod.status?.phase;
  if (phase !== 'Succeeded' && phase !== 'Failed') return requeueAfter(p.options.syncPeriodMs);
  await p.client.delete(resources.pods, RECYCLER_NAMESPACE, podName, { gracePeriodSeconds: 0 }).catch((e: unknown) => {
    if (!gone(e)) throw e;
  });
  if (phase === 'Failed') return failed(p, volume, 'VolumeFailedRecycle', `Recycle failed: pod ${RECYCLER_NAMESPACE}/${podName} failed: ${pod.status?.message ?? pod.status?.reason ?? 'the scrub failed'}`);
  // Scrubbed: the volume is free again, for any claim.
  const next = structuredClone(volume);
  delete next.spec!.claimRef;
  const annotations = { ...next.metadata.annotations };
  delete annotations[ANNOTATION_BOUND_BY_CONTROLLER];
  next.metadata.annotations = annotations;
  const written = await writeVolume(p, next);
  await setVolumePhase(p, written, 'Available');
  await p.recorder.event(written, 'Normal', 'VolumeRecycled', 'Volume recycled');
  return done();
}
