/**
 * How claims and volumes match (pure functions, no API calls), as established; the
 * persistentvolume-binder (controllers/persistentvolume) and the scheduler's VolumeBinding plugin
 * both decide with these:
 *
 * - a claim's and a volume's class: the beta annotation `volume.beta.svc.io/storage-class` first,
 *   then `storageClassName`, else "" (no class);
 * - `findBestMatch`: the volume for an unbound claim. A volume pre-bound to the claim (its
 *   `claimRef` names the claim, with no uid or the claim's) wins at once. Otherwise only Available
 *   volumes not bound elsewhere and not being deleted, with at least the requested capacity, the
 *   same volume mode, labels matching the claim's selector, the same class and every access mode
 *   the claim asks for; among those, volumes with the fewest access modes are tried first (the
 *   established index by access-mode set), and of them the smallest wins;
 * - delayed binding (`WaitForFirstConsumer`): without a node, the binder binds only pre-bound
 *   volumes; with one (the scheduler's path), the volume's node affinity must match it;
 * - `volumeUnfit`: why a volume the claim names in `spec.volumeName` cannot take it (the
 *   established messages), or undefined.
 */
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from './generated/kinds.js';
import { labelSelectorFromObject } from './labels.js';
import { compileTerms } from './node-selection.js';
import { ANNOTATION_BETA_STORAGE_CLASS, ANNOTATION_SELECTED_NODE } from './well-known-labels.js';
import { parseQuantity } from './validation/quantity.js';

export const BINDING_IMMEDIATE = 'Immediate';
export const BINDING_WAIT_FOR_FIRST_CONSUMER = 'WaitForFirstConsumer';

export function claimClass(c: PersistentVolumeClaim): string {
  const beta = c.metadata.annotations?.[ANNOTATION_BETA_STORAGE_CLASS];
  if (beta !== undefined) return beta;
  return c.spec?.storageClassName ?? '';
}

export function volumeClass(v: PersistentVolume): string {
  const beta = v.metadata.annotations?.[ANNOTATION_BETA_STORAGE_CLASS];
  if (beta !== undefined) return beta;
  return v.spec?.storageClassName ?? '';
}

/** Bytes the claim asks for (0 when unreadable: validation requires it). */
export function requestedBytes(c: PersistentVolumeClaim): number {
  return parseQuantity(c.spec?.resources?.requests?.['storage']) ?? 0;
}

/** Capacities read so far, by volume object (cached objects are frozen; a changed volume is a new object). */
const capacities = new WeakMap<PersistentVolume, number>();

export function capacityBytes(v: PersistentVolume): number {
  let bytes = capacities.get(v);
  if (bytes === undefined) {
    bytes = parseQuantity(v.spec?.capacity?.['storage']) ?? 0;
    if (Object.isFrozen(v)) capacities.set(v, bytes);
  }
  return bytes;
}

/** The volume's claimRef names this claim (and, when it carries a uid, this very claim). */
export function isVolumeBoundToClaim(v: PersistentVolume, c: PersistentVolumeClaim): boolean {
  const ref = v.spec?.claimRef;
  if (!ref) return false;
  if (ref.name !== c.metadata.name || ref.namespace !== c.metadata.namespace) return false;
  return !ref.uid || ref.uid === c.metadata.uid;
}

const modeOf = (m: string | undefined) => m ?? 'Filesystem';
export const volumeModeMismatch = (c: PersistentVolumeClaim, v: PersistentVolume) => modeOf(c.spec?.volumeMode) !== modeOf(v.spec?.volumeMode);

/** The volume offers every access mode the claim asks for. */
export function accessModesFit(c: PersistentVolumeClaim, v: PersistentVolume): boolean {
  // A handful of modes at most: a scan, no Set per volume (the binder tries every unbound volume of a class).
  const offered = v.spec?.accessModes ?? [];
  for (const m of c.spec?.accessModes ?? []) if (!offered.includes(m)) return false;
  return true;
}

/** How many distinct access modes the volume offers. */
function distinctModes(v: PersistentVolume): number {
  const modes = v.spec?.accessModes ?? [];
  let n = 0;
  for (let i = 0; i < modes.length; i++) if (modes.indexOf(modes[i]!) === i) n++;
  return n;
}

/** The class's binding mode is WaitForFirstConsumer (a claim without a class binds at once). */
export function isDelayBinding(c: PersistentVolumeClaim, classOf: (name: string) => StorageClass | undefined): boolean {
  const name = claimClass(c);
  if (!name) return false;
  return classOf(name)?.volumeBindingMode === BINDING_WAIT_FOR_FIRST_CONSUMER;
}

/** A delayed-binding claim whose first consumer's node the scheduler picked: provision now. */
export const isDelayBindingProvisioning = (c: PersistentVolumeClaim) => c.metadata.annotations?.[ANNOTATION_SELECTED_NODE] !== undefined;

export function nodeAffinityFits(v: PersistentVolume, node: Node): boolean {
  const terms = v.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  return !terms || compileTerms(terms)(node);
}

export interface MatchOptions {
  /** The claim's class binds on first consumer. */
  delayBinding: boolean;
  /** The scheduler's candidate node (delayed binding); absent on the binder's path. */
  node?: Node;
  /** Volumes already chosen for other claims of the same pod. */
  excluded?: ReadonlySet<string>;
}

/** The established FindMatchingVolume over the volumes, tried by access-mode sets fewest modes first. */
export function findBestMatch(c: PersistentVolumeClaim, volumes: readonly PersistentVolume[], o: MatchOptions): PersistentVolume | undefined {
  const requested = requestedBytes(c);
  const cls = claimClass(c);
  const selector = c.spec?.selector ? labelSelectorFromObject(c.spec.selector) : undefined;
  let best: PersistentVolume | undefined;
  let bestModes = Infinity;
  let bestSize = Infinity;
  for (const v of volumes) {
    const name = v.metadata.name ?? '';
    if (o.excluded?.has(name)) continue;
    if (v.spec?.claimRef && !isVolumeBoundToClaim(v, c)) continue;
    const size = capacityBytes(v);
    if (size < requested) continue;
    if (volumeModeMismatch(c, v)) continue;
    if (v.metadata.deletionTimestamp) continue;
    const affinityOk = o.node ? nodeAffinityFits(v, o.node) : true;
    if (isVolumeBoundToClaim(v, c)) return affinityOk ? v : undefined;
    // The binder does not bind delayed-binding claims on its own: the scheduler picks with a node.
    if (!o.node && o.delayBinding) continue;
    if (v.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(v.metadata.labels)) continue;
    if (volumeClass(v) !== cls) continue;
    if (!affinityOk) continue;
    if (!accessModesFit(c, v)) continue;
    const modes = distinctModes(v);
    if (modes < bestModes || (modes === bestModes && size < bestSize)) {
      best = v;
      bestModes = modes;
      bestSize = size;
    }
  }
  return best;
}

/** Why the volume a claim names cannot satisfy it (the established messages), or undefined when it can. */
export function volumeUnfit(v: PersistentVolume, c: PersistentVolumeClaim): string | undefined {
  if (capacityBytes(v) < requestedBytes(c)) return 'requested PV is too small';
  if (volumeClass(v) !== claimClass(c)) return 'storageClassName does not match';
  if (volumeModeMismatch(c, v)) return 'incompatible volumeMode';
  if (!accessModesFit(c, v)) return 'incompatible accessMode';
  return undefined;
}
