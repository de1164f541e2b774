/**
 * The audit webhook backend (--audit-webhook-config-file, a svcconfig-format file naming the
 * server, its CA and the client credentials): each batch is POSTed as an `audit.svc.io/v1`
 * EventList. As established, a failed call is retried with exponential backoff starting at
 * --audit-webhook-initial-backoff (x1.5 per attempt, 20% jitter, 5 attempts in all) when the failure
 * says "try again" (a reset connection or a timeout, 429, 500, 504, Retry-After; not a refused
 * connection, as established); any 2xx answer is
 * success whatever its body. Events that still cannot be sent are logged and reported (false).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Logger } from 'pino';
import type { ClientConfig } from '../../client/svcconfig.js';
import { callRemote, RemoteCallError, type RemoteTarget } from '../auth/webhook-client.js';
import type { AuditBackend } from './backend.js';
import { type AuditEvent, encodeEventList } from './event.js';

export interface WebhookBackendOptions {
  /** The receiver (the --audit-webhook-config-file): or `target`. */
  client?: ClientConfig;
  /** The receiver found anew for each call (a dynamic AuditSink's URL or Service, ./dynamic-backend.ts). */
  target?: () => Promise<RemoteTarget>;
  apiVersion: string;
  initialBackoffMs: number;
  /** Per call (the established webhook client's 30 s). */
  timeoutMs?: number;
}

const STEPS = 5;
const FACTOR = 1.5;
const JITTER = 0.2;

export class WebhookBackend implements AuditBackend {
  private readonly target: () => Promise<RemoteTarget>;
  private readonly https = new HttpsAgent({ keepAlive: true });
  private readonly http = new HttpAgent({ keepAlive: true });
  private readonly inflight = new Set<Promise<boolean>>();

  constructor(
    private readonly opts: WebhookBackendOptions,
    private readonly logger: Logger,
  ) {
    const c = opts.client;
    const fixed: RemoteTarget | undefined = c ? { url: c.server, tls: { ...c.tls }, ...(c.token ? { token: c.token } : {}) } : undefined;
    const target = opts.target ?? (fixed ? async () => fixed : undefined);
    if (!target) throw new Error('audit webhook backend: no receiver');
    this.target = target;
  }

  processEvents(events: readonly AuditEvent[]): Promise<boolean> {
    const p = this.send(encodeEventList(events, this.opts.apiVersion), events.length);
    this.inflight.add(p);
    void p.finally(() => this.inflight.delete(p));
    return p;
  }

  private async send(body: string, count: number): Promise<boolean> {
    let wait = this.opts.initialBackoffMs;
    for (let attempt = 1; ; attempt++) {
      let url = '';
      try {
        const target = await this.target();
        url = target.url;
        const agent = url.startsWith('https:') ? this.https : this.http;
        const answer = await callRemote(target, 'POST', body, { agent, timeoutMs: this.opts.timeoutMs ?? 30_000 });
        if (answer.status >= 200 && answer.status <= 299) return true;
        const retryable = answer.status === 500 || answer.status === 504 || answer.status === 429 || answer.headers['retry-after'] !== undefined;
        throw new RemoteCallError(`${url} answered ${answer.status}: ${answer.body.slice(0, 200)}`, answer.status, retryable);
      } catch (err) {
        const retryable = err instanceof RemoteCallError && err.retryable;
        if (!retryable || attempt >= STEPS) {
          this.logger.error({ err, url, events: count }, 'audit webhook: could not send events');
          return false;
        }
        await new Promise((r) => setTimeout(r, wait * (1 + Math.random() * JITTER)));
        wait *= FACTOR;
      }
    }
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.inflight]);
    this.https.destroy();
    this.http.destroy();
  }
}
