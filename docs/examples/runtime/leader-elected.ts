// Running a controller only while leading: leader election decides, the controller follows.
// On `lost` this one exits and leaves the restart to a supervisor (as the established daemons do);
// svc's daemons step down and rejoin instead (`stepDown`, see docs/runtime.md).
import type { Logger } from 'pino';
import { startLeaderElection, type ApiClient, type InformerFactory, type ControllerDefinition, type LeaderElection, type RunningController } from 'svc';

export function runWhileLeading(
  definition: ControllerDefinition,
  host: { client: ApiClient; informers: InformerFactory; logger: Logger },
  onLost: () => void = () => process.exit(1),
): { controller: RunningController; election: LeaderElection } {
  const controller = definition.start({ ...host, leaderElection: true });
  const election = startLeaderElection({
    client: host.client,
    logger: host.logger,
    config: { resourceName: definition.name, lockType: 'leases' },
    onStartedLeading: () => controller.leaderElected(),
    onStoppedLeading: (reason) => {
      controller.leaderLost();
      if (reason === 'lost') onLost();
    },
  });
  return { controller, election };
}
