/**
 * `inProcessClient(server)`: the all-in-one mode's wiring of the API client to a running API
 * server without sockets (the in-process transport of src/apiserver/in-process-transport.ts).
 * Controllers get the same `ApiClient` as over HTTPS; see docs/client.md for the guarantees.
 */
import { InProcessTransport, type InProcessTransportOptions, type PipelineSource } from '../apiserver/in-process-transport.js';
import { type ClientOptions, createClient } from '../client/client.js';
import type { ApiClient } from '../client/types.js';
import { NODES_GROUP, nodeUserName } from '../api/node-identity.js';

/** Who each in-process component is to the server (svc up and the test cluster). */
export const CONTROLLER_USER = { username: 'system:svc-controller-manager', groups: ['system:authenticated'] };
export const SCHEDULER_USER = { username: 'system:svc-scheduler', groups: ['system:authenticated'] };
/** The simulated fleet itself: its shared informers (every pod, every node) and its metrics writes. */
export const NODES_USER = { username: 'system:svc-nodes', groups: ['system:nodes', 'system:authenticated'] };

/**
 * Simulated node `name` as the server sees it: `system:node:<name>` in `system:nodes`, the
 * identity the Node authorization mode and NodeRestriction expect of a node agent.
 */
export function nodeUser(name: string): { username: string; groups: string[] } {
  return { username: nodeUserName(name), groups: [NODES_GROUP, 'system:authenticated'] };
}

export interface InProcessClientOptions extends InProcessTransportOptions, ClientOptions {}

export interface InProcessConnection {
  client: ApiClient;
  transport: InProcessTransport;
  /** Ends the watches this client has open (the server keeps running). */
  close(): Promise<void>;
}

/** A client calling `server`'s request pipeline directly, as `opts.user` (default the loopback user). */
export function inProcessClient(server: PipelineSource, opts: InProcessClientOptions = {}): ApiClient {
  return connectInProcess(server, opts).client;
}

/**
 * The fleet's `clientFor`: one client per simulated node, each calling as that node (`nodeUser`).
 * They open no watches (the fleet's informers use its own client), so nothing needs closing.
 */
export function inProcessNodeClients(server: PipelineSource, opts: Omit<InProcessClientOptions, 'user'> = {}): (name: string) => ApiClient {
  return (name) => inProcessClient(server, { ...opts, user: nodeUser(name) });
}

/** Like inProcessClient, with the transport and a `close()` that ends the client's open watches. */
export function connectInProcess(server: PipelineSource, opts: InProcessClientOptions = {}): InProcessConnection {
  const transport = new InProcessTransport(server, opts);
  return { client: createClient(transport, opts), transport, close: () => transport.close() };
}
