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
  client: ClientConfig;
  apiVersion: string;
  initialBackoffMs: number;
  /** Per call (the established webhook client's 30 s). */
  timeoutMs?: number;
}

const STEPS = 5;
const FACTOR = 1.5;
const JITTER = 0.2;

export class WebhookBackend implements AuditBackend {
  private readonly target: RemoteTarget;
  private readonly agent: HttpAgent;
  private readonly inflight = new Set<Promise<boolean>>();

  constructor(
    private readonly opts: WebhookBackendOptions,
    private readonly logger: Logger,
  ) {
    const c = opts.client;
    this.target = { url: c.server, tls: { ...c.tls }, ...(c.token ? { token: c.token } : {}) };
    this.agent = this.target.url.startsWith('https:') ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
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
      try {
        const answer = await callRemote(this.target, 'POST', body, { agent: this.agent, timeoutMs: this.opts.timeoutMs ?? 30_000 });
        if (answer.status >= 200 && answer.status <= 299) return true;
        const retryable = answer.status === 500 || answer.status === 504 || answer.status === 429 || answer.headers['retry-after'] !== undefined;
        throw new RemoteCallError(`${this.target.url} answered ${answer.status}: ${answer.body.slice(0, 200)}`, answer.status, retryable);
      } catch (err) {
        const retryable = err instanceof RemoteCallError && err.retryable;
        if (!retryable || attempt >= STEPS) {
          this.logger.error({ err, url: this.target.url, events: count }, 'audit webhook: could not send events');
          return false;
        }
        await new Promise((r) => setTimeout(r, wait * (1 + Math.random() * JITTER)));
        wait *= FACTOR;
      }
    }
  }

  async shutdown(): Promise<void> {
    await Promise.all([...this.inflight]);
    this.agent.destroy();
  }
}
