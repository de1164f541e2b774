/**
 * One call from the API client options (`--svcconfig`, `--master`, `--svc-api-qps`,
 * `--svc-api-burst`, `--svc-api-content-type`) to a ready client over HTTPS.
 */
import { createClient, type ClientOptions } from './client.js';
import { HttpTransport, type HttpTransportOptions } from './http-transport.js';
import { loadClientConfig, type LoadClientConfigOptions } from './svcconfig.js';
import type { ApiClient } from './types.js';

export interface ConnectOptions extends LoadClientConfigOptions, HttpTransportOptions, ClientOptions {}

export interface Connection {
  client: ApiClient;
  transport: HttpTransport;
  /** Closes every connection (open watches end). */
  close(): Promise<void>;
}

/** Loads the configuration (file and/or `--master`) and builds transport and client. */
export function connect(opts: ConnectOptions): Connection {
  const transport = new HttpTransport(loadClientConfig(opts), opts);
  const client = createClient(transport, opts);
  return { client, transport, close: () => transport.close() };
}

/**
 * The leader-election lock's own client, as the established daemons give it: a transport of its
 * own (its own connection, so a renewal never waits for a free socket behind the daemon's work),
 * no client-side rate limit (`--svc-api-qps` throttles the work, not the lease), no retries
 * inside the client (the election retries every retry period), and each request bounded by
 * `timeoutMs` (the renew deadline, as client-go bounds a renewal), so an attempt against a server
 * that stopped answering fails instead of leaving a follower waiting forever. Same server,
 * credentials and content type as `opts`.
 */
export function connectForLeaderElection(opts: ConnectOptions, timeoutMs = 10_000): Connection {
  return connect({ ...opts, qps: 0, retry: { maxAttempts: 1 }, requestTimeoutMs: timeoutMs, userAgent: `${opts.userAgent ?? 'svc-client'}/leader-election` });
}
