/**
 * What a Service's endpoints are, shared by the endpoint and endpointslice controllers: the pods its
 * selector matches that have an IP and have not finished, each ready or not (a pod being deleted
 * counts as not ready; `publishNotReadyAddresses` makes every one ready), and the service's ports
 * resolved for each pod (a named `targetPort` is looked up in the pod's container ports; a pod
 * without that name does not serve that port).
 */
import type { ObjectReference, Pod, Service } from '../../src/api/generated/kinds.js';
import { labelSelectorFromMap } from '../../src/api/labels.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import type { ControllerTrigger } from '../../src/runtime/define-controller.js';
import { isPodReady } from './pod-state.js';

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
}

export interface ServiceEndpoint {
  ip: string;
  ready: boolean;
  nodeName?: string;
  hostname?: string;
  targetRef: ObjectReference;
  ports: EndpointPort[];
}

/** The pods a Service selects (none when it has no selector: its endpoints are someone else's). */
export function selectedPods(service: Service, pods: readonly Pod[]): Pod[] {
  const sel = service.spec?.selector;
  if (!sel || Object.keys(sel).length === 0) return [];
  const m = labelSelectorFromMap(sel);
  return pods.filter((p) => m.matches(p.metadata.labels));
}

function resolvePort(pod: Pod, target: number | string | undefined, port: number): number | undefined {
  if (target === undefined || target === '' || target === 0) return port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  for (const c of pod.spec?.containers ?? []) {
    for (const p of (c.ports ?? []) as { name?: string; containerPort?: number }[]) if (p.name === target && p.containerPort) return p.containerPort;
  }
  return undefined;
}

export function serviceEndpoints(service: Service, pods: readonly Pod[]): ServiceEndpoint[] {
  const out: ServiceEndpoint[] = [];
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  for (const p of selectedPods(service, pods)) {
    const ip = p.status?.podIP;
    const phase = p.status?.phase;
    if (!ip || phase === 'Succeeded' || phase === 'Failed') continue;
    const ports: EndpointPort[] = [];
    for (const sp of service.spec?.ports ?? []) {
      const port = resolvePort(p, sp.targetPort, sp.port ?? 0);
      if (port === undefined) continue;
      ports.push({ ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP' });
    }
    const ready = publishNotReady || (isPodReady(p) && !p.metadata.deletionTimestamp);
    out.push({
      ip,
      ready,
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
      targetRef: { kind: 'Pod', namespace: p.metadata.namespace ?? '', name: p.metadata.name ?? '', uid: p.metadata.uid ?? '' } as ObjectReference,
      ports,
    });
  }
  return out.sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
}

/** A stable key of a port list (endpoints with the same ports go in one subset or slice). */
export function portsKey(ports: readonly EndpointPort[]): string {
  return JSON.stringify([...ports].sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : 1)));
}

/**
 * Which Services list which pods, as of each Service's last sync, so a pod whose labels stop
 * matching still queues the Services it has to leave (a trigger sees only the pod's new labels).
 */
export class ServiceMembership {
  private readonly byPod = new Map<string, Set<string>>();

  /** The pods trigger: the Services selecting the pod now, and those that listed it. */
  podTrigger(): ControllerTrigger<Service> {
    return {
      resource: resources.pods,
      keysFor: (pod: SvcObject, services) => {
        const ns = pod.metadata.namespace ?? '';
        const keys = new Set(this.byPod.get(`${ns}/${pod.metadata.name}`) ?? []);
        for (const s of services.byIndex('namespace', ns)) {
          const sel = s.spec?.selector;
          if (sel && Object.keys(sel).length && labelSelectorFromMap(sel).matches(pod.metadata.labels)) keys.add(`${ns}/${s.metadata.name}`);
        }
        return [...keys];
      },
    };
  }

  /** Records that Service `serviceKey` now lists exactly `podKeys` (`namespace/name`). */
  set(serviceKey: string, podKeys: ReadonlySet<string>): void {
    for (const pk of podKeys) {
      if (!this.byPod.has(pk)) this.byPod.set(pk, new Set());
      this.byPod.get(pk)!.add(serviceKey);
    }
    for (const [pk, set] of this.byPod) {
      if (set.has(serviceKey) && !podKeys.has(pk)) set.delete(serviceKey);
      if (!set.size) this.byPod.delete(pk);
    }
  }
}
