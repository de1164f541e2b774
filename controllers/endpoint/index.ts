/**
 * The endpoint controller: a Service with a selector gets an Endpoints object of the same name
 * listing its pods' addresses.
 *
 * - Watches: Services. Triggers: pods (the Services whose selector matches them now, and those
 *   that listed them at their last sync, so a pod that stops matching leaves), Endpoints (its
 *   Service, so a changed or deleted Endpoints is put right).
 * - Writes: Endpoints `subsets`: ready pods under `addresses`, the others under
 *   `notReadyAddresses`, grouped by their resolved port lists; labels copied from the Service;
 *   deletes the Endpoints of a deleted Service. Services without a selector are left alone.
 * - `--endpoint-updates-batch-period`: a Service synced within the period waits for its end, so a
 *   burst of pod changes is one write.
 */
import type { Endpoints, Pod, Service } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { LEADER_ANNOTATION } from '../../src/runtime/leader-election/record.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { portsKey, selectedPods, serviceEndpoints, ServiceMembership } from '../internal/service-endpoints.js';

export interface EndpointControllerOptions {
  concurrency: number;
  batchPeriodMs: number;
}

type Subsets = NonNullable<Endpoints['subsets']>;

export function endpointsFor(service: Service, pods: readonly Pod[]): Subsets {
  const groups = new Map<string, Subsets[number]>();
  for (const e of serviceEndpoints(service, pods)) {
    const key = portsKey(e.ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports: e.ports.map((p) => ({ ...p })) }));
    const address = { ip: e.ip, ...(e.nodeName ? { nodeName: e.nodeName } : {}), targetRef: e.targetRef };
    (e.ready ? (g.addresses ??= []) : (g.notReadyAddresses ??= [])).push(address);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, g]) => g);
}

export function endpointController(o: EndpointControllerOptions): ControllerDefinition<Service> {
  const membership = new ServiceMembership();
  const lastSync = new Map<string, number>();
  return defineController<Service>({
    name: 'endpoint',
    watches: resources.services,
    concurrency: o.concurrency,
    triggers: [
      membership.podTrigger(),
      { resource: resources.endpoints, keysFor: (ep) => [`${ep.metadata.namespace}/${ep.metadata.name}`] },
    ],
    async reconcile(key, ctx) {
      const ns = ctx.namespace ?? '';
      const service = ctx.object;
      const existing = ctx.cacheOf<Endpoints>(resources.endpoints).get(key);
      if (!service) {
        lastSync.delete(key);
        // Endpoints without a Service go, except leader-election locks (which never have one), as established.
        if (existing && existing.metadata.annotations?.[LEADER_ANNOTATION] === undefined) {
          await ctx.client.delete(resources.endpoints, ns, ctx.name, { preconditions: { uid: existing.metadata.uid ?? '' } }).catch(ignoreGone);
        }
        return done();
      }
      if (!service.spec?.selector || Object.keys(service.spec.selector).length === 0) return done();
      const now = ctx.clock.now();
      const since = now - (lastSync.get(key) ?? -Infinity);
      if (o.batchPeriodMs > 0 && since < o.batchPeriodMs) return requeueAfter(o.batchPeriodMs - since);
      lastSync.set(key, now);

      const pods = ctx.cacheOf<Pod>(resources.pods).byIndex('namespace', ns);
      membership.set(key, new Set(selectedPods(service, pods).map((p) => `${ns}/${p.metadata.name}`)));
      const subsets = endpointsFor(service, pods);
      const labels = { ...(service.metadata.labels ?? {}) };
      if (existing && JSON.stringify(existing.subsets ?? []) === JSON.stringify(subsets) && JSON.stringify(existing.metadata.labels ?? {}) === JSON.stringify(labels)) return done();
      const obj: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: ctx.name, namespace: ns, labels, ...(existing ? { resourceVersion: existing.metadata.resourceVersion } : {}) }, subsets };
      try {
        if (existing) await ctx.client.update(resources.endpoints, ns, obj as SvcObject);
        else await ctx.client.create(resources.endpoints, ns, obj as SvcObject);
      } catch (e) {
        // The cache was behind (409 either way): the Endpoints' own event brings the key back.
        if (!(e instanceof ApiError && (e.code === 409 || e.code === 403))) throw e;
      }
      return done();
    },
  });
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return undefined;
  throw e;
}
