/**
 * The route controller: a cloud route for each node's pod CIDR, so pods on different nodes reach
 * each other through the cloud's network. Runs only with --allocate-node-cidrs and
 * --configure-cloud-routes (both, as established).
 *
 * - Watches: Nodes (key: the node's name); each node is reconciled again every
 *   --route-reconciliation-period (default 10 s).
 * - A node with pod CIDRs: a route `<cluster-name>-<node UID>` to each CIDR it lacks is created;
 *   routes to it for CIDRs it no longer has are deleted; its `NetworkUnavailable` condition is set
 *   False (`RouteCreated`) once its routes exist, True (`NoRouteCreated`) when creating one failed.
 * - The cloud's routes are listed once a period (not once per node: every node's reconcile reads
 *   that list, which this controller's own creates and deletes keep current); with each fresh list,
 *   routes of the cluster inside --cluster-cidr whose node is gone (or that the cloud reports as
 *   blackholes) are deleted.
 * - Writes: nodes/status (the condition, by merge patch of the conditions list's entry).
 */
import type { Node } from '../../src/api/generated/kinds.js';
import { parseCidr, cidrsOverlap } from '../../src/api/net/ip-address.js';
import type { CloudProvider, Route, Routes } from '../../src/cloud/provider.js';
import { isNotFound } from '../../src/client/api-errors.js';
import { resources } from '../../src/client/typed.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

export interface RouteControllerOptions {
  cloud: CloudProvider;
  clusterName: string;
  /** --cluster-cidr (one or two): only routes inside them are the controller's to delete. */
  clusterCidrs: readonly string[];
  /** --route-reconciliation-period. */
  periodMs: number;
}

export function nodePodCidrs(node: Node): string[] {
  const list = node.spec?.podCIDRs?.length ? node.spec.podCIDRs : node.spec?.podCIDR ? [node.spec.podCIDR] : [];
  return [...list];
}

function networkCondition(node: Node, created: boolean, now: string): Record<string, unknown> | undefined {
  const want = created ? 'False' : 'True';
  const have = (node.status?.conditions ?? []).find((c) => c.type === 'NetworkUnavailable');
  if (have?.status === want) return undefined;
  return {
    type: 'NetworkUnavailable',
    status: want,
    reason: created ? 'RouteCreated' : 'NoRouteCreated',
    message: created ? 'RouteController created a route' : 'RouteController failed to create a route',
    lastTransitionTime: now,
    lastHeartbeatTime: now,
  };
}

export function routeController(o: RouteControllerOptions): ControllerDefinition<Node> | { off: string } {
  const routes: Routes | undefined = o.cloud.routes();
  if (!routes) return { off: `the cloud provider "${o.cloud.name}" has no routes` };
  const clusterCidrs = o.clusterCidrs.map((c) => parseCidr(c)!).filter(Boolean);
  const inCluster = (r: Route) => {
    const c = parseCidr(r.destinationCIDR);
    return c !== undefined && clusterCidrs.some((cc) => cidrsOverlap(cc, c));
  };
  /** The cloud's routes of the cluster as last listed, and when (ms). */
  let listed: { at: number; routes: Route[] } | undefined;
  const forget = (r: Route) => {
    if (listed) listed.routes = listed.routes.filter((x) => x.name !== r.name);
  };
  const deleteRoute = async (r: Route) => {
    await routes.deleteRoute(o.clusterName, r);
    forget(r);
  };
  return defineController<Node>({
    name: 'route',
    watches: resources.nodes,
    concurrency: 1,
    permissions: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch'] },
    ],
    async reconcile(name, ctx) {
      const node = ctx.object;
      const now = ctx.clock.now();
      if (!listed || now - listed.at >= o.periodMs) {
        listed = { at: now, routes: await routes.listRoutes(o.clusterName) };
        for (const r of [...listed.routes]) {
          if (!inCluster(r)) continue;
          const target = ctx.cache.get(r.targetNode);
          if (r.blackhole || !target || !nodePodCidrs(target).includes(r.destinationCIDR)) {
            await deleteRoute(r);
            ctx.logger.info({ route: r.name, target: r.targetNode, cidr: r.destinationCIDR }, 'deleted a route whose node is gone');
          }
        }
      }
      const all = listed.routes;
      if (!node) {
        for (const r of all.filter((x) => x.targetNode === name && inCluster(x))) await deleteRoute(r);
        return done();
      }
      const cidrs = nodePodCidrs(node);
      if (cidrs.length === 0) return requeueAfter(o.periodMs);
      const mine = all.filter((r) => r.targetNode === name);
      let created = true;
      for (const cidr of cidrs) {
        if (mine.some((r) => r.destinationCIDR === cidr && !r.blackhole)) continue;
        try {
          await routes.createRoute(o.clusterName, node.metadata.uid!, { targetNode: name, destinationCIDR: cidr });
          // The name the cloud gives it (established: cluster and hint), so the list stays current until the next one.
          const made = { name: `${o.clusterName}-${node.metadata.uid!}`, targetNode: name, destinationCIDR: cidr };
          forget(made);
          listed.routes.push(made);
          ctx.logger.info({ node: name, cidr }, 'created a route');
        } catch (e) {
          created = false;
          ctx.recorder.event(node, 'Warning', 'FailedToCreateRoute', `Could not create route ${node.metadata.uid} ${cidr} for node ${name}: ${(e as Error).message}`);
        }
      }
      for (const r of mine) if (!cidrs.includes(r.destinationCIDR) && inCluster(r)) await deleteRoute(r);
      const condition = networkCondition(node, created, new Date(now).toISOString());
      if (condition) {
        try {
          // A JSON patch of the one entry (the node agent writes the others): `test` makes a list
          // reordered meanwhile a conflict, retried, instead of overwriting another condition.
          const conditions = node.status?.conditions ?? [];
          const at = conditions.findIndex((c) => c.type === 'NetworkUnavailable');
          const ops = at >= 0
            ? [{ op: 'test', path: `/status/conditions/${at}/type`, value: 'NetworkUnavailable' }, { op: 'replace', path: `/status/conditions/${at}`, value: condition }]
            : conditions.length
              ? [{ op: 'add', path: '/status/conditions/-', value: condition }]
              : [{ op: 'add', path: '/status/conditions', value: [condition] }];
          await ctx.client.patch(resources.nodes, '', name, 'json', ops, { subresource: 'status' });
        } catch (e) {
          if (!isNotFound(e)) throw e;
        }
      }
      if (!created) throw new Error(`could not create every route of node ${name}`);
      return requeueAfter(o.periodMs);
    },
  });
}
