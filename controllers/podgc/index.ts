/**
 * The podgc controller: removes pods nothing else will.
 *
 * - Watches: Nodes (a node's key: its name). Triggers: Pods (a pod on a node not in the cache
 *   queues that node's name; a finished pod queues `:terminated`; an unscheduled pod being deleted
 *   queues `:unscheduled`). Keys starting with `:` cannot be node names.
 * - Writes: pod deletes with grace period 0 and a uid precondition:
 *   - pods bound to a node that does not exist (checked with a GET first, so a cache that is behind
 *     never deletes a pod of a live node);
 *   - finished pods (Succeeded or Failed) beyond `--terminated-pod-gc-threshold`, oldest first
 *     (0 or less: none);
 *   - pods being deleted that were never scheduled (no node agent will ever finish them).
 * - Timers: `:terminated` is looked at again every 20 s while over the threshold.
 */
import type { Node, Pod } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

export const TERMINATED_KEY = ':terminated';
export const UNSCHEDULED_KEY = ':unscheduled';
const NODE_INDEX = 'podgc.nodeName';

export interface PodGcOptions {
  terminatedPodGcThreshold: number;
  periodMs: number;
}

const finished = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

async function forceDelete(client: ApiClient, p: Pod): Promise<boolean> {
  try {
    await client.delete(resources.pods, p.metadata.namespace ?? '', p.metadata.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid ?? '' } });
    return true;
  } catch (e) {
    if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return false;
    throw e;
  }
}

export function podGcController(o: PodGcOptions): ControllerDefinition<Node> {
  let indexed = false;
  return defineController<Node>({
    name: 'podgc',
    watches: resources.nodes,
    triggers: [
      {
        resource: resources.pods,
        keysFor: (obj, nodes) => {
          const p = obj as Pod;
          const keys: string[] = [];
          const node = p.spec?.nodeName;
          if (node && !nodes.get(node)) keys.push(node);
          if (finished(p) && o.terminatedPodGcThreshold > 0) keys.push(TERMINATED_KEY);
          if (!node && p.metadata.deletionTimestamp) keys.push(UNSCHEDULED_KEY);
          return keys;
        },
      },
    ],
    async reconcile(key, ctx) {
      const pods = ctx.cacheOf<Pod>(resources.pods);
      if (!indexed) {
        pods.addIndex(NODE_INDEX, (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
        indexed = true;
      }
      if (key === UNSCHEDULED_KEY) {
        for (const p of pods.list()) if (!p.spec?.nodeName && p.metadata.deletionTimestamp && (await forceDelete(ctx.client, p))) ctx.logger.info({ pod: `${p.metadata.namespace}/${p.metadata.name}` }, 'deleted an unscheduled terminating pod');
        return done();
      }
      if (key === TERMINATED_KEY) {
        if (o.terminatedPodGcThreshold <= 0) return done();
        const ended = pods.list().filter((p) => finished(p) && !p.metadata.deletionTimestamp);
        const excess = ended.length - o.terminatedPodGcThreshold;
        if (excess <= 0) return done();
        ended.sort((a, b) => ((a.metadata.creationTimestamp ?? '') < (b.metadata.creationTimestamp ?? '') ? -1 : 1));
        let deleted = 0;
        for (const p of ended.slice(0, excess)) if (await forceDelete(ctx.client, p)) deleted++;
        ctx.logger.info({ deleted, threshold: o.terminatedPodGcThreshold }, 'deleted finished pods over the threshold');
        return requeueAfter(o.periodMs);
      }
      // A node's key: its pods go only if the node is really gone.
      if (ctx.object) return done();
      try {
        await ctx.client.get(resources.nodes, '', key);
        return done();
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
      for (const p of pods.byIndex(NODE_INDEX, key)) {
        if (await forceDelete(ctx.client, p)) ctx.logger.info({ pod: `${p.metadata.namespace}/${p.metadata.name}`, node: key }, 'deleted a pod of a node that is gone');
      }
      return done();
    },
  });
}
