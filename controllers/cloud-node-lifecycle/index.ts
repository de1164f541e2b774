/**
 * The cloud-node-lifecycle controller: Nodes whose machine the cloud no longer has are deleted, and
 * Nodes whose machine is stopped are tainted `node.cloudprovider.svc.io/shutdown:NoSchedule`.
 *
 * - Watches: Nodes (key: the node's name); each node is looked at again every --node-monitor-period
 *   (default 5 s), as the established controller's monitor loop does.
 * - Only a node whose Ready condition is not True is asked about (a Ready node's agent is evidently
 *   running); a Ready node loses the shutdown taint if it has it.
 * - Not Ready: instance stopped → the shutdown taint is added; instance gone → the Node is deleted
 *   (Event `DeletingNode`, "Deleting node <name> because it does not exist in the cloud provider");
 *   a cloud error is retried with back-off.
 * - Writes: nodes (taints, by update with resourceVersion; delete).
 */
import type { Node } from '../../src/api/generated/kinds.js';
import type { Taint } from '../../src/api/kind-parts.js';
import { TAINT_NODE_SHUTDOWN } from '../../src/api/well-known-labels.js';
import type { CloudProvider } from '../../src/cloud/provider.js';
import { isNotFound } from '../../src/client/api-errors.js';
import { resources } from '../../src/client/typed.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

export interface CloudNodeLifecycleOptions {
  cloud: CloudProvider;
  /** --node-monitor-period. */
  monitorPeriodMs: number;
}

export const SHUTDOWN_TAINT: Taint = { key: TAINT_NODE_SHUTDOWN, effect: 'NoSchedule' };

function ready(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function hasShutdownTaint(node: Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === TAINT_NODE_SHUTDOWN);
}

function withShutdownTaint(node: Node, on: boolean): Node {
  const next = structuredClone(node) as Node;
  next.spec ??= {};
  const rest = (next.spec.taints ?? []).filter((t) => t.key !== TAINT_NODE_SHUTDOWN);
  const taints = on ? [...rest, { ...SHUTDOWN_TAINT, timeAdded: new Date().toISOString() }] : rest;
  if (taints.length) next.spec.taints = taints;
  else delete next.spec.taints;
  return next;
}

export function cloudNodeLifecycleController(o: CloudNodeLifecycleOptions): ControllerDefinition<Node> | { off: string } {
  const instances = o.cloud.instances();
  if (!instances) return { off: `the cloud provider "${o.cloud.name}" has no instances` };
  return defineController<Node>({
    name: 'cloud-node-lifecycle',
    watches: resources.nodes,
    concurrency: 1,
    permissions: [{ apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update', 'patch', 'delete'] }],
    async reconcile(name, ctx) {
      const node = ctx.object;
      if (!node) return done();
      try {
        if (ready(node)) {
          if (hasShutdownTaint(node)) await ctx.client.update(resources.nodes, '', withShutdownTaint(node, false));
          return requeueAfter(o.monitorPeriodMs);
        }
        const providerID = node.spec?.providerID;
        // No provider ID yet: cloud-node has not initialised it; nothing to ask the cloud about.
        if (!providerID) return requeueAfter(o.monitorPeriodMs);
        if (await instances.instanceShutdownByProviderID(providerID)) {
          if (!hasShutdownTaint(node)) {
            await ctx.client.update(resources.nodes, '', withShutdownTaint(node, true));
            ctx.logger.info({ node: name }, 'the instance of a not-ready node is shut down: tainted');
          }
          return requeueAfter(o.monitorPeriodMs);
        }
        if (!(await instances.instanceExistsByProviderID(providerID))) {
          ctx.recorder.event(node, 'Normal', 'DeletingNode', `Deleting node ${name} because it does not exist in the cloud provider`);
          await ctx.client.delete(resources.nodes, '', name, { preconditions: { uid: node.metadata.uid! } });
          ctx.logger.info({ node: name, providerID }, 'deleted a node whose instance the cloud no longer has');
          return done();
        }
      } catch (e) {
        if (isNotFound(e)) return done();
        throw e;
      }
      return requeueAfter(o.monitorPeriodMs);
    },
  });
}
