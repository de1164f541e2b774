/**
 * The attachdetach controller: attaches the CSI volumes a node's pods need to that node and
 * detaches them when no pod there needs them any more, as the established attach/detach
 * controller with the CSI attacher (rules: ./world.ts).
 *
 * - Watches: Nodes (key: the node's name). Triggers: Pods (their `spec.nodeName`),
 *   PersistentVolumeClaims and PersistentVolumes (the nodes of the pods using them),
 *   VolumeAttachments (their `spec.nodeName`), CSIDrivers (every node).
 * - Attach: a VolumeAttachment `csi-<sha256(handle+driver+node)>` (spec.attacher = the driver,
 *   source.persistentVolumeName, nodeName); the volume counts as attached once its
 *   `status.attached` is true. That status is an external attacher's to set; no external attacher
 *   runs for the simulated driver `simulated.csi.svc.io` (the volumes of the simulated provisioner `svc.io/simulated`), so this controller plays that driver's
 *   attacher itself (a built-in simulated attacher: it sets `status.attached` right after creating
 *   the object). For any other driver it waits for that driver's attacher.
 * - Node status: `status.volumesAttached` (`svc.io/csi/<driver>^<handle>`, devicePath "" as the
 *   CSI attacher returns) lists what is attached, written with a merge patch of `nodes/status`.
 * - Detach: a volume no pod of the node needs is taken out of `volumesAttached`, then its
 *   VolumeAttachment is deleted; as established, only once the node's `status.volumesInUse` no
 *   longer lists it, or MAX_WAIT_FOR_UNMOUNT_MS (6 min) after the detach was first wanted.
 * - Timers: a node with work waiting (an attach not confirmed, a volume still in use, a claim not
 *   bound yet) is looked at again every LOOP_PERIOD_MS; every `--attach-detach-reconcile-sync-period`
 *   the actual state is checked against the API (each attached volume's VolumeAttachment read
 *   back: gone or not attached means not attached, and it is attached again), unless
 *   `--disable-attach-detach-reconcile-sync`.
 * - Events: `SuccessfulAttachVolume` on each pod using a volume just attached; `FailedAttachVolume`
 *   on each pod using a volume whose attach failed (the VolumeAttachment could not be written, or
 *   its attacher reported `status.attachError`), tried again every LOOP_PERIOD_MS.
 * - At start the actual state is rebuilt from the VolumeAttachments (a restarted manager neither
 *   attaches twice nor forgets to detach).
 */
import type { CSIDriver, Node, PersistentVolume, PersistentVolumeClaim, Pod, VolumeAttachment } from '../../src/api/generated/kinds.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { SIMULATED_CSI_DRIVER } from '../../src/api/attachable-volumes.js';
import { attachmentName, desiredVolumes, plan, podClaimNames, podTerminated, podVolumes, uniqueVolumeName, type ActualVolume, type DesiredVolume, type VolumeLookups } from './world.js';

export interface AttachDetachOptions {
  /** `--attach-detach-reconcile-sync-period` (≥ 1 s). */
  syncPeriodMs: number;
  /** `--disable-attach-detach-reconcile-sync`. */
  disableReconcileSync: boolean;
}

/** The driver this controller attaches itself (the simulated provisioner's volumes). */
export const SIMULATED_DRIVER = SIMULATED_CSI_DRIVER;
/** How soon a node with work waiting is looked at again (the established loop runs every 100 ms; one key per node here). */
export const LOOP_PERIOD_MS = 1_000;
/** No flag sets it; the established controller has one reconciler loop. */
const WORKERS = 5;

const POD_NODE_INDEX = 'attachdetach.nodeName';
const POD_CLAIM_INDEX = 'attachdetach.claim';
const VA_NODE_INDEX = 'attachdetach.vaNode';

interface NodeWorld {
  volumes: Map<string, ActualVolume>;
  lastSyncAt: number;
}

const ignore404 = (e: unknown) => {
  if (!(e instanceof ApiError && e.code === 404)) throw e;
};

export function attachDetachController(o: AttachDetachOptions): ControllerDefinition<Node> {
  const worlds = new Map<string, NodeWorld>();
  let pods: IndexedCache<Pod> | undefined;
  const indexed = new WeakSet<object>();
  const nodesOfClaim = (namespace: string | undefined, name: string) => [...new Set((pods?.byIndex(POD_CLAIM_INDEX, keyFor(namespace, name)) ?? []).map((p) => p.spec?.nodeName ?? '').filter(Boolean))];

  /** The actual state of a node seen for the first time: from its VolumeAttachments. */
  const worldOf = (node: string, attachments: IndexedCache<VolumeAttachment>, pvs: IndexedCache<PersistentVolume>, now: number): NodeWorld => {
    let w = worlds.get(node);
    if (w) return w;
    w = { volumes: new Map(), lastSyncAt: now };
    for (const va of attachments.byIndex(VA_NODE_INDEX, node)) {
      const pvName = va.spec?.source?.persistentVolumeName ?? '';
      const csi = pvs.get(pvName)?.spec?.csi;
      const driver = va.spec?.attacher ?? '';
      const handle = typeof csi?.volumeHandle === 'string' ? csi.volumeHandle : '';
      if (!pvName || !handle || csi?.driver !== driver || va.metadata.name !== attachmentName(handle, driver, node)) continue;
      const name = uniqueVolumeName(driver, handle);
      w.volumes.set(name, { name, driver, handle, pvName, attached: va.status?.attached === true });
    }
    worlds.set(node, w);
    return w;
  };

  const inner = defineController<Node>({
    name: 'attachdetach',
    watches: resources.nodes,
    concurrency: WORKERS,
    triggers: [
      { resource: resources.pods, keysFor: (obj) => ((obj as Pod).spec?.nodeName ? [(obj as Pod).spec!.nodeName!] : []) },
      { resource: resources.persistentvolumeclaims, keysFor: (obj) => nodesOfClaim(obj.metadata.namespace, obj.metadata.name ?? '') },
      {
        resource: resources.persistentvolumes,
        keysFor: (obj) => {
          const ref = (obj as PersistentVolume).spec?.claimRef;
          return ref?.name ? nodesOfClaim(ref.namespace, ref.name) : [];
        },
      },
      { resource: resources.volumeattachments, keysFor: (obj) => ((obj as VolumeAttachment).spec?.nodeName ? [(obj as VolumeAttachment).spec!.nodeName!] : []) },
      { resource: resources.csidrivers, keysFor: (_obj, nodes) => nodes.list().map((n) => n.metadata.name ?? '') },
    ],
    permissions: [
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
      { apiGroups: ['storage.svc.io'], resources: ['volumeattachments'], verbs: ['get', 'create', 'delete'] },
      // The built-in simulated attacher's part (an external attacher's right in the established split).
      { apiGroups: ['storage.svc.io'], resources: ['volumeattachments/status'], verbs: ['patch'] },
    ],
    async reconcile(nodeName, ctx) {
      const now = ctx.clock.now();
      const podCache = ctx.cacheOf<Pod>(resources.pods);
      const attachments = ctx.cacheOf<VolumeAttachment>(resources.volumeattachments);
      // Caches may outlive a start (a shared informer factory): each is indexed once.
      if (!indexed.has(podCache)) {
        podCache.addIndex(POD_NODE_INDEX, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
        podCache.addIndex(POD_CLAIM_INDEX, (p) => podClaimNames(p).map((c) => keyFor(p.metadata.namespace, c)));
        indexed.add(podCache);
      }
      if (!indexed.has(attachments)) {
        attachments.addIndex(VA_NODE_INDEX, (va) => (va.spec?.nodeName ? [va.spec.nodeName] : []));
        indexed.add(attachments);
      }
      pods = podCache;
      const claims = ctx.cacheOf<PersistentVolumeClaim>(resources.persistentvolumeclaims);
      const pvs = ctx.cacheOf<PersistentVolume>(resources.persistentvolumes);
      const drivers = ctx.cacheOf<CSIDriver>(resources.csidrivers);
      const look: VolumeLookups = { claim: (ns, n) => claims.get(keyFor(ns, n)), volume: (n) => pvs.get(n), driver: (n) => drivers.get(n) };

      const node = ctx.object;
      const world = worldOf(nodeName, attachments, pvs, now);
      const nodePods = podCache.byIndex(POD_NODE_INDEX, nodeName);
      const { volumes: desired, unresolved } = node ? desiredVolumes(nodePods, look) : { volumes: new Map<string, DesiredVolume>(), unresolved: 0 };
      const inUse = new Set(node?.status?.volumesInUse ?? []);

      // The actual state with the API, every sync period (unless disabled).
      if (!o.disableReconcileSync && now - world.lastSyncAt >= o.syncPeriodMs) {
        world.lastSyncAt = now;
        for (const a of world.volumes.values()) {
          if (!a.attached) continue;
          const va = await getAttachment(ctx.client, attachmentName(a.handle, a.driver, nodeName));
          if (va?.status?.attached !== true) {
            ctx.logger.info({ volume: a.name, node: nodeName }, 'volume no longer attached according to its VolumeAttachment; attaching it again');
            world.volumes.delete(a.name);
          }
        }
      }

      /** The established event on each pod of the node that uses the volume. */
      const podsUsing = (volume: string) => nodePods.filter((pod) => !podTerminated(pod) && podVolumes(pod, look).volumes.some((x) => x.name === volume));
      let failedAttach = false;
      const attachFailed = (v: { name: string; pvName: string }, message: string) => {
        failedAttach = true;
        ctx.logger.warn({ volume: v.name, node: nodeName, err: message }, 'AttachVolume.Attach failed');
        for (const pod of podsUsing(v.name)) void ctx.recorder.event(pod, 'Warning', 'FailedAttachVolume', `AttachVolume.Attach failed for volume "${v.pvName}" : ${message}`);
      };

      // Attaches in flight: confirmed by the VolumeAttachment's status (or failed, by its attachError).
      for (const a of world.volumes.values()) {
        if (a.attached) continue;
        const va = attachments.get(attachmentName(a.handle, a.driver, nodeName));
        if (va?.status?.attached === true) a.attached = true;
        else if (va?.status?.attachError?.message) attachFailed(a, String(va.status.attachError.message));
      }

      const p = plan(desired, world.volumes, inUse, now);
      for (const name of p.detachRequested) world.volumes.get(name)!.detachRequestedAt = now;
      for (const name of p.detachCancelled) delete world.volumes.get(name)!.detachRequestedAt;
      // Detach: out of volumesAttached first (the node must not use it any more), then the attachment goes.
      let reported = (node?.status?.volumesAttached ?? []).map((v) => String(v['name'] ?? '')).sort();
      if (p.detach.length && node) reported = await writeVolumesAttached(ctx.client, nodeName, reported, p.reportAttached);
      for (const a of p.detach) {
        await ctx.client.delete(resources.volumeattachments, '', attachmentName(a.handle, a.driver, nodeName)).catch(ignore404);
        world.volumes.delete(a.name);
        ctx.logger.info({ volume: a.name, node: nodeName, forced: inUse.has(a.name) }, 'DetachVolume succeeded');
      }
      for (const v of p.attach) {
        let attached: boolean;
        try {
          attached = await attach(ctx.client, v, nodeName);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
          // Not recorded as attaching: the next pass (LOOP_PERIOD_MS) tries again.
          attachFailed(v, e.message);
          continue;
        }
        world.volumes.set(v.name, { ...v, attached });
        if (!attached) continue;
        ctx.logger.info({ volume: v.name, node: nodeName }, 'AttachVolume succeeded');
        // The established event on each pod that waits for the volume (its message ends in a space, as established).
        for (const pod of podsUsing(v.name)) await ctx.recorder.event(pod, 'Normal', 'SuccessfulAttachVolume', `AttachVolume.Attach succeeded for volume "${v.pvName}" `);
      }
      const report = [...world.volumes.values()].filter((a) => a.attached && (desired.has(a.name) || a.detachRequestedAt !== undefined)).map((a) => a.name).sort();
      if (node) await writeVolumesAttached(ctx.client, nodeName, reported, report);
      if (!node && world.volumes.size === 0) worlds.delete(nodeName);

      const waits: number[] = [];
      if (p.waitMs !== undefined || unresolved > 0 || failedAttach || [...world.volumes.values()].some((a) => !a.attached)) waits.push(Math.min(LOOP_PERIOD_MS, p.waitMs ?? LOOP_PERIOD_MS));
      if (!o.disableReconcileSync && world.volumes.size > 0) waits.push(Math.max(0, world.lastSyncAt + o.syncPeriodMs - now));
      return waits.length ? requeueAfter(Math.min(...waits)) : done();
    },
  });
  return {
    ...inner,
    // A new start (new leadership, new caches) rebuilds the actual state from the API and indexes the new caches.
    start(host) {
      worlds.clear();
      pods = undefined;
      return inner.start(host);
    },
  };
}

async function getAttachment(client: ApiClient, name: string): Promise<VolumeAttachment | undefined> {
  try {
    return await client.get<VolumeAttachment>(resources.volumeattachments, '', name);
  } catch (e) {
    ignore404(e);
    return undefined;
  }
}

/** Creates (or finds) the VolumeAttachment; for the simulated driver also attaches. Whether it is attached now. */
async function attach(client: ApiClient, v: DesiredVolume, node: string): Promise<boolean> {
  const name = attachmentName(v.handle, v.driver, node);
  let va: VolumeAttachment;
  try {
    va = await client.create<VolumeAttachment>(resources.volumeattachments, '', {
      apiVersion: 'storage.svc.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name },
      spec: { attacher: v.driver, source: { persistentVolumeName: v.pvName }, nodeName: node },
    });
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 409)) throw e;
    va = await client.get<VolumeAttachment>(resources.volumeattachments, '', name);
  }
  if (va.status?.attached === true) return true;
  if (v.driver !== SIMULATED_DRIVER) return false;
  await client.patch(resources.volumeattachments, '', name, 'merge', { status: { attached: true } }, { subresource: 'status' });
  return true;
}

/** Writes `status.volumesAttached` when `now` (what the node says) differs from `names`; what it says after. */
async function writeVolumesAttached(client: ApiClient, node: string, now: readonly string[], names: readonly string[]): Promise<string[]> {
  if (now.length === names.length && now.every((n, i) => n === names[i])) return [...now];
  try {
    await client.patch(resources.nodes, '', node, 'merge', { status: { volumesAttached: names.map((name) => ({ name, devicePath: '' })) } }, { subresource: 'status' });
  } catch (e) {
    ignore404(e);
  }
  return [...names];
}
