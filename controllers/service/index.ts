/**
 * The service controller: a cloud load balancer for every Service of `type: LoadBalancer`.
 *
 * - Watches: Services (key `namespace/name`); Nodes trigger every load-balanced Service when the
 *   set of eligible nodes changes (a node joins, leaves, turns Ready or not Ready, or is labelled
 *   out), and the established node sync re-checks every Service each NODE_SYNC_PERIOD_MS.
 * - Writes: the finalizer `service.svc.io/load-balancer-cleanup` before the load balancer is made
 *   (so a deleted Service keeps existing until its load balancer is gone), `status.loadBalancer`
 *   (the ingress IPs the cloud answered), and both undone once the Service no longer wants one.
 * - Calls the cloud: ensureLoadBalancer (create or bring up to date; idempotent, so a new leader
 *   re-ensuring everything creates nothing twice), updateLoadBalancer (the node set changed, the
 *   Service did not), ensureLoadBalancerDeleted.
 * - Events (established reasons): EnsuringLoadBalancer, EnsuredLoadBalancer, UpdatedLoadBalancer,
 *   DeletingLoadBalancer, DeletedLoadBalancer; Warning SyncLoadBalancerFailed,
 *   UpdateLoadBalancerFailed. A failed cloud call is retried with the queue's back-off.
 * - Eligible nodes (established): Ready=True, not labelled `node.svc.io/exclude-from-external-load-balancers`
 *   nor `node-role.svc.io/master`.
 * - Workers: --concurrent-service-syncs (default 1).
 */
import type { Node, Service } from '../../src/api/generated/kinds.js';
import { FINALIZER_LOAD_BALANCER_CLEANUP, LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS, LABEL_NODE_ROLE_MASTER } from '../../src/api/well-known-labels.js';
import type { CloudProvider, LoadBalancer, LoadBalancerStatus } from '../../src/cloud/provider.js';
import { isNotFound } from '../../src/client/api-errors.js';
import { addFinalizer, removeFinalizer } from '../../src/runtime/finalizers.js';
import { resources } from '../../src/client/typed.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';

/** How often every load-balanced Service's node set is checked even without a node event (established 100 s). */
export const NODE_SYNC_PERIOD_MS = 100_000;

export interface ServiceControllerOptions {
  cloud: CloudProvider;
  /** --cluster-name: the cloud's load balancers are named within it. */
  clusterName: string;
  /** --concurrent-service-syncs. */
  concurrency: number;
}

/** Whether a node should receive a load balancer's traffic. */
export function nodeEligibleForLoadBalancing(node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  if (LABEL_NODE_ROLE_MASTER in labels || LABEL_EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS in labels) return false;
  const conditions = node.status?.conditions ?? [];
  if (conditions.length === 0) return false;
  return conditions.every((c) => c.type !== 'Ready' || c.status === 'True');
}

export function wantsLoadBalancer(svc: Service): boolean {
  return svc.spec?.type === 'LoadBalancer' && !svc.metadata.deletionTimestamp;
}

/** What of a Service its load balancer is made from: a change re-ensures it, otherwise only the node set is updated. */
function loadBalancerSpecOf(svc: Service): string {
  const s = svc.spec ?? {};
  return JSON.stringify([svc.metadata.uid, s.ports, s.loadBalancerIP, s.loadBalancerSourceRanges, s.externalTrafficPolicy, s.healthCheckNodePort, s.sessionAffinity]);
}

function sameStatus(a: LoadBalancerStatus, b: Service['status']): boolean {
  const have = (b?.loadBalancer?.ingress ?? []).map((i) => `${i.ip ?? ''}|${i.hostname ?? ''}`).join(',');
  return a.ingress.map((i) => `${i.ip ?? ''}|${i.hostname ?? ''}`).join(',') === have;
}

export function serviceController(o: ServiceControllerOptions): ControllerDefinition<Service> | { off: string } {
  const lb: LoadBalancer | undefined = o.cloud.loadBalancer();
  if (!lb) return { off: `the cloud provider "${o.cloud.name}" has no load balancers` };
  /**
   * Per Service key: the spec and node set its load balancer was last made for (this leader's
   * memory; a new one re-ensures), and `before`: the version of the Service that sync read and then
   * wrote over (its own finalizer write, seen again while the status write's event is on its way).
   */
  const made = new Map<string, { spec: string; hosts: string; before?: string }>();
  /** Per node: whether it was eligible when last seen (to trigger only on changes of the set). */
  const eligible = new Map<string, boolean>();
  let nodesCache: IndexedCache<Node> | undefined;

  const eligibleNodes = (): Node[] =>
    (nodesCache?.list() ?? []).filter(nodeEligibleForLoadBalancing).sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));

  const inner = defineController<Service>({
    name: 'service',
    watches: resources.services,
    concurrency: o.concurrency,
    permissions: [
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
      { apiGroups: [''], resources: ['services/status'], verbs: ['patch', 'update'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    ],
    triggers: [
      {
        resource: resources.nodes,
        keysFor(obj, watched) {
          const node = obj as Node;
          const name = node.metadata.name!;
          const now = nodesCache?.get(name) !== undefined && nodeEligibleForLoadBalancing(node);
          if (eligible.get(name) === now) return [];
          if (now) eligible.set(name, true);
          else eligible.delete(name);
          return watched.list().filter((s) => s.spec?.type === 'LoadBalancer' || (s.metadata.finalizers ?? []).includes(FINALIZER_LOAD_BALANCER_CLEANUP)).map((s) => `${s.metadata.namespace}/${s.metadata.name}`);
        },
      },
    ],
    async reconcile(key, ctx) {
      let svc = ctx.object;
      if (!svc) {
        made.delete(key);
        return done();
      }
      const ns = svc.metadata.namespace!;
      const name = svc.metadata.name!;
      const hasFinalizer = (svc.metadata.finalizers ?? []).includes(FINALIZER_LOAD_BALANCER_CLEANUP);
      try {
        if (!wantsLoadBalancer(svc)) {
          if (!hasFinalizer && (svc.status?.loadBalancer?.ingress ?? []).length === 0) return done();
          ctx.recorder.event(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
          try {
            await lb.ensureLoadBalancerDeleted(o.clusterName, svc);
          } catch (e) {
            ctx.recorder.event(svc, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to delete load balancer: ${(e as Error).message}`);
            throw e;
          }
          made.delete(key);
          if ((svc.status?.loadBalancer?.ingress ?? []).length > 0) {
            await ctx.client.patch(resources.services, ns, name, 'merge', { status: { loadBalancer: { ingress: null } } }, { subresource: 'status' });
          }
          if (hasFinalizer) await removeFinalizer(ctx.client, resources.services, svc, FINALIZER_LOAD_BALANCER_CLEANUP);
          ctx.recorder.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
          return done();
        }
        const nodes = eligibleNodes();
        const hosts = nodes.map((n) => n.metadata.name).join(',');
        const spec = loadBalancerSpecOf(svc);
        const last = made.get(key);
        // This worker's own finalizer write seen before its status write (the cache lags the
        // writes of the sync that just ran): nothing changed, the status write's event comes next.
        if (last && last.spec === spec && last.hosts === hosts && svc.metadata.resourceVersion === last.before) return requeueAfter(NODE_SYNC_PERIOD_MS);
        if (last && last.spec === spec && (svc.status?.loadBalancer?.ingress ?? []).length > 0) {
          if (last.hosts === hosts) return requeueAfter(NODE_SYNC_PERIOD_MS);
          try {
            await lb.updateLoadBalancer(o.clusterName, svc, nodes);
          } catch (e) {
            ctx.recorder.event(svc, 'Warning', 'UpdateLoadBalancerFailed', `Error updating load balancer with new hosts ${hosts || '(none)'}: ${(e as Error).message}`);
            throw e;
          }
          made.set(key, { spec, hosts });
          ctx.recorder.event(svc, 'Normal', 'UpdatedLoadBalancer', 'Updated load balancer with new hosts');
          return requeueAfter(NODE_SYNC_PERIOD_MS);
        }
        // The finalizer first (a deleted Service then waits for its load balancer to go), in the
        // same sync as the load balancer, as established: no second pass through the queue.
        if (!hasFinalizer) svc = await addFinalizer(ctx.client, resources.services, svc, FINALIZER_LOAD_BALANCER_CLEANUP);
        ctx.recorder.event(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
        let status: LoadBalancerStatus;
        try {
          status = await lb.ensureLoadBalancer(o.clusterName, svc, nodes);
        } catch (e) {
          ctx.recorder.event(svc, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${(e as Error).message}`);
          throw e;
        }
        let written = svc;
        if (!sameStatus(status, svc.status)) {
          written = await ctx.client.patch<Service>(resources.services, ns, name, 'merge', { status: { loadBalancer: { ingress: status.ingress } } }, { subresource: 'status' });
        }
        made.set(key, { spec, hosts, ...(written !== svc && svc.metadata.resourceVersion ? { before: svc.metadata.resourceVersion } : {}) });
        ctx.recorder.event(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
        return requeueAfter(NODE_SYNC_PERIOD_MS);
      } catch (e) {
        if (isNotFound(e)) return done(); // the Service went away meanwhile
        throw e;
      }
    },
  });
  return {
    ...inner,
    start(host) {
      made.clear();
      eligible.clear();
      nodesCache = host.informers.informer<Node>(resources.nodes).cache;
      return inner.start(host);
    },
  };
}
