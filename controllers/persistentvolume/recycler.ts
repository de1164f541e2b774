/**
 * The recycler (reclaim policy Recycle, deprecated but established): a released hostPath or NFS
 * volume is scrubbed by a pod and made Available again.
 *
 * The pod is the established template (`--pv-recycler-pod-template-filepath-hostpath` / `-nfs`
 * replace it: a Pod manifest, YAML or JSON, whose first volume is given the volume's source) named
 * `recycler-for-<pv>` in `default`, with `activeDeadlineSeconds` = max(minimum timeout, increment ×
 * whole Gi of the volume) from `--pv-recycler-minimum-timeout-*` and `--pv-recycler-*-timeout-*`.
 * The simulated nodes run it like any pod; its `sim.svc.io/run-seconds` annotation (1 s) makes the
 * scrub finish there. Volumes of any other source have no recycler (the established refusal).
 */
import type { PersistentVolume, Pod } from '../../src/api/generated/kinds.js';
import { parseQuantity } from '../../src/api/validation/quantity.js';

export interface RecyclerTimeouts {
  minimumTimeoutSeconds: number;
  incrementSeconds: number;
}

export interface RecyclerSettings {
  hostPath: RecyclerTimeouts;
  nfs: RecyclerTimeouts;
  /** Parsed `--pv-recycler-pod-template-filepath-*` pods (absent: the established default). */
  hostPathTemplate?: Pod;
  nfsTemplate?: Pod;
}

export const DEFAULT_RECYCLER_SETTINGS: RecyclerSettings = {
  hostPath: { minimumTimeoutSeconds: 60, incrementSeconds: 30 },
  nfs: { minimumTimeoutSeconds: 300, incrementSeconds: 30 },
};

export const NO_RECYCLER = 'No recycler plugin found for the volume!';
export const recyclerPodName = (pvName: string) => `recycler-for-${pvName}`;
export const RECYCLER_NAMESPACE = 'default';

/** The established scrub: empty the volume, fail when anything is left. */
const SCRUB = 'test -e /scrub && rm -rf /scrub/..?* /scrub/.[!.]* /scrub/*  && test -z "$(ls -A /scrub)" || exit 1';

/** The established NewPersistentVolumeRecyclerPodTemplate. */
export function defaultRecyclerTemplate(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { generateName: 'pv-recycler-', namespace: RECYCLER_NAMESPACE },
    spec: {
      activeDeadlineSeconds: 60,
      restartPolicy: 'Never',
      volumes: [{ name: 'vol', hostPath: { path: '/any/path/it/will/be/replaced' } }],
      containers: [{ name: 'pv-recycler', image: 'busybox:1.27', command: ['/bin/sh'], args: ['-c', SCRUB], volumeMounts: [{ name: 'vol', mountPath: '/scrub' }] }],
    },
  } as Pod;
}

/** Whether a volume of this source can be recycled here (hostPath and NFS, as established). */
export const recyclable = (v: PersistentVolume) => v.spec?.hostPath !== undefined || v.spec?.nfs !== undefined;

/** The recycler pod for `v` (call only when `recyclable(v)`). */
export function recyclerPod(v: PersistentVolume, s: RecyclerSettings): Pod {
  const nfs = v.spec?.nfs !== undefined;
  const pod = structuredClone((nfs ? s.nfsTemplate : s.hostPathTemplate) ?? defaultRecyclerTemplate());
  const t = nfs ? s.nfs : s.hostPath;
  const gi = Math.floor((parseQuantity(v.spec?.capacity?.['storage']) ?? 0) / 2 ** 30);
  pod.metadata = { ...pod.metadata, name: recyclerPodName(v.metadata.name ?? ''), namespace: RECYCLER_NAMESPACE, annotations: { ...pod.metadata?.annotations, 'sim.svc.io/run-seconds': '1' } };
  delete pod.metadata.generateName;
  const spec = pod.spec!;
  spec.activeDeadlineSeconds = Math.max(t.minimumTimeoutSeconds, gi * t.incrementSeconds);
  spec.restartPolicy = 'Never';
  const vols = spec.volumes ?? [];
  const first = vols[0] ?? { name: 'vol' };
  const source = nfs ? { nfs: { server: v.spec?.nfs?.server, path: v.spec?.nfs?.path } } : { hostPath: { path: v.spec?.hostPath?.path } };
  spec.volumes = [{ name: first.name, ...source } as NonNullable<typeof spec.volumes>[number], ...vols.slice(1)];
  return pod;
}
