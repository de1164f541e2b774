/**
 * The nodeipam controller (`--allocate-node-cidrs`, `--cidr-allocator-type=RangeAllocator`): gives
 * every Node a pod CIDR (`spec.podCIDR`, and `spec.podCIDRs`: one per cluster CIDR, two when
 * dual-stack) cut from `--cluster-cidr` at `--node-cidr-mask-size*`, never the same one to two
 * nodes, with `--service-cluster-ip-range` kept out.
 *
 * - Watches: Nodes (key: the node's name). Trigger: a Node gone while nodes wait for a CIDR queues
 *   the waiting ones (its CIDR is free again).
 * - Start: before the first allocation, every cached node's podCIDRs are marked taken (the cache
 *   has synced before any reconcile), so a restarted controller never hands out a CIDR in use.
 * - Reconcile of a node:
 *   - gone: its CIDRs are released;
 *   - has podCIDRs: they are marked taken and it keeps them; one out of range (or already taken,
 *     or at an index with no cluster CIDR) is logged and recorded as a Warning Event
 *     `InvalidPodCIDR` (a node's podCIDRs never change once set, so nothing is rewritten);
 *   - has none: the next free CIDR of every cluster CIDR is taken and written with a merge patch
 *     of `spec.podCIDR`/`spec.podCIDRs` (the established PatchNodeCIDRs). A failed write frees them
 *     again, records `CIDRAssignmentFailed` and retries with back-off.
 * - A full range: the Event `CIDRNotAvailable` (Normal, "Node <name> status is now:
 *   CIDRNotAvailable", the established RecordNodeStatusChange) and the node's `NetworkUnavailable`
 *   condition True with reason `CIDRNotAvailable`; retried every 10 s and when a node goes. Once
 *   the node gets a CIDR the condition goes False (`RouteCreated`, "NodeController create implicit
 *   route", the established text of an allocator that made the route).
 * - Writes: nodes (patch spec), nodes/status (update: the condition), Events.
 */
import type { Node } from '../../src/api/generated/kinds.js';
import { objectKey } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { setCondition } from '../../src/runtime/conditions.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { NO_CIDRS_REMAINING } from './cidr-set.js';
import { NodeCidrAllocator } from './range-allocator.js';

export { NodeCidrAllocator } from './range-allocator.js';
export { CidrSet, CidrSetError } from './cidr-set.js';

export interface NodeIpamOptions {
  /** One or two (dual-stack: one per family, primary first). */
  clusterCidrs: readonly string[];
  /** The node mask size of each cluster CIDR. */
  nodeCidrMaskSizes: readonly number[];
  /** Ranges never handed to nodes (`--service-cluster-ip-range`). */
  serviceCidrs?: readonly string[];
  /** Patches at once (the established cidrUpdateWorkers: 30). */
  concurrency?: number;
  /** How soon a node that found the range full tries again (default 10 s). */
  fullRetryMs?: number;
}

export const NETWORK_UNAVAILABLE = 'NetworkUnavailable';
export const CIDR_NOT_AVAILABLE = 'CIDRNotAvailable';
const CIDR_UPDATE_WORKERS = 30;
const CONDITION_RETRIES = 3;

/** A node's podCIDRs: `spec.podCIDRs`, or the single `spec.podCIDR` of an older writer. */
export function podCidrsOf(node: Node): string[] {
  const list = node.spec?.podCIDRs;
  if (list && list.length) return [...list];
  return node.spec?.podCIDR ? [node.spec.podCIDR] : [];
}

/**
 * Sets (or, with `status` False, clears) the NetworkUnavailable condition this controller owns.
 * An update of the fresh status: a merge patch would replace the whole conditions list.
 */
async function writeNetworkCondition(client: ApiClient, name: string, status: 'True' | 'False', now: number): Promise<void> {
  const [reason, message] = status === 'True' ? [CIDR_NOT_AVAILABLE, NO_CIDRS_REMAINING] : ['RouteCreated', 'NodeController create implicit route'];
  for (let attempt = 1; ; attempt++) {
    const fresh = await client.get<Node>(resources.nodes, '', name);
    const current = fresh.status?.conditions?.find((c) => c.type === NETWORK_UNAVAILABLE);
    if (status === 'False' && current?.reason !== CIDR_NOT_AVAILABLE) return; // not ours to clear
    if (current?.status === status && current.reason === reason) return;
    const conditions = setCondition(fresh.status?.conditions, { type: NETWORK_UNAVAILABLE, status, reason, message }, now);
    try {
      await client.updateStatus(resources.nodes, '', { ...fresh, status: { ...fresh.status, conditions } });
      return;
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 409) || attempt >= CONDITION_RETRIES) throw e;
    }
  }
}

const oursSet = (node: Node) => node.status?.conditions?.some((c) => c.type === NETWORK_UNAVAILABLE && c.status === 'True' && c.reason === CIDR_NOT_AVAILABLE) ?? false;

export function nodeIpamController(o: NodeIpamOptions): ControllerDefinition<Node> {
  const allocator = new NodeCidrAllocator(o.clusterCidrs, o.nodeCidrMaskSizes, o.serviceCidrs ?? []);
  const fullRetryMs = o.fullRetryMs ?? 10_000;
  /** Nodes that found the range full, queued again when a node goes. */
  const waiting = new Set<string>();
  let started = false;

  const report = (ctx: ReconcileContext<Node>, node: Node, problems: string[]) => {
    for (const p of problems) {
      ctx.logger.error({ node: node.metadata.name }, p);
      void ctx.recorder.event(node, 'Warning', 'InvalidPodCIDR', p);
    }
  };

  return defineController<Node>({
    name: 'nodeipam',
    watches: resources.nodes,
    concurrency: o.concurrency ?? CIDR_UPDATE_WORKERS,
    triggers: [
      {
        resource: resources.nodes,
        keysFor: (obj, nodes) => (waiting.size && !nodes.get(objectKey(obj)) ? [...waiting] : []),
      },
    ],
    permissions: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['patch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['update'] },
    ],
    async reconcile(key, ctx) {
      if (!started) {
        // The cache has synced: mark every CIDR in use before handing any out.
        started = true;
        let nodes = 0;
        for (const n of ctx.cache.list()) {
          const cidrs = podCidrsOf(n);
          if (!cidrs.length) continue;
          report(ctx, n, allocator.occupy(n.metadata.name ?? '', n.metadata.uid ?? '', cidrs));
          nodes++;
        }
        ctx.logger.info({ clusterCIDRs: allocator.sets.map((s) => s.clusterCIDR), nodesWithCIDRs: nodes }, 'node CIDRs in use marked taken');
      }
      const node = ctx.object;
      if (!node) {
        waiting.delete(key);
        const freed = allocator.release(key);
        if (freed.length) ctx.logger.info({ node: key, podCIDRs: freed }, 'node gone: its CIDRs are free again');
        return done();
      }
      const uid = node.metadata.uid ?? '';
      const cidrs = podCidrsOf(node);
      if (allocator.holds(key, uid)) {
        // Ours already (a podCIDR not cached yet is our own write on its way).
        if (cidrs.length && oursSet(node)) await writeNetworkCondition(ctx.client, key, 'False', ctx.clock.now());
        return done();
      }
      allocator.release(key); // a former node of that name
      if (cidrs.length) {
        waiting.delete(key);
        report(ctx, node, allocator.occupy(key, uid, cidrs));
        if (oursSet(node)) await writeNetworkCondition(ctx.client, key, 'False', ctx.clock.now());
        return done();
      }
      const got = allocator.allocate(key, uid);
      if ('full' in got) {
        waiting.add(key);
        ctx.logger.warn({ node: key, clusterCIDR: got.full }, `failed to allocate cidr from cluster cidr ${got.full}: ${NO_CIDRS_REMAINING}`);
        void ctx.recorder.event(node, 'Normal', CIDR_NOT_AVAILABLE, `Node ${key} status is now: ${CIDR_NOT_AVAILABLE}`);
        if (!oursSet(node)) await writeNetworkCondition(ctx.client, key, 'True', ctx.clock.now());
        return requeueAfter(fullRetryMs);
      }
      waiting.delete(key);
      try {
        await ctx.client.patch(resources.nodes, '', key, 'merge', { spec: { podCIDR: got.cidrs[0], podCIDRs: got.cidrs } });
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) {
          allocator.release(key);
          return done();
        }
        // The write may have gone through (the answer lost or unreadable): the node says.
        const now = await ctx.client.get<Node>(resources.nodes, '', key).catch(() => undefined);
        if (now && now.metadata.uid === uid && podCidrsOf(now).join(',') === got.cidrs.join(',')) {
          ctx.logger.warn({ node: key, podCIDRs: got.cidrs, err: String(e) }, 'node CIDR write answered with an error but took effect');
          return done();
        }
        allocator.release(key);
        ctx.logger.error({ node: key, podCIDRs: got.cidrs, err: String(e) }, 'Failed to update node PodCIDR');
        void ctx.recorder.event(node, 'Normal', 'CIDRAssignmentFailed', `Node ${key} status is now: CIDRAssignmentFailed`);
        throw e;
      }
      ctx.logger.info({ node: key, podCIDRs: got.cidrs }, 'node CIDRs allocated');
      if (oursSet(node)) await writeNetworkCondition(ctx.client, key, 'False', ctx.clock.now());
      return done();
    },
  });
}
