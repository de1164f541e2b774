/**
 * A plain HTTPS client for tests that outlive the server they talk to: it points at one endpoint
 * (URL and CA file) at a time and can be pointed again after a restart. A request either resolves
 * with the server's answer (any status) or rejects when no answer arrived (refused, reset, timed
 * out): the caller decides what an unanswered write means. JSON only.
 */
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';

export interface Endpoint {
  url: string;
  /** The CA certificate the server's certificate is signed with (the self-signed apiserver.crt). */
  caFile: string;
  /** A client certificate and key to present (e.g. svc up's admin certificate: it authorizes with Node,RBAC). */
  certFile?: string;
  keyFile?: string;
}

/** A server's answer: status, headers, the body as text and, when it parses, as JSON. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/**
 * One request through `dispatcher` to `origin` + the raw `path` (no client-side URL normalisation:
 * tests send odd paths on purpose). A string or Buffer body is sent as is, anything else as JSON.
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  origin: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  contentType = 'application/json',
): Promise<Answer> {
  const hasBody = body !== undefined;
  const payload = !hasBody ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  const r = await dispatcher.request({
    origin,
    path,
    method: method as Dispatcher.HttpMethod,
    body: payload,
    headers: { ...(hasBody ? { 'content-type': contentType } : {}), ...headers },
  });
  const text = await r.body.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, headers: r.headers, text, json };
}

export class ApiHttp {
  private agent?: Agent;
  private url = '';

  constructor(endpoint?: Endpoint, private readonly timeoutMs = 30_000) {
    if (endpoint) this.use(endpoint);
  }

  /** Talks to `endpoint` from now on (connections to the previous one are dropped). */
  use(endpoint: Endpoint): void {
    void this.agent?.destroy().catch(() => undefined);
    this.url = endpoint.url;
    this.agent = new Agent({
      connect: {
        ca: readFileSync(endpoint.caFile, 'utf8'),
        servername: 'localhost',
        ...(endpoint.certFile && endpoint.keyFile ? { cert: readFileSync(endpoint.certFile, 'utf8'), key: readFileSync(endpoint.keyFile, 'utf8') } : {}),
      },
      keepAliveTimeout: 4000,
      headersTimeout: this.timeoutMs,
      bodyTimeout: this.timeoutMs,
    });
  }

  call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
    return sendRequest(this.dispatcher(), this.url, method, path, body === undefined ? undefined : JSON.stringify(body), {}, contentType);
  }

  /** Opens a streaming GET (a watch); the caller reads and ends it (`signal`). */
  stream(path: string, signal: AbortSignal): Promise<Dispatcher.ResponseData> {
    return this.dispatcher().request({ origin: this.url, path, method: 'GET', signal, bodyTimeout: 0 });
  }

  async close(): Promise<void> {
    await this.agent?.destroy().catch(() => undefined);
    this.agent = undefined;
  }

  private dispatcher(): Agent {
    if (!this.agent) throw new Error('ApiHttp: no endpoint (call use() first)');
    return this.agent;
  }
}
