/**
 * How the API server reaches an admission webhook and what a failed call says.
 *
 * clientConfig.url: that URL (https only, validated on write), trusting `caBundle` (or the
 * system's roots when it is empty).
 *
 * clientConfig.service (namespace, name, path, port default 443): the established server resolves
 * a service to its cluster IP (or, with --enable-aggregator-routing, to an endpoint) and verifies
 * the serving certificate for the DNS name `<name>.<namespace>.svc` against caBundle. Cluster IPs
 * route nowhere in this simulated world (there is no service proxy), so the call goes to an
 * endpoint of the service, as aggregator routing does: the Endpoints object of the same name, the
 * endpoint port whose name is the service port's (the only one when the service has one port),
 * its first ready address. The TLS server name stays `<name>.<namespace>.svc`, so the webhook's
 * certificate is verified exactly as established. An ExternalName service is called at its
 * external name. A missing service, port or ready endpoint is a failed call.
 *
 * Every call carries `?timeout=<n>s` and is abandoned after timeoutSeconds ("context deadline
 * exceeded"), and presents the credentials of the kubeconfig user matching the webhook's address
 * (./credentials.ts), or else the --proxy-client-cert-file certificate when one is configured. No
 * retries (as established for admission webhooks). Failures read as the Go client's do, so the
 * established messages (`failed calling webhook "x": failed to call webhook: Post "...": ...`)
 * come out the same.
 */
import { Agent as HttpsAgent } from 'node:https';
import type { SvcObject } from '../../../api/types.js';
import { callRemote, type RemoteTarget } from '../../auth/webhook-client.js';
import { credentialFor, type WebhookCredentials } from './credentials.js';

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const list = (v: unknown): Loose[] => (Array.isArray(v) ? v.map(rec) : []);

/** What the client reads to resolve a service reference (the server's caches). */
export interface ServiceLookups {
  service(namespace: string, name: string): Promise<SvcObject | undefined>;
  endpoints(namespace: string, name: string): Promise<SvcObject | undefined>;
}

/** The API server's client identity for webhooks (--proxy-client-cert-file / --proxy-client-key-file, PEM). */
export interface ClientIdentity {
  cert: string;
  key: string;
}

/** A call that did not produce a usable answer: the reason, as the established client words it. */
export class WebhookCallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

/** The webhook's target: its URL and TLS settings. Throws WebhookCallError when it cannot be resolved. */
export async function resolveTarget(clientConfig: Loose, lookups: ServiceLookups, identity: ClientIdentity | undefined, credentials?: WebhookCredentials): Promise<RemoteTarget> {
  const caBundle = typeof clientConfig['caBundle'] === 'string' && clientConfig['caBundle'] !== '' ? Buffer.from(clientConfig['caBundle'], 'base64').toString('utf8') : undefined;
  const ref = rec(clientConfig['service']);
  const url = typeof clientConfig['url'] === 'string' && clientConfig['url'] !== '' ? clientConfig['url'] : undefined;
  const namespace = String(ref['namespace'] ?? '');
  const name = String(ref['name'] ?? '');
  const port = typeof ref['port'] === 'number' ? ref['port'] : 443;
  const path = typeof ref['path'] === 'string' ? ref['path'] : '';
  const host = `${name}.${namespace}.svc`;
  // Who the server shows itself as: the kubeconfig user matching the webhook's address, else the proxy client certificate.
  const matched = credentials ? credentialFor(credentials, url ? new URL(url).host : `${host}:${port}`) : undefined;
  const client = matched ? (matched.cert && matched.key ? { cert: matched.cert, key: matched.key } : {}) : identity ? { cert: identity.cert, key: identity.key } : {};
  const token = matched?.token ? { token: matched.token } : {};
  const tls: NonNullable<RemoteTarget['tls']> = { ...(caBundle ? { ca: caBundle } : {}), ...client };
  if (url) return { url, tls, ...token };
  const svc = await lookups.service(namespace, name);
  if (!svc) throw new WebhookCallError(`service "${name}" not found`);
  const spec = rec(svc['spec']);
  if (spec['type'] === 'ExternalName') {
    return { url: `https://${String(spec['externalName'] ?? '')}:${port}${path}`, tls: { ...tls, serverName: String(spec['externalName'] ?? '') }, ...token };
  }
  const svcPort = list(spec['ports']).find((p) => p['port'] === port);
  if (!svcPort) throw new WebhookCallError(`unable to find service port ${port}`);
  const eps = await lookups.endpoints(namespace, name);
  const portName = typeof svcPort['name'] === 'string' ? svcPort['name'] : '';
  for (const subset of list(eps?.['subsets'])) {
    const epPort = list(subset['ports']).find((p) => (p['name'] ?? '') === portName);
    const address = list(subset['addresses'])[0];
    if (epPort && address && typeof address['ip'] === 'string' && typeof epPort['port'] === 'number') {
      const ip = address['ip'].includes(':') ? `[${address['ip']}]` : address['ip'];
      return { url: `https://${ip}:${epPort['port']}${path}`, tls: { ...tls, serverName: host }, ...token };
    }
  }
  throw new WebhookCallError(`no endpoints available for service "${name}"`);
}

// One keep-alive pool for every webhook: Node keys pooled connections by host, port and every TLS
// option (CA, client certificate, server name), so webhooks never share a connection they should not.
const AGENT = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

/** Go's wording of a connection failure (`dial tcp 10.0.0.1:443: connect: connection refused`). */
function goReason(url: URL, message: string): string {
  const hostPort = `${url.hostname.replace(/^\[|\]$/g, '')}:${url.port || '443'}`;
  if (/ECONNREFUSED/.test(message)) return `dial tcp ${hostPort}: connect: connection refused`;
  if (/EHOSTUNREACH/.test(message)) return `dial tcp ${hostPort}: connect: no route to host`;
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return `dial tcp: lookup ${url.hostname}: no such host`;
  if (/self[- ]signed|unable to (verify|get local issuer)|UNABLE_TO_VERIFY|certificate chain/i.test(message)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (/altnames|Hostname\/IP does not match/i.test(message)) return `tls: failed to verify certificate: x509: certificate is not valid for ${url.hostname}`;
  return message.replace(/^POST \S+: /, '');
}

/**
 * POSTs the review and returns the parsed answer. Throws WebhookCallError (`failed to call webhook:
 * Post "<url>": <reason>`) on a failed exchange, a non-2xx answer or a body that is not JSON.
 */
export async function postReview(target: RemoteTarget, review: unknown, timeoutSeconds: number): Promise<unknown> {
  const url = new URL(target.url);
  url.searchParams.set('timeout', `${timeoutSeconds}s`);
  const shown = url.toString();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutSeconds * 1000);
  let answer;
  try {
    answer = await callRemote({ ...target, url: shown }, 'POST', JSON.stringify(review), { agent: AGENT, timeoutMs: timeoutSeconds * 1000 + 1000, signal: controller.signal });
  } catch (err) {
    const reason = controller.signal.aborted ? 'context deadline exceeded' : goReason(url, err instanceof Error ? err.message : String(err));
    throw new WebhookCallError(`failed to call webhook: Post "${shown}": ${reason}`);
  } finally {
    clearTimeout(timer);
  }
  if (answer.status < 200 || answer.status > 299) {
    let message = '';
    try {
      const body = JSON.parse(answer.body) as Loose;
      if (body['kind'] === 'Status' && typeof body['message'] === 'string') message = body['message'];
    } catch {
      // not a Status: the generic words below
    }
    throw new WebhookCallError(`failed to call webhook: ${message || `the server responded with the status code ${answer.status} but did not return more information`}`);
  }
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    throw new WebhookCallError('received invalid webhook response: the answer is not JSON');
  }
}
