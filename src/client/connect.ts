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
 * no client-side rate limit (`--svc-api-qps` throttles the work, not the lease), and no retries
 * inside the client (the election retries every retry period and bounds a renewal by its renew
 * deadline). Same server, credentials and content type as `opts`.
 */
export function connectForLeaderElection(opts: ConnectOptions): Connection {
  return connect({ ...opts, qps: 0, retry: { maxAttempts: 1 }, userAgent: `${opts.userAgent ?? 'svc-client'}/leader-election` });
}
