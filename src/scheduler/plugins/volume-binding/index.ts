/**
 * VolumeBinding (pre-filter, filter, reserve, pre-bind), as established:
 *
 * - Pre-filter: a pod's PersistentVolumeClaims must exist and not be terminating; a bound claim is
 *   checked per node below; an unbound claim of a `WaitForFirstConsumer` class (delayed binding)
 *   is decided per node; any other unbound claim refuses the pod ("pod has unbound immediate
 *   PersistentVolumeClaims") until the persistentvolume-binder binds it.
 * - Filter: a bound claim's volume node affinity must match the node ("node(s) had volume node
 *   affinity conflict"). Each delayed claim needs, on that node, an Available volume that fits
 *   (src/api/volume-matching.ts with the node: smallest fit, node affinity; volumes chosen for the
 *   pod's other claims or assumed for other pods excluded) or a class that can provision there
 *   (not `svc.io/no-provisioner`, the node within `allowedTopologies`); otherwise "node(s) didn't
 *   find available persistent volumes to bind".
 * - Reserve: the chosen node's decisions are assumed (their volumes excluded for other pods) until
 *   pre-bind ends or unreserve.
 * - Pre-bind: a chosen volume gets the claim in `claimRef` (with `pv.svc.io/bound-by-controller`);
 *   a claim to provision gets `volume.svc.io/selected-node` = the node; then it waits, up to
 *   `bindTimeoutSeconds` (args, default 600), until the binder has bound every claim.
 */
import type { ClusterEvent, ClusterListers, FilterPlugin, FrameworkHandle, Plugin, PreBindPlugin, PreFilterPlugin, ReservePlugin } from '../../framework/interfaces.js';
import type { CycleData, CycleState } from '../../framework/cycle-state.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { compileTerms, type NodeMatcher } from '../../../api/node-selection.js';
import type { Node, PersistentVolume, PersistentVolumeClaim } from '../../framework/objects.js';
import type { PodInfo } from '../../framework/pod-info.js';
import { pluginError, skip, success, unresolvable, type Verdict } from '../../framework/status.js';
import { findBestMatch, isDelayBinding } from '../../../api/volume-matching.js';
import { ANNOTATION_BOUND_BY_CONTROLLER, ANNOTATION_SELECTED_NODE } from '../../../api/well-known-labels.js';
import { resources } from '../../../client/typed.js';

export const name = 'VolumeBinding';
export const REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';
export const REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
export const REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
/** A class whose volumes are only made by hand (the established kubernetes.io/no-provisioner). */
export const NO_PROVISIONER = 'svc.io/no-provisioner';
export const DEFAULT_BIND_TIMEOUT_SECONDS = 600;
export const events: readonly ClusterEvent[] = [
  { resource: 'PersistentVolumeClaim', actions: ['Add', 'Update'] },
  { resource: 'PersistentVolume', actions: ['Add', 'Update'] },
  { resource: 'StorageClass', actions: ['Add', 'Update'] },
  { resource: 'Node', actions: ['Add', 'Update'] },
];

export function claimNames(pod: PodInfo): string[] {
  const out: string[] = [];
  for (const v of pod.pod.spec?.volumes ?? []) if (v.persistentVolumeClaim?.claimName) out.push(v.persistentVolumeClaim.claimName);
  return out;
}

const matchers = new WeakMap<PersistentVolume, NodeMatcher | null>();

function pvMatcher(pv: PersistentVolume): NodeMatcher | null {
  let m = matchers.get(pv);
  if (m !== undefined) return m;
  const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  m = terms ? compileTerms(terms) : null;
  matchers.set(pv, m);
  return m;
}

/** What one node would need: volumes to bind to claims, claims to provision. */
interface NodeDecision {
  bind: { claim: PersistentVolumeClaim; volume: PersistentVolume }[];
  provision: PersistentVolumeClaim[];
}

class VolumeBindingState implements CycleData {
  readonly perNode = new Map<string, NodeDecision>();
  constructor(
    readonly bound: readonly PersistentVolumeClaim[],
    readonly delayed: readonly PersistentVolumeClaim[],
  ) {}
  clone(): CycleData {
    return this;
  }
}

/** Pre-filter: every claim exists and is not terminating; unbound ones must be of a delayed-binding class. */
export function checkClaims(pod: PodInfo, listers: ClusterListers): Verdict | VolumeBindingState {
  const ns = pod.pod.metadata.namespace ?? 'default';
  const bound: PersistentVolumeClaim[] = [];
  const delayed: PersistentVolumeClaim[] = [];
  for (const claim of claimNames(pod)) {
    const pvc = listers.persistentVolumeClaim(ns, claim);
    if (!pvc) return unresolvable(`persistentvolumeclaim "${claim}" not found`);
    if (pvc.metadata.deletionTimestamp) return unresolvable(`persistentvolumeclaim "${claim}" is being deleted`);
    if (pvc.spec?.volumeName) bound.push(pvc);
    else if (isDelayBinding(pvc, (n) => listers.storageClass(n))) delayed.push(pvc);
    else return unresolvable(REASON_UNBOUND_IMMEDIATE);
  }
  return new VolumeBindingState(bound, delayed);
}

/** The bound claims' volumes allow the node. */
export function fits(bound: readonly PersistentVolumeClaim[], node: Node, listers: ClusterListers): Verdict {
  for (const pvc of bound) {
    const pv = listers.persistentVolume(pvc.spec?.volumeName ?? '');
    if (!pv) continue;
    const m = pvMatcher(pv);
    if (m && !m(node)) return unresolvable(REASON_NODE_CONFLICT);
  }
  return success();
}

/** The class can provision on this node (has a provisioner, and the node is within its allowed topologies). */
function canProvision(pvc: PersistentVolumeClaim, node: Node, listers: ClusterListers): boolean {
  const cls = listers.storageClass(pvc.spec?.storageClassName ?? '');
  if (!cls || !cls.provisioner || cls.provisioner === NO_PROVISIONER) return false;
  const topologies = cls.allowedTopologies ?? [];
  if (topologies.length === 0) return true;
  const labels = node.metadata.labels ?? {};
  return topologies.some((t) => (t.matchLabelExpressions ?? []).every((e) => e.key !== undefined && (e.values ?? []).includes(labels[e.key] ?? '')));
}

/** Volumes for the delayed claims on `node`, or undefined when one cannot be had there. */
export function decide(delayed: readonly PersistentVolumeClaim[], node: Node, listers: ClusterListers, assumed: ReadonlySet<string>): NodeDecision | undefined {
  const chosen = new Set(assumed);
  const out: NodeDecision = { bind: [], provision: [] };
  const volumes = delayed.length ? listers.persistentVolumes() : [];
  for (const claim of delayed) {
    const volume = findBestMatch(claim, volumes, { delayBinding: true, node, excluded: chosen });
    if (volume) {
      chosen.add(volume.metadata.name ?? '');
      out.bind.push({ claim, volume });
    } else if (canProvision(claim, node, listers)) out.provision.push(claim);
    else return undefined;
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function factory(args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const timeoutMs = (typeof args['bindTimeoutSeconds'] === 'number' ? args['bindTimeoutSeconds'] : DEFAULT_BIND_TIMEOUT_SECONDS) * 1000;
  /** Volumes assumed for pods between reserve and the end of pre-bind (volume -> pod key). */
  const assumed = new Map<string, string>();
  const podKeyOf = (pod: PodInfo) => `${pod.pod.metadata.namespace}/${pod.pod.metadata.name}`;
  const release = (pod: PodInfo) => {
    for (const [v, p] of assumed) if (p === podKeyOf(pod)) assumed.delete(v);
  };
  const stateOf = (s: CycleState) => s.read<VolumeBindingState>(name);
  const plugin: PreFilterPlugin & FilterPlugin & ReservePlugin & PreBindPlugin & { events: readonly ClusterEvent[] } = {
    name,
    events,
    preFilter: (s, pod) => {
      if (claimNames(pod).length === 0) return { verdict: skip() };
      const checked = checkClaims(pod, handle.listers);
      if (!(checked instanceof VolumeBindingState)) return { verdict: checked };
      s.write(name, checked);
      return { verdict: success() };
    },
    filter: (s, _pod, node) => {
      const st = stateOf(s);
      if (!st || !node.node) return success();
      const v = fits(st.bound, node.node, handle.listers);
      if (v.code !== 'Success' || st.delayed.length === 0) return v;
      const d = decide(st.delayed, node.node, handle.listers, new Set(assumed.keys()));
      if (!d) return unresolvable(REASON_BIND_CONFLICT);
      st.perNode.set(node.node.metadata.name ?? '', d);
      return success();
    },
    reserve: (s, pod, nodeName) => {
      const d = stateOf(s)?.perNode.get(nodeName);
      for (const b of d?.bind ?? []) assumed.set(b.volume.metadata.name ?? '', podKeyOf(pod));
      return success();
    },
    unreserve: (_s, pod) => release(pod),
    preBind: async (s, pod, nodeName) => {
      const st = stateOf(s);
      const d = st?.perNode.get(nodeName);
      if (!st || !d || (d.bind.length === 0 && d.provision.length === 0)) return success();
      try {
        for (const { claim, volume } of d.bind) {
          const fresh = handle.listers.persistentVolume(volume.metadata.name ?? '') ?? volume;
          await handle.client.update<PersistentVolume>(resources.persistentvolumes, '', {
            ...fresh,
            metadata: { ...fresh.metadata, annotations: { ...fresh.metadata.annotations, [ANNOTATION_BOUND_BY_CONTROLLER]: 'yes' } },
            spec: { ...fresh.spec, claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '', resourceVersion: claim.metadata.resourceVersion ?? '' } },
          });
        }
        for (const claim of d.provision) {
          const fresh = handle.listers.persistentVolumeClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '') ?? claim;
          if (fresh.metadata.annotations?.[ANNOTATION_SELECTED_NODE] === nodeName) continue;
          await handle.client.update<PersistentVolumeClaim>(resources.persistentvolumeclaims, fresh.metadata.namespace ?? '', {
            ...fresh,
            metadata: { ...fresh.metadata, annotations: { ...fresh.metadata.annotations, [ANNOTATION_SELECTED_NODE]: nodeName } },
          });
        }
        // The binder finishes: wait until every delayed claim is bound.
        const deadline = handle.now() + timeoutMs;
        const ns = pod.pod.metadata.namespace ?? 'default';
        for (;;) {
          const unbound = st.delayed.filter((c) => !handle.listers.persistentVolumeClaim(ns, c.metadata.name ?? '')?.spec?.volumeName);
          if (unbound.length === 0) return success();
          if (handle.now() > deadline) return pluginError(`binding volumes: timed out waiting for the condition`);
          await sleep(100);
        }
      } catch (e) {
        return pluginError(`binding volumes: ${(e as Error).message}`);
      } finally {
        release(pod);
      }
    },
  };
  return plugin;
}
