/**
 * The ttl controller: the `node.alpha.svc.io/ttl` annotation on every Node, the seconds its node
 * agent may cache the objects its pods use, by cluster size (the established boundaries):
 *
 *   nodes        0..100  90..500  450..1000  900..2000  1800..10000  9000..
 *   ttl (s)      0       15       30         60         300          600
 *
 * The ranges overlap so a cluster near a boundary does not flip back and forth: the step goes up
 * only when the node count exceeds its range's top and down only when it falls below its bottom.
 *
 * - Watches: Nodes (key: the node's name).
 * - Writes: a merge patch of the node's annotation when it differs from the current step's ttl.
 * - As established, a change of step reaches each node at its next update (node agents update
 *   their Node periodically), not in one sweep.
 */
import type { Node } from '../../src/api/generated/kinds.js';
import { ANNOTATION_NODE_TTL } from '../../src/api/well-known-labels.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

export interface TtlBoundary {
  sizeMin: number;
  sizeMax: number;
  ttlSeconds: number;
}

export const TTL_BOUNDARIES: readonly TtlBoundary[] = Object.freeze([
  { sizeMin: 0, sizeMax: 100, ttlSeconds: 0 },
  { sizeMin: 90, sizeMax: 500, ttlSeconds: 15 },
  { sizeMin: 450, sizeMax: 1000, ttlSeconds: 30 },
  { sizeMin: 900, sizeMax: 2000, ttlSeconds: 60 },
  { sizeMin: 1800, sizeMax: 10000, ttlSeconds: 300 },
  { sizeMin: 9000, sizeMax: Number.MAX_SAFE_INTEGER, ttlSeconds: 600 },
]);

/** The boundary step for `nodeCount` nodes, moving from `step` with the ranges' hysteresis. */
export function ttlStep(step: number, nodeCount: number): number {
  let s = Math.min(Math.max(step, 0), TTL_BOUNDARIES.length - 1);
  while (s < TTL_BOUNDARIES.length - 1 && nodeCount > TTL_BOUNDARIES[s]!.sizeMax) s++;
  while (s > 0 && nodeCount < TTL_BOUNDARIES[s]!.sizeMin) s--;
  return s;
}

/** The ttl annotation's value (undefined: absent or not an integer). */
export function nodeTtl(node: Node): number | undefined {
  const raw = node.metadata.annotations?.[ANNOTATION_NODE_TTL];
  if (raw === undefined || !/^-?\d+$/.test(raw)) return undefined;
  return Number(raw);
}

/** The established controller runs 5 workers (no flag). */
const TTL_WORKERS = 5;

export function ttlController(): ControllerDefinition<Node> {
  let step = 0;
  const inner = defineController<Node>({
    name: 'ttl',
    watches: resources.nodes,
    concurrency: TTL_WORKERS,
    permissions: [{ apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch', 'update', 'patch'] }],
    async reconcile(name, ctx) {
      step = ttlStep(step, ctx.cache.list().length);
      const node = ctx.object;
      if (!node) return done();
      const want = TTL_BOUNDARIES[step]!.ttlSeconds;
      if (nodeTtl(node) === want) return done();
      try {
        await ctx.client.patch(resources.nodes, '', name, 'merge', { metadata: { annotations: { [ANNOTATION_NODE_TTL]: String(want) } } });
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) return done();
        throw e;
      }
      return done();
    },
  });
  return {
    ...inner,
    start(host) {
      step = 0;
      return inner.start(host);
    },
  };
}
