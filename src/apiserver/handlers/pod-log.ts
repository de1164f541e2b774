/**
 * GET pods/<name>/log: the container's log, fetched from the node agent that runs the pod, as the
 * established API server does it:
 *
 * 1. PodLogOptions from the query (container, follow, previous, timestamps, sinceSeconds,
 *    sinceTime, tailLines, limitBytes, insecureSkipTLSVerifyBackend), validated: 422 Invalid.
 * 2. The container: the one given must exist (400 `container x is not valid for pod y`); none
 *    given picks the only one, or 400 `a container name must be specified for pod y, choose one
 *    of: [a b]` (plus the init containers when there are some).
 * 3. A pod on no node yet: an empty 200.
 * 4. The node's agent: `status.daemonEndpoints.kubeletEndpoint.Port` and the first of its
 *    addresses in --svclet-preferred-address-types order; https unless --svclet-https=false; its
 *    certificate checked only against --svclet-certificate-authority; --svclet-client-certificate
 *    shown; --svclet-timeout bounds connecting and the answer's headers (not a followed stream).
 * 5. GET <agent>/containerLogs/<ns>/<pod>/<container>?<options>: a 200 is streamed through as
 *    text/plain (chunk by chunk, so `follow` shows lines as they come); a 400 from the agent becomes
 *    400 BadRequest with its text (e.g. `container "x" in pod "y" is waiting to start:
 *    ContainerCreating`), a 500 an InternalError, anything else a Status with the agent's code.
 */
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { nodeDefinition } from '../../api/kinds/core/node.js';
import { badRequest, internalError, invalid, StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { invalidValue } from '../../api/validation/field-errors.js';
import type { FieldError } from '../../api/status.js';
import { DEFAULT_SVCLET_CLIENT, type SvcletClientConfig } from '../config.js';
import type { RequestScope } from '../scope.js';

/** The query parameters of pods/log (PodLogOptions). */
export const POD_LOG_PARAMETERS = ['container', 'follow', 'previous', 'timestamps', 'sinceSeconds', 'sinceTime', 'tailLines', 'limitBytes', 'insecureSkipTLSVerifyBackend', 'pretty'];

interface PodLogOptions {
  container?: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
}

/** PodLogOptions from the query; 400 for a malformed value, 422 for a value out of range. */
export function parsePodLogOptions(query: URLSearchParams, name: string): PodLogOptions {
  for (const key of new Set(query.keys())) {
    if (!POD_LOG_PARAMETERS.includes(key)) throw badRequest(`unknown query parameter "${key}" for pods/log; allowed: ${POD_LOG_PARAMETERS.join(', ')}`);
  }
  const bool = (k: string): boolean => {
    const v = query.get(k);
    if (v === null || v === '') return false;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    throw badRequest(`${k}: invalid boolean value ${JSON.stringify(v)}`);
  };
  const int = (k: string): number | undefined => {
    const v = query.get(k);
    if (v === null || v === '') return undefined;
    if (!/^-?\d+$/.test(v)) throw badRequest(`${k}: invalid integer value ${JSON.stringify(v)}`);
    return Number(v);
  };
  const o: PodLogOptions = { follow: bool('follow'), previous: bool('previous'), timestamps: bool('timestamps'), insecureSkipTLSVerifyBackend: bool('insecureSkipTLSVerifyBackend') };
  const container = query.get('container');
  if (container) o.container = container;
  const sinceSeconds = int('sinceSeconds');
  const tailLines = int('tailLines');
  const limitBytes = int('limitBytes');
  const sinceTime = query.get('sinceTime');
  const errs: FieldError[] = [];
  if (tailLines !== undefined) {
    if (tailLines < 0) errs.push(invalidValue('tailLines', tailLines, 'must be greater than or equal to 0'));
    o.tailLines = tailLines;
  }
  if (limitBytes !== undefined) {
    if (limitBytes < 1) errs.push(invalidValue('limitBytes', limitBytes, 'must be greater than 0'));
    o.limitBytes = limitBytes;
  }
  if (sinceSeconds !== undefined) {
    if (sinceSeconds < 1) errs.push(invalidValue('sinceSeconds', sinceSeconds, 'must be greater than 0'));
    o.sinceSeconds = sinceSeconds;
  }
  if (sinceTime) {
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(sinceTime) || Number.isNaN(Date.parse(sinceTime))) throw badRequest(`sinceTime: parsing time ${JSON.stringify(sinceTime)} as RFC 3339: cannot parse`);
    o.sinceTime = sinceTime;
    if (sinceSeconds !== undefined) errs.push({ field: '', type: 'FieldValueForbidden', message: 'Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified' });
  }
  if (errs.length) throw invalid('PodLogOptions', name, '', errs);
  return o;
}

interface Container {
  name?: string;
}

/** The container a log request is about, with the established errors. */
export function logContainer(pod: SvcObject, name: string, wanted: string | undefined): string {
  const spec = (pod.spec ?? {}) as { containers?: Container[]; initContainers?: Container[]; ephemeralContainers?: Container[] };
  const containers = spec.containers ?? [];
  const inits = spec.initContainers ?? [];
  if (wanted) {
    const all = [...containers, ...inits, ...(spec.ephemeralContainers ?? [])];
    if (!all.some((c) => c.name === wanted)) throw badRequest(`container ${wanted} is not valid for pod ${name}`);
    return wanted;
  }
  if (containers.length === 1) return containers[0]!.name ?? '';
  if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
  let message = `a container name must be specified for pod ${name}, choose one of: [${containers.map((c) => c.name).join(' ')}]`;
  if (inits.length) message += ` or one of the init containers: [${inits.map((c) => c.name).join(' ')}]`;
  throw badRequest(message);
}

/** Where a node's agent is reached: scheme, host and port (established: NodeConnectionInfo). */
export function agentLocation(node: SvcObject, cfg: SvcletClientConfig): { scheme: 'https' | 'http'; host: string; port: number } {
  const status = (node.status ?? {}) as { addresses?: { type?: string; address?: string }[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
  const addresses = status.addresses ?? [];
  let host: string | undefined;
  for (const type of cfg.preferredAddressTypes) {
    host = addresses.find((a) => a.type === type && a.address)?.address;
    if (host) break;
  }
  const nodeName = node.metadata.name ?? '';
  if (!host) {
    const known = addresses.map((a) => `${a.type}=${a.address}`).join(', ');
    throw internalError(`no preferred addresses found; known addresses: [${known}] (node ${nodeName}, --svclet-preferred-address-types ${cfg.preferredAddressTypes.join(',')})`);
  }
  const port = status.daemonEndpoints?.kubeletEndpoint?.Port;
  if (typeof port !== 'number' || port <= 0) throw internalError(`node ${nodeName} publishes no node-agent port (status.daemonEndpoints.kubeletEndpoint.Port)`);
  return { scheme: cfg.https ? 'https' : 'http', host, port };
}

export async function handlePodLog(s: RequestScope): Promise<void> {
  if (s.info.verb !== 'get') throw new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource: only GET is supported on pods/log');
  const name = s.info.name;
  const opts = parsePodLogOptions(s.query, name);
  const pod = (await s.store.get(s.info.namespace, name)).object;
  const container = logContainer(pod, name, opts.container);
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) {
    // Established: a pod on no node yet has an empty log.
    s.res.writeHead(200, { 'content-type': 'text/plain' });
    s.res.end();
    return;
  }
  const node = (await s.services.storeFor(nodeDefinition).get('', nodeName)).object;
  const cfg = s.services.config.svclet ?? DEFAULT_SVCLET_CLIENT;
  const where = agentLocation(node, cfg);
  const params = new URLSearchParams();
  if (opts.follow) params.set('follow', 'true');
  if (opts.previous) params.set('previous', 'true');
  if (opts.timestamps) params.set('timestamps', 'true');
  if (opts.sinceSeconds !== undefined) params.set('sinceSeconds', String(opts.sinceSeconds));
  if (opts.sinceTime !== undefined) params.set('sinceTime', new Date(opts.sinceTime).toISOString().replace(/\.000Z$/, 'Z'));
  if (opts.tailLines !== undefined) params.set('tailLines', String(opts.tailLines));
  if (opts.limitBytes !== undefined) params.set('limitBytes', String(opts.limitBytes));
  const path = `/containerLogs/${encodeURIComponent(s.info.namespace)}/${encodeURIComponent(name)}/${encodeURIComponent(container)}${params.size ? `?${params}` : ''}`;
  const url = `${where.scheme}://${where.host.includes(':') ? `[${where.host}]` : where.host}:${where.port}${path}`;
  const upstream = await openUpstream(url, where, path, cfg, opts.insecureSkipTLSVerifyBackend);
  const code = upstream.statusCode ?? 500;
  if (code < 200 || code > 206) {
    const text = await readSome(upstream, 50_000);
    if (code === 400) throw badRequest(text);
    if (code === 500) throw internalError(text);
    throw new StatusError(code, code === 404 ? 'NotFound' : 'InternalError', text || `the node agent answered ${code}`, { kind: 'pods/log', name });
  }
  s.res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
  s.res.flushHeaders?.();
  // A followed log may stream for hours: a graceful shutdown ends it as it ends watches.
  const unregister = s.services.watches.add({ resource: 'pods/log', counted: false, end: () => upstream.destroy() });
  await new Promise<void>((resolve) => {
    const done = () => {
      upstream.destroy();
      resolve();
    };
    s.res.on('close', done);
    upstream.on('close', () => {
      if (!s.res.writableEnded) s.res.end();
      resolve();
    });
    upstream.on('data', (chunk: Buffer) => s.res.write(chunk));
    upstream.on('end', () => {
      if (!s.res.writableEnded) s.res.end();
      resolve();
    });
    upstream.on('error', () => {
      if (!s.res.writableEnded) s.res.end();
      resolve();
    });
  }).finally(unregister);
}

/** Connects to the agent; --svclet-timeout bounds connecting and the answer's headers. */
function openUpstream(url: string, where: { scheme: string; host: string; port: number }, path: string, cfg: SvcletClientConfig, skipVerify: boolean): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    let req: ClientRequest;
    const options = { host: where.host, port: where.port, path, method: 'GET', headers: { accept: '*/*' } };
    const onResponse = (r: IncomingMessage) => {
      clearTimeout(timer);
      resolve(r);
    };
    if (where.scheme === 'https') {
      req = httpsRequest({ ...options, rejectUnauthorized: Boolean(cfg.ca) && !skipVerify, ...(cfg.ca ? { ca: cfg.ca } : {}), ...(cfg.cert ? { cert: cfg.cert, key: cfg.key } : {}), ...(isIP(where.host) ? {} : { servername: where.host }) }, onResponse);
    } else {
      req = httpRequest(options, onResponse);
    }
    const timer = setTimeout(() => req.destroy(new Error(`timeout after ${cfg.timeoutMs} ms (--svclet-timeout)`)), cfg.timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(internalError(`Get "${url}": ${e.message}`));
    });
    req.end();
  });
}

function readSome(r: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let n = 0;
    r.on('data', (c: Buffer) => {
      if (n < max) chunks.push(c);
      n += c.length;
    });
    r.on('end', () => resolve(Buffer.concat(chunks).subarray(0, max).toString('utf8')));
    r.on('error', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
