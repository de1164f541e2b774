/** The project's own HTTPS client (src/client) for a test apiserver process. */
import { readFileSync } from 'node:fs';
import { createClient, HttpTransport, type ApiClient } from '../../src/client/index.js';
import type { ApiServerProcess } from './apiserver.js';

export function realClient(server: ApiServerProcess): { client: ApiClient; close(): Promise<void> } {
  const transport = new HttpTransport(
    { server: server.url, tls: { ca: readFileSync(server.caFile, 'utf8'), serverName: 'localhost', insecureSkipVerify: false }, source: 'test' },
    { contentType: 'application/json', qps: 0 },
  );
  return { client: createClient(transport), close: () => transport.close() };
}
