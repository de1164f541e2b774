/**
 * Simulated nodes on a cloud (`svc nodes --cloud-provider=cloudy --cloud-config=<file>`): each
 * node runs on an instance of the simulated cloud, as a node agent started with an external cloud
 * provider would.
 *
 * - `onCloud`: the instances are created (one change of the cloud's file) and each node's shape
 *   takes its instance's addresses; the zone, region and instance-type labels are left to the cloud
 *   controller manager's cloud-node controller, and every node registers with the taint
 *   `node.cloudprovider.svc.io/uninitialized:NoSchedule` that cloud-node removes.
 * - `followMachines`: every period the fleet learns which instances are stopped or gone; a node
 *   whose machine is down goes silent (no status, no lease), so the node lifecycle controllers see
 *   it as a real one, and speaks again when its machine is started.
 */
import type { Logger } from 'pino';
import { LABEL_BETA_INSTANCE_TYPE, LABEL_BETA_REGION, LABEL_BETA_ZONE, LABEL_INSTANCE_TYPE, LABEL_REGION, LABEL_ZONE, TAINT_EXTERNAL_CLOUD_PROVIDER } from '../api/well-known-labels.js';
import type { Cloudy } from '../cloud/cloudy/index.js';
import type { NodeShape } from './node-shape.js';

const CLOUD_LABELS = [LABEL_ZONE, LABEL_BETA_ZONE, LABEL_REGION, LABEL_BETA_REGION, LABEL_INSTANCE_TYPE, LABEL_BETA_INSTANCE_TYPE];

export async function onCloud(shapes: readonly NodeShape[], cloud: Cloudy, hostname: string): Promise<NodeShape[]> {
  const instances = await cloud.ensureInstances(shapes.map((s) => s.name), hostname);
  return shapes.map((s) => {
    const inst = instances[s.name]!;
    const labels = { ...s.labels };
    for (const l of CLOUD_LABELS) delete labels[l];
    return {
      ...s,
      labels,
      taints: [...s.taints.filter((t) => t.key !== TAINT_EXTERNAL_CLOUD_PROVIDER), { key: TAINT_EXTERNAL_CLOUD_PROVIDER, value: 'true', effect: 'NoSchedule' as const }],
      instance: { internalIP: inst.internalIP, externalIP: inst.externalIP },
    };
  });
}

export function followMachines(o: {
  fleet: { nodeNames(): string[]; setMachineDown(name: string, down: boolean): void };
  cloud: Cloudy;
  periodMs: number;
  logger: Logger;
}): { stop(): void } {
  const look = () => {
    try {
      const doc = o.cloud.file.read();
      for (const name of o.fleet.nodeNames()) {
        const inst = doc.instances[name];
        o.fleet.setMachineDown(name, !inst || inst.state !== 'running');
      }
    } catch (e) {
      o.logger.warn({ err: (e as Error).message }, 'could not read the simulated cloud; machines left as they were');
    }
  };
  look();
  const timer = setInterval(look, o.periodMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
