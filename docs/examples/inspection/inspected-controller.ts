// Watching a controller live: one MachineInspector observes every actor the runtime starts (the
// leader election, the controller, its workers), and debugMachinesHandler serves /debug/machines
// (JSON), /debug/machines/events (live updates) and /debug/machines/ui (the page) on any server.
import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { debugMachinesHandler, MachineInspector, startLeaderElection, type ApiClient, type InformerFactory, type ControllerDefinition, type LeaderElection, type RunningController } from 'svc';

export function runInspected(
  definition: ControllerDefinition,
  host: { client: ApiClient; informers: InformerFactory; logger: Logger },
  port = 0,
): { inspector: MachineInspector; controller: RunningController; election: LeaderElection; server: Server } {
  const inspector = new MachineInspector();
  const controller = definition.start({ ...host, leaderElection: true, inspect: inspector.inspect });
  const election = startLeaderElection({
    client: host.client,
    logger: host.logger,
    config: { resourceName: definition.name },
    inspect: inspector.inspect,
    onStartedLeading: () => controller.leaderElected(),
    onStoppedLeading: () => controller.leaderLost(),
  });
  const debug = debugMachinesHandler(inspector);
  const server = createServer((req, res) => {
    if (debug(req, res)) return; // /debug/machines...
    res.writeHead(404).end();
  });
  server.listen(port, '127.0.0.1');
  return { inspector, controller, election, server };
}
