/**
 * Acting as another user: the established impersonation headers (`Impersonate-User`,
 * `Impersonate-Group`, `Impersonate-Uid`, `Impersonate-Extra-<key>`), added to every request of a
 * client made with `createClient(transport, { impersonate })`. The server authenticates the
 * client as itself, checks it may `impersonate` each of those (users, groups, uids,
 * userextras/<key>), and then serves the request as the impersonated user. One connection can
 * carry many identities this way: `svc nodes --node-identity=impersonate` gives each simulated
 * node its own (`system:node:<name>` in `system:nodes`) over the fleet's one transport.
 */
import { apiError } from './api-errors.js';
import type { Transport, TransportRequest } from './types.js';

export interface ImpersonationConfig {
  /** The user to act as. */
  user: string;
  groups?: readonly string[];
  uid?: string;
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** The headers for `config` (lower-case names). */
export function impersonationHeaders(config: ImpersonationConfig): Record<string, string | readonly string[]> {
  if (!config.user) throw apiError(400, 'impersonation needs a user name');
  const h: Record<string, string | readonly string[]> = { 'impersonate-user': config.user };
  // One header line per value, as the established client sends them: the server reads each line
  // as one group (a line "a, b" is the single group "a, b", not two).
  const list = (values: readonly string[]): readonly string[] => [...values];
  if (config.groups?.length) h['impersonate-group'] = list(config.groups);
  if (config.uid) h['impersonate-uid'] = config.uid;
  for (const [key, values] of Object.entries(config.extra ?? {})) {
    if (values.length) h[`impersonate-extra-${encodeURIComponent(key).toLowerCase()}`] = list(values);
  }
  return h;
}

/** `transport` with `headers` added to every request and stream (the caller's own headers win). */
export function withHeaders(transport: Transport, headers: Readonly<Record<string, string | readonly string[]>>): Transport {
  const add = (req: TransportRequest): TransportRequest => ({ ...req, headers: { ...headers, ...req.headers } });
  return {
    request: (req) => transport.request(add(req)),
    stream: (req) => transport.stream(add(req)),
  };
}
