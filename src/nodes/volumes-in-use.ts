/**
 * What a simulated node reports in `status.volumesInUse`, as the established node agent's volume
 * manager does: the attachable volumes of the pods it has (from the moment it takes a pod until
 * the pod finished or was removed), each once, sorted. A volume is named as the attachdetach
 * controller names it (src/api/attachable-volumes.ts): a CSI PersistentVolume reached through the
 * pod's claims. The node resolves claim and volume with its own client (the Node authorizer lets it
 * read those of its pods); a claim not bound yet is asked for again (1 s doubling to 30 s) while
 * the pod is here. (The established agent leaves out volumes whose CSIDriver says attachRequired
 * false; here every CSI volume is listed: the controller only detaches what it attached anyway.)
 *
 * `onChange` is called when the list changes, so the node reports it without waiting for its
 * next status update (the controller holds a detach until the volume leaves this list).
 * `onResolved` is called after each attempt to resolve a pod's claims; `podClaims` says what each
 * claim resolved to, so the node can hold the pod until those volumes are attached.
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../api/generated/kinds.js';
import { podClaimNames, uniqueVolumeName } from '../api/attachable-volumes.js';
import type { Clock } from '../client/clock.js';
import { ApiError, type ApiClient } from '../client/types.js';
import { resources } from '../client/typed.js';

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;

interface Tracked {
  names: string[];
  /** claim name -> the attachable volume's unique name ('' for a volume that is not attachable; undefined: not resolved yet). */
  claims: Map<string, string | undefined>;
  timer: unknown;
  failures: number;
  stopped: boolean;
}

export interface VolumesInUseContext {
  client: ApiClient;
  clock: Clock;
  onChange(): void;
  /** A pod's claims were looked up (resolved or not). */
  onResolved?(uid: string): void;
}

export class VolumesInUse {
  private readonly pods = new Map<string, Tracked>();
  private last = '';

  constructor(private readonly ctx: VolumesInUseContext) {}

  /** Starts resolving the volumes of a pod that has claims (idempotent). */
  start(pod: Pod): void {
    const uid = pod.metadata.uid ?? '';
    if (!uid || this.pods.has(uid) || podClaimNames(pod).length === 0) return;
    const t: Tracked = { names: [], claims: new Map(), timer: undefined, failures: 0, stopped: false };
    this.pods.set(uid, t);
    void this.resolve(pod, t);
  }

  stop(uid: string): void {
    const t = this.pods.get(uid);
    if (!t) return;
    t.stopped = true;
    this.ctx.clock.clearTimeout(t.timer);
    this.pods.delete(uid);
    this.changed();
  }

  stopAll(): void {
    for (const t of this.pods.values()) {
      t.stopped = true;
      this.ctx.clock.clearTimeout(t.timer);
    }
    this.pods.clear();
    this.last = '';
  }

  /** What each claim of pod `uid` resolved to (undefined: the pod has no claims, or is not tracked). */
  podClaims(uid: string): ReadonlyMap<string, string | undefined> | undefined {
    return this.pods.get(uid)?.claims;
  }

  /** The list as `status.volumesInUse` says it. */
  names(): string[] {
    const all = new Set<string>();
    for (const t of this.pods.values()) for (const n of t.names) all.add(n);
    return [...all].sort();
  }

  private changed(): void {
    const now = this.names().join('\n');
    if (now === this.last) return;
    this.last = now;
    this.ctx.onChange();
  }

  private async resolve(pod: Pod, t: Tracked): Promise<void> {
    const namespace = pod.metadata.namespace ?? '';
    const names: string[] = [];
    const claims = new Map<string, string | undefined>();
    let pending = false;
    try {
      for (const claimName of podClaimNames(pod)) {
        claims.set(claimName, undefined);
        const claim = await this.get<PersistentVolumeClaim>(resources.persistentvolumeclaims, namespace, claimName);
        const pvName = claim?.status?.phase === 'Bound' ? (claim.spec?.volumeName ?? '') : '';
        const pv = pvName ? await this.get<PersistentVolume>(resources.persistentvolumes, '', pvName) : undefined;
        if (!pv) {
          pending = true;
          continue;
        }
        const csi = pv.spec?.csi;
        const driver = typeof csi?.['driver'] === 'string' ? csi['driver'] : '';
        const handle = typeof csi?.['volumeHandle'] === 'string' ? csi['volumeHandle'] : '';
        const name = driver && handle ? uniqueVolumeName(driver, handle) : '';
        claims.set(claimName, name);
        if (name) names.push(name);
      }
    } catch {
      pending = true;
    }
    if (t.stopped) return;
    t.names = names;
    t.claims = claims;
    this.changed();
    this.ctx.onResolved?.(pod.metadata.uid ?? '');
    if (!pending) return;
    t.failures++;
    t.timer = this.ctx.clock.setTimeout(() => void this.resolve(pod, t), Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (t.failures - 1)));
  }

  private async get<T>(ref: typeof resources.persistentvolumes | typeof resources.persistentvolumeclaims, namespace: string, name: string): Promise<T | undefined> {
    try {
      return (await this.ctx.client.get(ref, namespace, name)) as T;
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }
}
