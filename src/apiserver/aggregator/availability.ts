/**
 * The Available condition of an APIService (the established local and remote availability
 * controllers' rules):
 *
 * - local (no service): True, `Local`, "Local APIServices are always available".
 * - service missing: False `ServiceNotFound` "service/<name> in "<ns>" is not present".
 * - a ClusterIP Service without the port: False `ServicePortError`; without Endpoints: False
 *   `EndpointsNotFound`; Endpoints with no address for the port's name: False `MissingEndpoints`.
 * - then the discovery check: GET /apis/<group>/<version> (`/api/v1` for `v1.`) through the
 *   routing in force, as `system:svc-aggregator` in `system:masters`, with the proxy client
 *   certificate, the server's certificate not checked (a best-effort probe, as established), 5
 *   attempts at once within 5 s, one success is enough: else False `FailedDiscoveryCheck` with the
 *   last failure; else True `Passed` "all checks passed". The body read on success is the
 *   extension's APIResourceList, kept for aggregated discovery.
 *
 * `lastTransitionTime` changes only when the status does (the established SetAPIServiceCondition).
 */
import { request as httpsRequest } from 'node:https';
import type { SvcObject } from '../../api/types.js';
import type { ApiResource } from '../discovery.js';
import { endpointAddresses, findServicePort, hostPort, type ResolvedTarget, RoutingError } from './routing.js';
import { identityHeaders, type IdentityHeaderNames, type ProxyClientCertificate } from './proxy.js';

export interface AvailableCondition {
  type: 'Available';
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

const rec = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

export const LOCAL_AVAILABLE: Readonly<AvailableCondition> = Object.freeze({ type: 'Available', status: 'True', reason: 'Local', message: 'Local APIServices are always available' });

/** What the check reads: the Service and its Endpoints (from the server's caches) and a route. */
export interface AvailabilityLookups {
  service(namespace: string, name: string): Promise<SvcObject | undefined>;
  endpoints(namespace: string, name: string): Promise<SvcObject | undefined>;
  /** The routing in force (./routing.ts); throws RoutingError. */
  resolve(service: SvcObject, endpoints: SvcObject | undefined, port: number): ResolvedTarget;
}

export interface DiscoveryProbe {
  client?: ProxyClientCertificate;
  names: IdentityHeaderNames;
  timeoutMs: number;
}

export interface AvailabilityResult {
  condition: AvailableCondition;
  /** The extension's resources when the discovery check read them. */
  resources?: ApiResource[];
}

/** Decides an APIService's Available condition (see the file comment). */
export async function checkAvailability(apiService: SvcObject, lookups: AvailabilityLookups, probe: DiscoveryProbe): Promise<AvailabilityResult> {
  const spec = rec(apiService['spec']);
  if (!spec['service']) return { condition: { ...LOCAL_AVAILABLE } };
  const ref = rec(spec['service']);
  const ns = String(ref['namespace'] ?? '');
  const name = String(ref['name'] ?? '');
  const port = typeof ref['port'] === 'number' ? ref['port'] : 443;
  const svc = await lookups.service(ns, name);
  const no = (reason: string, message: string): AvailabilityResult => ({ condition: { type: 'Available', status: 'False', reason, message } });
  if (!svc) return no('ServiceNotFound', `service/${name} in ${JSON.stringify(ns)} is not present`);
  const type = String(rec(svc['spec'])['type'] ?? 'ClusterIP') || 'ClusterIP';
  let endpoints: SvcObject | undefined;
  if (type === 'ClusterIP') {
    let portName = '';
    try {
      const p = findServicePort(svc, port);
      portName = typeof p['name'] === 'string' ? p['name'] : '';
    } catch {
      return no('ServicePortError', `service/${name} in ${JSON.stringify(ns)} is not listening on port ${port}`);
    }
    endpoints = await lookups.endpoints(ns, name);
    if (!endpoints) return no('EndpointsNotFound', `cannot find endpoints for service/${name} in ${JSON.stringify(ns)}`);
    if (endpointAddresses(endpoints, portName).length === 0) return no('MissingEndpoints', `endpoints for service/${name} in ${JSON.stringify(ns)} have no addresses with port name ${JSON.stringify(portName)}`);
  } else {
    endpoints = await lookups.endpoints(ns, name);
  }
  const group = String(spec['group'] ?? '');
  const version = String(spec['version'] ?? '');
  const path = apiService.metadata.name === 'v1.' ? `/api/${version}` : `/apis/${group}/${version}`;
  const attempts = await Promise.all(
    Array.from({ length: 5 }, async () => {
      let target: ResolvedTarget;
      try {
        target = lookups.resolve(svc, endpoints, port);
      } catch (err) {
        return { error: err instanceof RoutingError ? err.message : String(err) };
      }
      const url = `https://${hostPort(target)}${path}`;
      try {
        return { body: await probeDiscovery(target, path, probe) };
      } catch (err) {
        return { error: `failing or missing response from ${url}: ${(err as Error).message}` };
      }
    }),
  );
  const ok = attempts.find((a): a is { body: string } => 'body' in a);
  if (!ok) return no('FailedDiscoveryCheck', attempts.map((a) => ('error' in a ? a.error : '')).pop() ?? 'no attempt was made');
  const condition: AvailableCondition = { type: 'Available', status: 'True', reason: 'Passed', message: 'all checks passed' };
  try {
    const parsed = rec(JSON.parse(ok.body));
    return Array.isArray(parsed['resources']) ? { condition, resources: parsed['resources'] as ApiResource[] } : { condition };
  } catch {
    return { condition };
  }
}

/** One discovery GET; resolves with the body of a 2xx answer. */
function probeDiscovery(target: ResolvedTarget, path: string, probe: DiscoveryProbe): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = `https://${hostPort(target)}${path}`;
    const req = httpsRequest(
      {
        host: target.host,
        port: target.port,
        path,
        method: 'GET',
        rejectUnauthorized: false,
        ...(probe.client ? { cert: probe.client.cert, key: probe.client.key } : {}),
        headers: { accept: 'application/json', ...identityHeaders({ username: 'system:svc-aggregator', groups: ['system:masters'] }, probe.names) },
        timeout: probe.timeoutMs,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= 4 * 1024 * 1024) chunks.push(c);
        });
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) reject(new Error(`bad status from ${url}: ${code}`));
          else resolve(Buffer.concat(chunks).toString('utf8'));
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timed out waiting for ${url}`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * The status with `condition` set (the established SetAPIServiceCondition): a changed status
 * stamps `now`, an unchanged one keeps its transition time and takes the new reason and message.
 */
export function withCondition(status: unknown, condition: AvailableCondition, now: string): Record<string, unknown> {
  const conditions = Array.isArray(rec(status)['conditions']) ? (rec(status)['conditions'] as unknown[]).map(rec) : [];
  const existing = conditions.find((c) => c['type'] === condition.type);
  const next: Record<string, unknown> = { ...condition, lastTransitionTime: existing && existing['status'] === condition.status && existing['lastTransitionTime'] ? existing['lastTransitionTime'] : now };
  return { ...rec(status), conditions: [...conditions.filter((c) => c['type'] !== condition.type), next] };
}

/** Whether an APIService's Available condition is True. */
export function isAvailable(apiService: SvcObject): boolean {
  const list = rec(apiService['status'])['conditions'];
  return Array.isArray(list) && list.some((c) => rec(c)['type'] === 'Available' && rec(c)['status'] === 'True');
}
