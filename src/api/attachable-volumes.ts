/**
 * Names of attachable volumes, shared by the attachdetach controller (controllers/attachdetach),
 * which writes a node's `status.volumesAttached`, and the simulated nodes (src/nodes), which write
 * its `status.volumesInUse`: both must spell a volume the same way, as established for CSI
 * volumes `<plugin>/<driver>^<volumeHandle>` with the plugin `svc.io/csi` (`kubernetes.io/csi`).
 */
import type { Pod } from './generated/kinds.js';

/**
 * The CSI driver of the volumes the simulated provisioner (`svc.io/simulated`) makes. A provisioner
 * name may contain `/`; a CSI driver name may not (it is a DNS subdomain, as VolumeAttachment's
 * `spec.attacher` is validated), hence a name of its own, in the established `<name>.csi.<domain>` style.
 */
export const SIMULATED_CSI_DRIVER = 'simulated.csi.svc.io';

/** The established unique name prefix of CSI volumes (`kubernetes.io/csi`). */
export const CSI_PLUGIN_NAME = 'svc.io/csi';

/** `svc.io/csi/<driver>^<handle>`: what `volumesAttached[].name` and `volumesInUse` say. */
export const uniqueVolumeName = (driver: string, handle: string) => `${CSI_PLUGIN_NAME}/${driver}^${handle}`;

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * The claims a pod's volumes use: `persistentVolumeClaim.claimName`, and for a generic
 * `ephemeral` volume the established `<pod name>-<volume name>` claim.
 */
export function podClaimNames(p: Pod): string[] {
  return podClaimVolumes(p).map(([, claim]) => claim);
}

/** The pod's volumes that are claims, as [volume name, claim name] (an ephemeral volume's claim is `<pod>-<volume>`). */
export function podClaimVolumes(p: Pod): [string, string][] {
  const out: [string, string][] = [];
  const volumes = rec(p.spec)['volumes'];
  for (const v of (Array.isArray(volumes) ? volumes : []).map(rec)) {
    const claim = str(rec(v['persistentVolumeClaim'])['claimName']);
    if (claim) out.push([str(v['name']), claim]);
    else if (v['ephemeral'] !== undefined && v['ephemeral'] !== null) out.push([str(v['name']), `${p.metadata.name ?? ''}-${str(v['name'])}`]);
  }
  return out;
}
