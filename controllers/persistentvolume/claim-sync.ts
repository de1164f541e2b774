/**
 * A claim's sync (the established syncClaim): an unbound claim is matched with a volume, bound to
 * the one it names, provisioned for, or left Pending with the established Event; a bound claim is
 * kept consistent with its volume, or marked Lost when the volume is gone or bound elsewhere.
 * Binding writes, in the established order: the volume's claimRef, the volume's phase, the claim's
 * volumeName and annotations, the claim's status.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/api/generated/kinds.js';
import {
  ANNOTATION_BETA_STORAGE_PROVISIONER, ANNOTATION_BIND_COMPLETED, ANNOTATION_BOUND_BY_CONTROLLER, ANNOTATION_SELECTED_NODE, ANNOTATION_STORAGE_PROVISIONER,
} from '../../src/api/well-known-labels.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import { claimClass, findBestMatch, isDelayBinding, isDelayBindingProvisioning, isVolumeBoundToClaim, volumeUnfit } from '../../src/api/volume-matching.js';
import { isInTree, provisionedVolumeName, ProvisioningError, provisionVolume } from './provisioners.js';
import type { SyncParts } from './state.js';
import { setClaimPhase, setVolumePhase, writeClaim, writeVolume } from './writes.js';

const YES = 'yes';

export async function syncClaim(key: string, p: SyncParts): Promise<ReconcileOutcome> {
  const claim = p.state.claim(p.claims, key);
  if (!claim) return done();
  if (claim.metadata.annotations?.[ANNOTATION_BIND_COMPLETED] === undefined) return syncUnboundClaim(claim, p);
  return syncBoundClaim(claim, p);
}

async function pending(p: SyncParts, claim: PersistentVolumeClaim): Promise<ReconcileOutcome> {
  await setClaimPhase(p, claim, 'Pending', undefined);
  return requeueAfter(p.options.syncPeriodMs);
}

async function syncUnboundClaim(claim: PersistentVolumeClaim, p: SyncParts): Promise<ReconcileOutcome> {
  const classOf = (n: string) => p.classes.get(n);
  const wanted = claim.spec?.volumeName;
  if (!wanted) {
    const delay = isDelayBinding(claim, classOf);
    const key = keyFor(claim.metadata.namespace, claim.metadata.name ?? '');
    const volume = findBestMatch(claim, p.state.candidates(p.volumes, claim), { delayBinding: delay, excluded: p.state.reservedByOthers(key) });
    if (volume) {
      // Chosen and reserved with no await between: a claim synced by another worker cannot take it too.
      const release = p.state.reserve(volume.metadata.name ?? '', key);
      try {
        await bind(p, volume, claim);
      } finally {
        release();
      }
      return done();
    }
    if (delay && !isDelayBindingProvisioning(claim)) {
      await p.recorder.event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    } else if (claimClass(claim) !== '') {
      return provision(p, claim);
    } else {
      await p.recorder.event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
    }
    return pending(p, claim);
  }
  // The user asked for this volume.
  const volume = p.state.volume(p.volumes, wanted);
  if (!volume) return pending(p, claim);
  if (!volume.spec?.claimRef) {
    const why = volumeUnfit(volume, claim);
    if (why) {
      await p.recorder.event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${wanted}": ${why}`);
      return pending(p, claim);
    }
    await bind(p, volume, claim);
    return done();
  }
  if (isVolumeBoundToClaim(volume, claim)) {
    await bind(p, volume, claim);
    return done();
  }
  // The volume is someone else's: wait (a claim the binder itself pointed there is fixed by the volume's sync).
  return pending(p, claim);
}

async function lost(p: SyncParts, claim: PersistentVolumeClaim, reason: string, message: string): Promise<ReconcileOutcome> {
  if (claim.status?.phase !== 'Lost') {
    await setClaimPhase(p, claim, 'Lost', undefined);
    await p.recorder.event(claim, 'Warning', reason, message);
  }
  return done();
}

async function syncBoundClaim(claim: PersistentVolumeClaim, p: SyncParts): Promise<ReconcileOutcome> {
  const name = claim.spec?.volumeName;
  if (!name) return lost(p, claim, 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
  const volume = p.state.volume(p.volumes, name);
  if (!volume) return lost(p, claim, 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  if (!volume.spec?.claimRef || isVolumeBoundToClaim(volume, claim)) {
    await bind(p, volume, claim);
    return done();
  }
  return lost(p, claim, 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
}

/** The established bind: each step writes only what differs. */
export async function bind(p: SyncParts, volume: PersistentVolume, claim: PersistentVolumeClaim): Promise<void> {
  let v = volume;
  const ref = v.spec?.claimRef;
  if (!ref || ref.name !== claim.metadata.name || ref.namespace !== claim.metadata.namespace || ref.uid !== claim.metadata.uid) {
    const byController = !isVolumeBoundToClaim(v, claim);
    const next = structuredClone(v);
    next.spec = {
      ...next.spec,
      claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '', resourceVersion: claim.metadata.resourceVersion ?? '' },
    };
    if (byController) next.metadata.annotations = { ...next.metadata.annotations, [ANNOTATION_BOUND_BY_CONTROLLER]: YES };
    v = await writeVolume(p, next);
  }
  v = await setVolumePhase(p, v, 'Bound');
  let c = claim;
  const a = c.metadata.annotations ?? {};
  if (c.spec?.volumeName !== v.metadata.name || a[ANNOTATION_BIND_COMPLETED] === undefined) {
    const next = structuredClone(c);
    const annotations = { ...next.metadata.annotations };
    if (next.spec?.volumeName !== v.metadata.name) {
      next.spec = { ...next.spec, volumeName: v.metadata.name ?? '' };
      annotations[ANNOTATION_BOUND_BY_CONTROLLER] = YES;
    }
    annotations[ANNOTATION_BIND_COMPLETED] = YES;
    next.metadata.annotations = annotations;
    c = await writeClaim(p, next);
  }
  await setClaimPhase(p, c, 'Bound', v);
  p.logger.debug({ volume: v.metadata.name }, 'claim bound');
}

/** The established provisionClaim: an in-tree provisioner makes the volume here; any other is asked by annotation. */
async function provision(p: SyncParts, claim: PersistentVolumeClaim): Promise<ReconcileOutcome> {
  if (!p.options.enableDynamicProvisioning) return pending(p, claim);
  const className = claimClass(claim);
  const cls = p.classes.get(className);
  if (!cls) {
    await p.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.svc.io "${className}" not found`);
    return pending(p, claim);
  }
  const provisioner = cls.provisioner ?? '';
  let c = claim;
  const a = c.metadata.annotations ?? {};
  if (a[ANNOTATION_STORAGE_PROVISIONER] !== provisioner || a[ANNOTATION_BETA_STORAGE_PROVISIONER] !== provisioner) {
    const next = structuredClone(c);
    next.metadata.annotations = { ...next.metadata.annotations, [ANNOTATION_STORAGE_PROVISIONER]: provisioner, [ANNOTATION_BETA_STORAGE_PROVISIONER]: provisioner };
    c = await writeClaim(p, next);
  }
  if (!isInTree(provisioner)) {
    await p.recorder.event(c, 'Normal', 'ExternalProvisioning', `waiting for a volume to be created, either by external provisioner "${provisioner}" or manually created by system administrator`);
    return pending(p, c);
  }
  const name = provisionedVolumeName(c);
  if (p.state.volume(p.volumes, name)) return done();
  let pv: PersistentVolume;
  try {
    pv = provisionVolume(c, cls, c.metadata.annotations?.[ANNOTATION_SELECTED_NODE], { enableHostPathProvisioner: p.options.enableHostPathProvisioner });
  } catch (e) {
    if (!(e instanceof ProvisioningError)) throw e;
    await p.recorder.event(c, 'Warning', 'ProvisioningFailed', e.message);
    return pending(p, c);
  }
  try {
    const created = await p.client.create<PersistentVolume>(resources.persistentvolumes, '', pv);
    p.state.wroteVolume(name, created);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
  }
  // Not waited for (the recorder logs a failed one): the claim's next write need not queue behind it.
  void p.recorder.event(c, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name} using ${provisioner}`);
  await setClaimPhase(p, c, 'Pending', undefined);
  // The volume's creation queues this claim again (the volume trigger); it finds it pre-bound then.
  return done();
}
