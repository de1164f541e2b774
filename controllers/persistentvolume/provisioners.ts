/**
 * The volume plugins the binder runs itself (the established in-tree plugins' place), as pure
 * functions from a claim and its class to the volume to create:
 *
 * - `svc.io/simulated` (this project's): a simulated volume of exactly the requested size, any
 *   access mode and volume mode, with mount options; with a selected node (delayed binding) it is
 *   reachable from that node only (node affinity on `svc.io/hostname`). Its source is
 *   `csi: {driver: simulated.csi.svc.io, volumeHandle: <pv name>}`: nothing is stored anywhere, the
 *   simulated nodes "mount" it. Deleting it deletes nothing but the object.
 * - `svc.io/host-path` (the established kubernetes.io/host-path, `--enable-hostpath-provisioner`,
 *   testing only): a hostPath volume under `/tmp/hostpath_pv/<uuid>`, no block mode, no mount
 *   options (the established refusals). The directory is not made: the nodes are simulated.
 *
 * Every other provisioner name is external: the binder only annotates the claim and waits.
 * Deleting (reclaim policy Delete): what these made, and static hostPath volumes under /tmp/, as
 * the established host-path deleter; anything else has no deleter here.
 */
import { randomUUID } from 'node:crypto';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../src/api/generated/kinds.js';
import { ANNOTATION_BOUND_BY_CONTROLLER, ANNOTATION_PROVISIONED_BY, LABEL_HOSTNAME } from '../../src/api/well-known-labels.js';
import { claimClass } from '../../src/api/volume-matching.js';
import { SIMULATED_CSI_DRIVER } from '../../src/api/attachable-volumes.js';

export const SIMULATED_PROVISIONER = 'svc.io/simulated';
export const HOSTPATH_PROVISIONER = 'svc.io/host-path';
/** The established kubernetes.io/createdby annotation of host-path volumes. */
export const ANNOTATION_CREATED_BY = 'svc.io/createdby';

export interface ProvisionerSettings {
  enableHostPathProvisioner: boolean;
}

/** The name of the volume provisioned for a claim (established: pvc-<claim uid>). */
export const provisionedVolumeName = (c: PersistentVolumeClaim) => `pvc-${c.metadata.uid ?? ''}`;

/** Whether the binder provisions for this provisioner name itself (otherwise: external). */
export const isInTree = (provisioner: string) => provisioner === SIMULATED_PROVISIONER || provisioner === HOSTPATH_PROVISIONER;

export class ProvisioningError extends Error {}

/** The volume to create for `claim` with `cls`; throws ProvisioningError with the established message. */
export function provisionVolume(claim: PersistentVolumeClaim, cls: StorageClass, selectedNode: string | undefined, s: ProvisionerSettings): PersistentVolume {
  const provisioner = cls.provisioner ?? '';
  const name = provisionedVolumeName(claim);
  const storage = claim.spec?.resources?.requests?.['storage'] ?? '0';
  const base: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name,
      // The provisioner binds the new volume to its claim at once (established): the claim's sync then finds it pre-bound.
      annotations: { [ANNOTATION_BOUND_BY_CONTROLLER]: 'yes', [ANNOTATION_PROVISIONED_BY]: provisioner },
    },
    spec: {
      capacity: { storage },
      accessModes: [...(claim.spec?.accessModes ?? [])],
      persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
      storageClassName: claimClass(claim),
      volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
      claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '', resourceVersion: claim.metadata.resourceVersion ?? '' },
    },
  };
  if (cls.mountOptions?.length) base.spec!.mountOptions = [...cls.mountOptions];
  if (provisioner === SIMULATED_PROVISIONER) {
    base.spec!.csi = { driver: SIMULATED_CSI_DRIVER, volumeHandle: name };
    if (selectedNode) base.spec!.nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In', values: [selectedNode] }] }] } };
    return base;
  }
  if (provisioner === HOSTPATH_PROVISIONER) {
    if (!s.enableHostPathProvisioner) throw new ProvisioningError(`Failed to create provisioner: provisioning in volume plugin "${HOSTPATH_PROVISIONER}" is disabled`);
    if (cls.mountOptions?.length) throw new ProvisioningError(`Mount options are not supported by the provisioner but StorageClass "${cls.metadata.name}" has mount options`);
    if (claim.spec?.volumeMode === 'Block') throw new ProvisioningError(`${HOSTPATH_PROVISIONER} does not support block volume provisioning`);
    base.metadata.annotations![ANNOTATION_CREATED_BY] = 'hostpath-dynamic-provisioner';
    base.spec!.hostPath = { path: `/tmp/hostpath_pv/${randomUUID()}` };
    if (!base.spec!.accessModes!.length) base.spec!.accessModes = ['ReadWriteOnce'];
    return base;
  }
  throw new ProvisioningError(`no in-tree provisioner "${provisioner}"`);
}

/** Why a released volume cannot be deleted here (the established messages), or undefined when it can. */
export function deleteRefusal(v: PersistentVolume): string | undefined {
  const by = v.metadata.annotations?.[ANNOTATION_PROVISIONED_BY];
  if (by !== undefined && isInTree(by)) return undefined;
  const path = v.spec?.hostPath?.path;
  if (path !== undefined) return /^\/tmp\/.+/.test(path) ? undefined : `host_path deleter only supports /tmp/.+ but received provided ${path}`;
  return `error getting deleter volume plugin for volume "${v.metadata.name}": no deletable volume plugin matched`;
}

/** A volume an external provisioner made: that provisioner deletes it, not the binder. */
export function externallyProvisioned(v: PersistentVolume): string | undefined {
  const by = v.metadata.annotations?.[ANNOTATION_PROVISIONED_BY];
  return by !== undefined && !isInTree(by) ? by : undefined;
}
