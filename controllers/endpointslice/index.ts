/**
 * The endpointslice controller: a Service with a selector gets EndpointSlices (discovery.svc.io)
 * listing its pods, at most `--max-endpoints-per-slice` endpoints each.
 *
 * - Watches: Services. Triggers: pods (the Services whose selector matches them now or listed them
 *   at their last sync), EndpointSlices (their Service, from the `svc.io/service-name` label).
 * - Writes: slices labelled `svc.io/service-name=<service>` and
 *   `endpointslice.svc.io/managed-by=endpointslice-controller.svc.io`, owned by the Service
 *   (generateName `<service>-`), addressType IPv4; one set of slices per distinct port list;
 *   endpoints sorted by address, each with its ready condition, nodeName and pod
 *   reference. Existing slices are reused in order, surplus ones deleted, so a steady Service is
 *   never rewritten. Services without a selector are left alone.
 * - `--endpointslice-updates-batch-period`: a Service synced within the period waits for its end.
 */
import type { EndpointSlice, Pod, Service } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { controllerRefTo } from '../../src/runtime/owner-references.js';
import { portsKey, selectedPods, serviceEndpoints, ServiceMembership, type ServiceEndpoint } from '../internal/service-endpoints.js';

export const LABEL_SERVICE_NAME = 'svc.io/service-name';
export const LABEL_MANAGED_BY = 'endpointslice.svc.io/managed-by';
export const MANAGED_BY = 'endpointslice-controller.svc.io';

export interface EndpointSliceControllerOptions {
  concurrency: number;
  maxEndpointsPerSlice: number;
  batchPeriodMs: number;
}

type SliceContent = Pick<EndpointSlice, 'addressType' | 'endpoints' | 'ports'>;

/** The slices a Service should have: per port list, its endpoints in chunks of `max`. */
export function desiredSlices(service: Service, pods: readonly Pod[], max: number): SliceContent[] {
  const groups = new Map<string, ServiceEndpoint[]>();
  for (const e of serviceEndpoints(service, pods)) {
    const k = portsKey(e.ports);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(e);
  }
  const out: SliceContent[] = [];
  for (const [, list] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (let i = 0; i < list.length; i += max) {
      const chunk = list.slice(i, i + max);
      out.push({
        addressType: 'IPv4',
        endpoints: chunk.map((e) => ({ addresses: [e.ip], conditions: { ready: e.ready }, targetRef: e.targetRef, ...(e.nodeName ? { nodeName: e.nodeName } : {}) })),
        ports: chunk[0]!.ports.map((p) => ({ ...p })),
      });
    }
  }
  return out;
}

const sameContent = (a: SliceContent, b: SliceContent) => JSON.stringify([a.addressType, a.endpoints ?? [], a.ports ?? []]) === JSON.stringify([b.addressType, b.endpoints ?? [], b.ports ?? []]);

export function endpointSliceController(o: EndpointSliceControllerOptions): ControllerDefinition<Service> {
  const membership = new ServiceMembership();
  const lastSync = new Map<string, number>();
  return defineController<Service>({
    name: 'endpointslice',
    watches: resources.services,
    concurrency: o.concurrency,
    triggers: [
      membership.podTrigger(),
      {
        resource: resources.endpointslices,
        keysFor: (slice) => (slice.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY && slice.metadata.labels[LABEL_SERVICE_NAME] ? [`${slice.metadata.namespace}/${slice.metadata.labels[LABEL_SERVICE_NAME]}`] : []),
      },
    ],
    async reconcile(key, ctx) {
      const ns = ctx.namespace ?? '';
      const service = ctx.object;
      const existing = ctx
        .cacheOf<EndpointSlice>(resources.endpointslices)
        .byIndex('namespace', ns)
        .filter((s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === ctx.name && s.metadata.labels?.[LABEL_MANAGED_BY] === MANAGED_BY && !s.metadata.deletionTimestamp)
        .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
      if (!service || !service.spec?.selector || Object.keys(service.spec.selector).length === 0) {
        // Gone, or no longer selecting: its slices go (the garbage collector would too, via the owner).
        for (const s of existing) await ctx.client.delete(resources.endpointslices, ns, s.metadata.name ?? '').catch(ignoreGone);
        lastSync.delete(key);
        return done();
      }
      const now = ctx.clock.now();
      const since = now - (lastSync.get(key) ?? -Infinity);
      if (o.batchPeriodMs > 0 && since < o.batchPeriodMs) return requeueAfter(o.batchPeriodMs - since);
      lastSync.set(key, now);

      const pods = ctx.cacheOf<Pod>(resources.pods).byIndex('namespace', ns);
      membership.set(key, new Set(selectedPods(service, pods).map((p) => `${ns}/${p.metadata.name}`)));

      const desired = desiredSlices(service, pods, Math.max(1, o.maxEndpointsPerSlice));
      const labels = { ...(service.metadata.labels ?? {}), [LABEL_SERVICE_NAME]: ctx.name, [LABEL_MANAGED_BY]: MANAGED_BY };
      const ref = controllerRefTo(service, resources.services);
      try {
        for (let i = 0; i < Math.max(desired.length, existing.length); i++) {
          const want = desired[i];
          const have = existing[i];
          if (want && have) {
            if (sameContent(want, have) && JSON.stringify(have.metadata.labels) === JSON.stringify(labels)) continue;
            await ctx.client.update(resources.endpointslices, ns, { ...have, ...want, metadata: { ...have.metadata, labels } } as SvcObject);
          } else if (want) {
            await ctx.client.create(resources.endpointslices, ns, { apiVersion: 'discovery.svc.io/v1', kind: 'EndpointSlice', metadata: { generateName: `${ctx.name}-`, namespace: ns, labels, ownerReferences: [ref] }, ...want } as SvcObject);
          } else if (have) {
            await ctx.client.delete(resources.endpointslices, ns, have.metadata.name ?? '').catch(ignoreGone);
          }
        }
      } catch (e) {
        // The cache was behind: the slice's own event brings the key back.
        if (!(e instanceof ApiError && (e.code === 409 || e.code === 403))) throw e;
      }
      return done();
    },
  });
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof ApiError && e.code === 404) return undefined;
  throw e;
}
