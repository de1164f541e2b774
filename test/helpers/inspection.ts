/**
 * A real leader election, observed by a MachineInspector, against a test apiserver process, with
 * /debug/machines served by a plain Node HTTP server on a free loopback port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { debugMachinesHandler, MachineInspector, startLeaderElection, type LeaderElection, type MachinesSnapshot } from '../../src/runtime/index.js';
import type { ApiClient } from '../../src/client/types.js';
import { capturedLogger } from './sim.js';

export interface InspectedElection {
  inspector: MachineInspector;
  election: LeaderElection;
  server: Server;
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Starts a fast-ticking election (renews every 200 ms) observed by an inspector, and the debug server. */
export async function inspectedElection(client: ApiClient, name: string): Promise<InspectedElection> {
  const inspector = new MachineInspector({ maxTransitions: 10 });
  const election = startLeaderElection({
    client,
    config: { resourceName: name, identity: `${name}-host_1`, leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 200 },
    logger: capturedLogger().logger,
    inspect: inspector.inspect,
  });
  const handle = debugMachinesHandler(inspector);
  const server = createServer((req, res) => {
    if (!handle(req, res)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found\n');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    inspector,
    election,
    server,
    url,
    async close() {
      election.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls `snapshot()` (real time, up to `ms`) until `pred` holds; returns that snapshot. */
export async function snapshotWhere(inspector: MachineInspector, pred: (s: MachinesSnapshot) => boolean, ms = 10_000): Promise<MachinesSnapshot> {
  for (const deadline = Date.now() + ms; ; ) {
    const s = inspector.snapshot();
    if (pred(s)) return s;
    if (Date.now() > deadline) throw new Error(`inspector never matched: ${JSON.stringify(s, null, 1).slice(0, 4000)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
