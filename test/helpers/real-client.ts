/** The project's own HTTPS client (src/client) for a test apiserver process, speaking JSON. */
import type { ApiClient } from '../../src/client/index.js';
import type { ApiServerProcess } from './apiserver.js';
import { clientFor } from './client.js';

/** `clientFor` with JSON bodies (tests that read what the server stored compare JSON shapes). */
export function realClient(server: ApiServerProcess): { client: ApiClient; close(): Promise<void> } {
  return clientFor(server, { contentType: 'application/json' });
}
