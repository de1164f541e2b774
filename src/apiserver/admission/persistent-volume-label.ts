/**
 * PersistentVolumeLabel (selectable, mutating; deprecated as established): a PersistentVolume
 * created on one of the cloud's disks gets the cloud's zone and region labels
 * (`failure-domain.beta.svc.io/zone`, `failure-domain.beta.svc.io/region`) and, so the scheduler
 * places its pods in that zone, a node affinity requirement per label (`In` the zone set, zones of
 * a multi-zone value split on `__`), appended to every required term unless a term already names
 * one of the keys. Labels the user gave under those keys are replaced (the system owns them),
 * except on a dynamically provisioned volume (`pv.svc.io/provisioned-by`) that has both: the
 * provisioner is trusted.
 *
 * Which volumes are the cloud's, and where they are, the cloud provider says (`volumeLabels` of
 * src/cloud/provider.ts, given to the server by src/cli as a `VolumeLabeler`: this layer does not
 * reach the cloud itself). A volume the cloud does not own, or a server without --cloud-provider,
 * gets nothing; the cloud failing to place its own disk refuses the create (403), as established.
 */
import type { PersistentVolume } from '../../api/generated/kinds.js';
import { ANNOTATION_PROVISIONED_BY, LABEL_BETA_REGION, LABEL_BETA_ZONE } from '../../api/well-known-labels.js';
import type { Logger } from 'pino';
import type { AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

/** The cloud's answer for a volume: its labels, or undefined when the volume is not the cloud's. */
export interface VolumeLabeler {
  volumeLabels(pv: PersistentVolume): Promise<Record<string, string> | undefined>;
}

interface Requirement {
  key: string;
  operator: 'In';
  values: string[];
}

/** The labels to set: the provisioner's when it gave both, else the cloud's. */
export async function findVolumeLabels(pv: PersistentVolume, labeler: VolumeLabeler): Promise<Record<string, string> | undefined> {
  const labels = pv.metadata.labels ?? {};
  const zone = labels[LABEL_BETA_ZONE];
  const region = labels[LABEL_BETA_REGION];
  if (pv.metadata.annotations?.[ANNOTATION_PROVISIONED_BY] !== undefined && zone !== undefined && region !== undefined) {
    return { [LABEL_BETA_ZONE]: zone, [LABEL_BETA_REGION]: region };
  }
  return labeler.volumeLabels(pv);
}

/** Sets the labels and their node affinity on the volume (in place), as established. */
export function applyVolumeLabels(pv: PersistentVolume, found: Record<string, string>): void {
  if (Object.keys(found).length === 0) return;
  const labels = (pv.metadata.labels ??= {});
  const requirements: Requirement[] = [];
  for (const [k, v] of Object.entries(found)) {
    labels[k] = v;
    const values = k === LABEL_BETA_ZONE ? [...new Set(v.split('__').map((z) => z.trim()).filter((z) => z !== ''))].sort() : [v];
    requirements.push({ key: k, operator: 'In', values });
  }
  const spec = (pv.spec ??= {}) as Record<string, unknown>;
  const affinity = (spec['nodeAffinity'] ??= {}) as Record<string, unknown>;
  const required = (affinity['required'] ??= {}) as Record<string, unknown>;
  const terms = (required['nodeSelectorTerms'] ??= []) as Record<string, unknown>[];
  // At least one term for the requirements to go into.
  if (terms.length === 0) terms.push({});
  const keys = new Set(requirements.map((r) => r.key));
  const taken = terms.some((t) => ((t['matchExpressions'] as { key?: string }[] | undefined) ?? []).some((e) => e.key !== undefined && keys.has(e.key)));
  // A term that already names one of the keys: the user's affinity wins and nothing is added.
  if (taken) return;
  for (const t of terms) t['matchExpressions'] = [...((t['matchExpressions'] as unknown[] | undefined) ?? []), ...requirements.map((r) => ({ ...r, values: [...r.values] }))];
}

export function persistentVolumeLabel(labeler: VolumeLabeler | undefined, logger?: Logger): AdmissionPlugin {
  logger?.warn('PersistentVolumeLabel admission controller is deprecated. Please remove this controller from your configuration files and scripts.');
  return {
    name: 'PersistentVolumeLabel',
    sideEffects: 'None',
    handles: (a) => labeler !== undefined && a.subresource === '' && a.def.group === '' && a.def.plural === 'persistentvolumes' && a.operation === 'CREATE',
    async mutate(a) {
      const pv = a.object as PersistentVolume | undefined;
      if (!pv || !labeler) return;
      let found: Record<string, string> | undefined;
      try {
        found = await findVolumeLabels(pv, labeler);
      } catch (err) {
        throw admissionForbidden(a, `error querying the cloud about volume ${pv.metadata.name ?? ''}: ${(err as Error).message}`);
      }
      if (found) applyVolumeLabels(pv, found);
    },
  };
}
