/**
 * The cloud-node controller (cloud controller manager only): initialises the Nodes a node agent
 * registered with `--cloud-provider=external`, which carry the taint
 * `node.cloudprovider.svc.io/uninitialized:NoSchedule` until the cloud has described them.
 *
 * - Watches: Nodes (key: the node's name).
 * - A tainted node: asks the cloud for its instance (by spec.providerID when set, else by name),
 *   then in one update (resourceVersion-checked) sets spec.providerID, the zone/region/instance-type
 *   labels (GA and beta spellings, as established) and removes the taint; then patches
 *   status.addresses with the cloud's. An instance the cloud does not know is retried with back-off
 *   (Warning event); the node stays tainted, so nothing is scheduled on it meanwhile.
 * - Every node: its addresses are brought up to the cloud's every --node-status-update-frequency
 *   (default 5 m), as established.
 * - Events: where the established controller only logs a node it cannot initialise, this one also
 *   records a Warning `NodeInitializationFailed` on the node, so `kubectl describe node` says why.
 */
import type { Node } from '../../src/api/generated/kinds.js';
import {
  LABEL_BETA_INSTANCE_TYPE,
  LABEL_BETA_REGION,
  LABEL_BETA_ZONE,
  LABEL_INSTANCE_TYPE,
  LABEL_REGION,
  LABEL_ZONE,
  TAINT_EXTERNAL_CLOUD_PROVIDER,
} from '../../src/api/well-known-labels.js';
import type { CloudProvider, InstanceMetadata, Instances } from '../../src/cloud/provider.js';
import { isNotFound } from '../../src/client/api-errors.js';
import { resources } from '../../src/client/typed.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

export interface CloudNodeControllerOptions {
  cloud: CloudProvider;
  /** --node-status-update-frequency: how often every node's addresses are refreshed. */
  statusUpdateFrequencyMs: number;
}

export function isUninitialized(node: Node): boolean {
  return (node.spec?.taints ?? []).some((t) => t.key === TAINT_EXTERNAL_CLOUD_PROVIDER);
}

/** The node as the cloud describes it: provider ID, labels, no uninitialized taint (a copy). */
export function initializedNode(node: Node, meta: InstanceMetadata): Node {
  const next = structuredClone(node) as Node;
  next.spec ??= {};
  if (!next.spec.providerID) next.spec.providerID = meta.providerID;
  next.metadata.labels = {
    ...(next.metadata.labels ?? {}),
    [LABEL_INSTANCE_TYPE]: meta.instanceType,
    [LABEL_BETA_INSTANCE_TYPE]: meta.instanceType,
    [LABEL_ZONE]: meta.zone.failureDomain,
    [LABEL_BETA_ZONE]: meta.zone.failureDomain,
    [LABEL_REGION]: meta.zone.region,
    [LABEL_BETA_REGION]: meta.zone.region,
  };
  const taints = (next.spec.taints ?? []).filter((t) => t.key !== TAINT_EXTERNAL_CLOUD_PROVIDER);
  if (taints.length) next.spec.taints = taints;
  else delete next.spec.taints;
  return next;
}

function sameAddresses(node: Node, meta: InstanceMetadata): boolean {
  const have = (node.status?.addresses ?? []).map((a) => `${a.type}=${a.address}`).sort().join(',');
  return have === meta.addresses.map((a) => `${a.type}=${a.address}`).sort().join(',');
}

async function describe(instances: Instances, node: Node): Promise<InstanceMetadata | undefined> {
  const id = node.spec?.providerID;
  return id ? instances.instanceMetadataByProviderID(id) : instances.instanceMetadataByName(node.metadata.name!);
}

export function cloudNodeController(o: CloudNodeControllerOptions): ControllerDefinition<Node> | { off: string } {
  const instances = o.cloud.instances();
  if (!instances) return { off: `the cloud provider "${o.cloud.name}" has no instances` };
  return defineController<Node>({
    name: 'cloud-node',
    watches: resources.nodes,
    concurrency: 1,
    permissions: [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
      { apiGroups: [''], resources: ['nodes/status'], verbs: ['patch', 'update'] },
    ],
    async reconcile(name, ctx) {
      const node = ctx.object;
      if (!node) return done();
      let meta: InstanceMetadata | undefined;
      try {
        meta = await describe(instances, node);
      } catch (e) {
        if (isUninitialized(node)) ctx.recorder.event(node, 'Warning', 'NodeInitializationFailed', `failed to get the instance of node ${name} from the cloud provider: ${(e as Error).message}`);
        throw e;
      }
      if (!meta) {
        if (!isUninitialized(node)) return requeueAfter(o.statusUpdateFrequencyMs);
        ctx.recorder.event(node, 'Warning', 'NodeInitializationFailed', `the cloud provider has no instance for node ${name}`);
        throw new Error(`the cloud provider has no instance for node ${name}`);
      }
      try {
        if (isUninitialized(node)) {
          await ctx.client.update(resources.nodes, '', initializedNode(node, meta));
          ctx.logger.info({ node: name, providerID: meta.providerID, zone: meta.zone.failureDomain }, 'initialized node from the cloud provider');
        }
        if (!sameAddresses(node, meta)) {
          await ctx.client.patch(resources.nodes, '', name, 'merge', { status: { addresses: meta.addresses } }, { subresource: 'status' });
        }
      } catch (e) {
        if (isNotFound(e)) return done();
        throw e;
      }
      return requeueAfter(o.statusUpdateFrequencyMs);
    },
  });
}
