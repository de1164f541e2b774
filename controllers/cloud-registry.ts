/**
 * The cloud controller manager's controllers (spec: "Cloud-controller-manager-specific options",
 * `--controllers`: cloud-node, cloud-node-lifecycle, route, service; none off by default).
 * cloud-node is the cloud controller manager's alone; the other three are the same rows as the
 * controller manager's (./registry.ts), so both daemons run one implementation of each.
 */
import { BUILTIN_CONTROLLERS, cloudOnly, type BuiltinController } from './registry.js';
import { cloudNodeController } from './cloud-node/index.js';

function shared(name: string): BuiltinController {
  const row = BUILTIN_CONTROLLERS.find((c) => c.name === name);
  if (!row?.build) throw new Error(`controllers/registry.ts has no built row "${name}"`);
  return { ...row, defaultOn: true };
}

export const CLOUD_CONTROLLERS: readonly BuiltinController[] = [
  {
    name: 'cloud-node',
    defaultOn: true,
    summary: 'Initialises nodes registered with an external cloud provider: provider ID, addresses, zone, region and instance type, then lifts the uninitialized taint.',
    needsCloudProvider: true,
    build: (cfg) => cloudOnly(cfg, (cloud) => cloudNodeController({ cloud, statusUpdateFrequencyMs: cfg.nodeStatusUpdateFrequencyMs })),
  },
  shared('cloud-node-lifecycle'),
  shared('route'),
  shared('service'),
];
