/**
 * --authorization-mode=Node: what a node agent (`system:node:<name>` in `system:nodes`) may do,
 * as the established Node authorizer decides it. Any other user: no opinion (the next mode
 * decides). A node:
 *
 * - reads (get, list, watch; a named object only) the secrets and configmaps, and gets the
 *   persistentvolumeclaims, persistentvolumes and resourceclaims, that pods bound to it reference,
 *   and updates or patches the status of those claims;
 * - creates tokens (`serviceaccounts/<name>/token`) for the service accounts of its pods;
 * - reads its own Node by name (`node 'n1' cannot read 'n2' Node object` otherwise); creates,
 *   updates and patches nodes (NodeRestriction keeps it to its own);
 * - gets, creates, updates, patches and deletes its own Lease in svc-node-lease (create: any name,
 *   NodeRestriction checks it), and its own CSINode;
 * - gets the pods bound to it, and lists and watches pods only with the field selector
 *   `spec.nodeName=<node>` (the established AuthorizeNodeWithSelectors rules);
 * - does what the static node rules (./node-rules.ts) allow for everything else (pod writes,
 *   events, services, ...); beyond them: no opinion, so a later mode (RBAC) may still allow.
 *
 * A refusal is never a deny: it is "no opinion" with the established reason, e.g. "no relationship
 * found between node 'n1' and this object", so RBAC can still grant what an administrator bound.
 *
 * The graph (./node-graph.ts) is kept from the pods' and persistent volumes' watch caches
 * (../store-follower.ts); the mode is ready once both were listed. A list or watch with a
 * `metadata.name=<x>` field selector is authorized for that name (the pipeline puts it in the
 * attributes), so a node may watch the one Secret or its own Node.
 */
import type { Logger } from 'pino';
import type { ResourceRegistry } from '../../api/index.js';
import { StoreFollower } from '../store-follower.js';
import type { ResourceStore } from '../resource-store.js';
import type { ResourceDefinition } from '../../api/types.js';
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../../api/node-identity.js';
import { type AccessAttributes, type AccessDecision, type AccessRules, type Authorizer, NO_OPINION } from './authorization.js';
import { type GraphObjectType, NodeGraph } from './node-graph.js';
import { NODE_RULES, nodeRulesAllow } from './node-rules.js';
import type { UserInfo } from './user.js';

const ALLOW: AccessDecision = Object.freeze({ allowed: true, reason: '' });
const noOpinion = (reason: string): AccessDecision => ({ allowed: false, reason });

export interface NodeAuthorizerOptions {
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  logger: Logger;
}

export class NodeAuthorizer implements Authorizer {
  readonly mode = 'Node';
  readonly graph = new NodeGraph();
  private readonly followers: StoreFollower[] = [];
  private readonly logger: Logger;

  constructor(private readonly opts: NodeAuthorizerOptions) {
    this.logger = opts.logger;
  }

  /** Lists pods and persistent volumes into the graph and follows them (resolves once listed). */
  async start(): Promise<void> {
    const { registry, storeFor } = this.opts;
    const g = this.graph;
    const pods = registry.lookup('', 'v1', 'pods');
    if (pods) {
      this.followers.push(new StoreFollower(storeFor(pods), { reset: (all) => g.resetPods(all), upsert: (p) => g.upsertPod(p), remove: (p) => g.removePod(p) }, this.logger));
    }
    const pvs = registry.lookup('', 'v1', 'persistentvolumes');
    if (pvs) {
      this.followers.push(new StoreFollower(storeFor(pvs), { reset: (all) => g.resetVolumes(all), upsert: (v) => g.upsertVolume(v), remove: (v) => g.removeVolume(v) }, this.logger));
    }
    await Promise.all(this.followers.map((f) => f.start()));
  }

  close(): void {
    for (const f of this.followers) f.stop();
  }

  authorize(user: UserInfo, attrs: AccessAttributes): AccessDecision {
    const { isNode, name: node } = nodeIdentity(user);
    if (!isNode) return NO_OPINION;
    if (!node) return noOpinion(`unknown node for user "${user.username}"`);
    if (attrs.kind === 'resource') {
      const { group, resource } = attrs;
      if (group === '') {
        switch (resource) {
          case 'secrets':
            return this.readNamespaced(node, 'secret', attrs);
          case 'configmaps':
            return this.readNamespaced(node, 'configmap', attrs);
          case 'persistentvolumeclaims':
            return attrs.subresource === 'status' ? this.statusUpdate(node, 'persistentvolumeclaim', attrs) : this.get(node, 'persistentvolumeclaim', attrs);
          case 'persistentvolumes':
            return this.get(node, 'persistentvolume', attrs);
          case 'serviceaccounts':
            return this.createToken(node, attrs);
          case 'nodes':
            return this.nodeObject(node, attrs);
          case 'pods':
            return this.pod(node, attrs);
        }
      } else if (group === 'coordination.svc.io' && resource === 'leases') {
        return this.lease(node, attrs);
      } else if (group === 'storage.svc.io' && resource === 'csinodes') {
        return this.csiNode(node, attrs);
      } else if (group === 'resource.svc.io' && resource === 'resourceclaims') {
        return this.get(node, 'resourceclaim', attrs);
      }
    }
    return this.staticRules(attrs);
  }

  /** As established: a node's rules are not listed (they depend on each object), and the list says so. */
  rulesFor(user: UserInfo): AccessRules {
    if (!nodeIdentity(user).isNode) return { resourceRules: [], nonResourceRules: [], incomplete: false };
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' };
  }

  private staticRules(attrs: AccessAttributes): AccessDecision {
    if (attrs.kind === 'resource' && nodeRulesAllow(NODE_RULES, attrs.verb, attrs.group, attrs.resource, attrs.subresource)) return ALLOW;
    return NO_OPINION;
  }

  private readNamespaced(node: string, type: GraphObjectType, a: ResourceAttributes): AccessDecision {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return noOpinion('can only read resources of this type');
    if (a.subresource) return noOpinion('cannot read subresource');
    if (!a.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, a);
  }

  private get(node: string, type: GraphObjectType, a: ResourceAttributes): AccessDecision {
    if (a.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (a.subresource) return noOpinion('cannot get subresource');
    return this.related(node, type, a);
  }

  private statusUpdate(node: string, type: GraphObjectType, a: ResourceAttributes): AccessDecision {
    if (a.verb !== 'update' && a.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, type, a);
  }

  private createToken(node: string, a: ResourceAttributes): AccessDecision {
    if (a.verb !== 'create' || !a.name) return noOpinion('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.related(node, 'serviceaccount', a);
  }

  private related(node: string, type: GraphObjectType, a: ResourceAttributes): AccessDecision {
    if (!a.name) return noOpinion('No Object name found');
    if (this.graph.hasPath(node, type, a.namespace, a.name)) return ALLOW;
    // The established log line says why; the answer carries the short reason.
    const target = `${type} ${a.namespace}/${a.name}`;
    const why = this.graph.knowsNode(node) ? `node '${node}' cannot get ${target}, no relationship to this object was found in the node authorizer graph` : `unknown node '${node}' cannot get ${target}`;
    this.logger.debug({ node, verb: a.verb }, `NODE DENY: ${why}`);
    return noOpinion(`no relationship found between node '${node}' and this object`);
  }

  /** Its own Node by name for reads (as the established authorizer with field-selector support); writes by the static rules. */
  private nodeObject(node: string, a: ResourceAttributes): AccessDecision {
    if (a.verb === 'get' || a.verb === 'list' || a.verb === 'watch') {
      if (a.name === node) return ALLOW;
      if (!a.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
      return noOpinion(`node '${node}' cannot read '${a.name}' Node object`);
    }
    return this.staticRules(a);
  }

  /** Get: a pod bound to it; list and watch: only with `spec.nodeName=<node>`; writes: the static rules. */
  private pod(node: string, a: ResourceAttributes): AccessDecision {
    if (a.verb === 'get') return this.get(node, 'pod', a);
    if (a.verb === 'list' || a.verb === 'watch') {
      const scoped = (a.fieldSelector ?? []).some((r) => r.field === 'spec.nodeName' && r.operator !== '!=' && r.value === node);
      return scoped ? ALLOW : noOpinion('can only list/watch pods with spec.nodeName field selector');
    }
    return this.staticRules(a);
  }

  private lease(node: string, a: ResourceAttributes): AccessDecision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
    // A create names no object in its path; NodeRestriction checks the name in the body.
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  private csiNode(node: string, a: ResourceAttributes): AccessDecision {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return noOpinion('can only get, create, update, patch, or delete a CSINode');
    if (a.subresource) return noOpinion('cannot authorize CSINode subresources');
    if (a.verb !== 'create' && a.name !== node) return noOpinion('can only access CSINode with the same name as the requesting node');
    return ALLOW;
  }
}

type ResourceAttributes = Extract<AccessAttributes, { kind: 'resource' }>;

/** The mode's factory (./authorization-modes.ts): ready once the graph holds the stored pods. */
export async function createNodeAuthorizer(opts: NodeAuthorizerOptions): Promise<NodeAuthorizer> {
  const a = new NodeAuthorizer(opts);
  try {
    await a.start();
  } catch (err) {
    a.close();
    throw err;
  }
  return a;
}
