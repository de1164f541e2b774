/**
 * Where an APIService's Service is reached (the established service resolvers):
 *
 * - cluster-IP routing (the default): `https://<clusterIP>:<service port>` for ClusterIP, NodePort
 *   and LoadBalancer Services; ClusterIP "None" cannot be routed to; ExternalName Services at
 *   `https://<externalName>:<port>`.
 * - endpoint routing (--enable-aggregator-routing): a random ready address of the Service's
 *   Endpoints, at the endpoint port whose name is the service port's (ExternalName refused).
 *
 * In this simulated world nothing routes cluster IPs (no service proxy runs on the API server's
 * host, as the established docs warn for a control plane without kube-proxy): cluster-IP routing
 * dials the cluster IP itself and reaches an extension server only where that address is really
 * the server's (e.g. a --service-cluster-ip-range inside 127.0.0.0/8); --enable-aggregator-routing
 * reaches the endpoint addresses, which is what works everywhere here. docs/aggregation.md says so.
 */
import { randomInt } from 'node:crypto';
import type { SvcObject } from '../../api/types.js';

/** A Service reference of an APIService. */
export interface ServiceRef {
  namespace: string;
  name: string;
  port: number;
}

export interface ResolvedTarget {
  host: string;
  port: number;
}

/** Why a Service could not be resolved; the message is the established one. */
export class RoutingError extends Error {}

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.map(rec) : []);

function serviceType(svc: SvcObject): string {
  const t = rec(svc['spec'])['type'];
  return typeof t === 'string' && t !== '' ? t : 'ClusterIP';
}

/** The Service's port entry numbered `port` (established: `no service port %d found for service %q`). */
export function findServicePort(svc: SvcObject, port: number): Record<string, unknown> {
  const found = list(rec(svc['spec'])['ports']).find((p) => p['port'] === port);
  if (!found) throw new RoutingError(`no service port ${port} found for service ${JSON.stringify(svc.metadata.name ?? '')}`);
  return found;
}

/** Cluster-IP routing. */
export function resolveCluster(svc: SvcObject, port: number): ResolvedTarget {
  const spec = rec(svc['spec']);
  const type = serviceType(svc);
  if (type === 'ClusterIP' && spec['clusterIP'] === 'None') throw new RoutingError('cannot route to service with ClusterIP "None"');
  if (type === 'ClusterIP' || type === 'NodePort' || type === 'LoadBalancer') {
    const p = findServicePort(svc, port);
    return { host: String(spec['clusterIP'] ?? ''), port: Number(p['port']) };
  }
  if (type === 'ExternalName') return { host: String(spec['externalName'] ?? ''), port };
  throw new RoutingError(`unsupported service type ${JSON.stringify(type)}`);
}

/** The ready addresses of `endpoints` for the port named `portName`, with that port's number. */
export function endpointAddresses(endpoints: SvcObject | undefined, portName: string): ResolvedTarget[] {
  const out: ResolvedTarget[] = [];
  for (const subset of list(endpoints?.['subsets'])) {
    for (const p of list(subset['ports'])) {
      if ((p['name'] ?? '') !== portName) continue;
      for (const a of list(subset['addresses'])) if (typeof a['ip'] === 'string') out.push({ host: a['ip'], port: Number(p['port']) });
    }
  }
  return out;
}

/** Endpoint routing (--enable-aggregator-routing): a random ready endpoint address. */
export function resolveEndpoint(svc: SvcObject, endpoints: SvcObject | undefined, port: number): ResolvedTarget {
  const p = findServicePort(svc, port);
  const type = serviceType(svc);
  if (type !== 'ClusterIP' && type !== 'NodePort' && type !== 'LoadBalancer') throw new RoutingError(`unsupported service type ${JSON.stringify(type)}`);
  if (!endpoints) throw new RoutingError(`endpoints "${svc.metadata.name ?? ''}" not found`);
  const addresses = endpointAddresses(endpoints, typeof p['name'] === 'string' ? p['name'] : '');
  if (addresses.length === 0) throw new RoutingError(`no endpoints available for service ${JSON.stringify(svc.metadata.name ?? '')}`);
  return addresses[randomInt(addresses.length)]!;
}

/** `host:port` for a URL (IPv6 in brackets). */
export function hostPort(t: ResolvedTarget): string {
  return t.host.includes(':') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`;
}
