/**
 * The `cloud-controller-manager` daemon's flags (spec: "Cloud-controller-manager-specific options"
 * and the shared leader-election, API-client, listener, TLS, logging and delegated authentication
 * tables) and their resolution. The cloud is required: without --cloud-provider there is nothing to
 * run (established: the daemon refuses to start).
 */
import type { Command } from 'commander';
import { CLOUD_CONTROLLERS } from '../../controllers/cloud-registry.js';
import { DEFAULT_CONTROLLER_MANAGER_CONFIG } from '../../controllers/config.js';
import { ControllerSelectionError, selectControllers } from '../../controllers/registry.js';
import { parseCidr } from '../api/net/ip-address.js';
import { DEFAULT_LB_SOURCE_CIDRS } from '../cloud/cloudy/index.js';
import { EXTERNAL_CLOUD_PROVIDER } from '../cloud/registry.js';
import { cloudProviderFlags, resolveCloudProvider } from './cloud-provider-flags.js';
import { OptionsError, resolveCommonOptions } from './common-options.js';
import {
  apiClientFlags,
  leaderElectionFlags,
  resolveApiClientOptions,
  resolveLeaderElectionOptions,
  resolveMinResyncPeriod,
  resyncFlags,
} from './controller-host-options.js';
import { concurrencyRow, controllersRow, of, SHARED_MANAGER_ROWS, type ControllerManagerOptions } from './controller-manager-options.js';
import { delegatedAuthFlags, resolveDelegatedAuthOptions } from './delegated-auth-flags.js';
import { addFlags, FlagValues, type FlagSpec } from './option-table.js';
import { createDaemonProgram } from './program.js';

export const DEFAULT_CLOUD_CONTROLLER_MANAGER_LOCK = 'cloud-controller-manager';
const S = 1000;
const NOT_YET = { honoured: false } as const;

/**
 * The table: the rows the controller manager has too come from its table (SHARED_MANAGER_ROWS,
 * concurrencyRow, `of` naming the controller); the rest are this daemon's own or mean something
 * else here (it allocates no CIDRs: --allocate-node-cidrs and --cluster-cidr only tell the route
 * controller which routes are its).
 */
function cloudControllerManagerFlags(): FlagSpec[] {
  const rows = SHARED_MANAGER_ROWS;
  return [
    controllersRow(CLOUD_CONTROLLERS.map((c) => c.name)),
    rows.controllerStartInterval,
    { flags: '--allocate-node-cidrs', type: 'bool', help: 'Pod CIDRs are allocated to nodes (by the controller manager\'s nodeipam): with --configure-cloud-routes, the route controller gives each a cloud route.' },
    { flags: '--cidr-allocator-type', type: 'string', default: 'RangeAllocator', ...NOT_YET, help: 'CIDR allocator type (this daemon allocates none: refused unless left at its default).' },
    { flags: '--cluster-cidr', type: 'string', help: 'Pod CIDR range (one, or two of different families, comma-separated): routes inside it are the route controller\'s.' },
    rows.clusterName,
    of('route', rows.configureCloudRoutes),
    ...cloudProviderFlags(),
    rows.externalCloudVolumePlugin,
    rows.useServiceAccountCredentials,
    { flags: '--cloud-provider-cloudy-l7lb-src-cidrs', type: 'cidrs', default: ['130.211.0.0/22', '35.191.0.0/16'], ...NOT_YET, help: 'CIDRs opened in the firewall for L7 load-balancer proxy and health checks (cloudy has no L7 load balancers: refused unless left at its default).' },
    { flags: '--cloud-provider-cloudy-lb-src-cidrs', type: 'cidrs', default: DEFAULT_LB_SOURCE_CIDRS, help: 'CIDRs opened for L4 load-balancer traffic and health checks (cloudy: each load balancer\'s health-check firewall rule).' },
    { flags: '--cloudx-container-registry-config', type: 'string', ...NOT_YET, help: 'Path to container registry configuration file (not used by this version: refused when set).' },
    { flags: '--node-status-update-frequency', type: 'duration', default: 5 * 60 * S, help: 'How often node status (addresses from the cloud) is updated (cloud-node).' },
    concurrencyRow('service'),
    of('cloud-node-lifecycle', rows.nodeMonitorPeriod),
    of('route', rows.routeReconciliationPeriod),
  ];
}

export function createCloudControllerManagerProgram(): Command {
  const cmd = createDaemonProgram({
    component: 'cloud-controller-manager',
    description:
      'Runs the cloud-specific control loops (cloud-node, cloud-node-lifecycle, route, service) against --cloud-provider, each a machine, behind one leader-election lock; /debug/machines shows them.',
  });
  return addFlags(cmd, [
    ...leaderElectionFlags(DEFAULT_CLOUD_CONTROLLER_MANAGER_LOCK),
    ...apiClientFlags(),
    ...resyncFlags(),
    ...cloudControllerManagerFlags(),
    ...delegatedAuthFlags('cloud-controller-manager'),
  ]);
}

/** The flags resolved (the shape of the controller manager's, so both host their controllers alike). */
export function resolveCloudControllerManagerOptions(opts: Record<string, unknown>): ControllerManagerOptions {
  const f = new FlagValues(opts);
  const common = resolveCommonOptions(opts, 'cloud-controller-manager');
  const provider = f.string('--cloud-provider');
  if (provider === '' || provider === EXTERNAL_CLOUD_PROVIDER) {
    throw new OptionsError(`--cloud-provider ${provider === '' ? 'is required' : `cannot be "${EXTERNAL_CLOUD_PROVIDER}" here`}: the cloud controller manager runs the controllers of a cloud (e.g. --cloud-provider=cloudy --cloud-config=cloud.json)`);
  }
  const cloud = resolveCloudProvider(f, { cloudyLbSourceCidrs: f.list('--cloud-provider-cloudy-lb-src-cidrs') });
  let selection;
  try {
    selection = selectControllers(f.list('--controllers'), { cloudProvider: true, list: CLOUD_CONTROLLERS });
  } catch (e) {
    if (e instanceof ControllerSelectionError) throw new OptionsError(`invalid value for --controllers: ${e.message}`);
    throw e;
  }
  const clusterCidrs = f.string('--cluster-cidr').split(',').map((c) => c.trim()).filter(Boolean);
  for (const c of clusterCidrs) if (!parseCidr(c)) throw new OptionsError(`invalid value "${c}" for --cluster-cidr: not a CIDR`);
  const allocate = f.bool('--allocate-node-cidrs');
  if (allocate && clusterCidrs.length === 0) throw new OptionsError('--allocate-node-cidrs needs --cluster-cidr (the routes inside it are the route controller\'s)');
  for (const flag of ['--node-monitor-period', '--route-reconciliation-period', '--node-status-update-frequency']) {
    if (f.number(flag) <= 0) throw new OptionsError(`invalid value for ${flag}: must be positive`);
  }
  if (f.number('--concurrent-service-syncs') < 1) throw new OptionsError(`invalid value ${f.number('--concurrent-service-syncs')} for --concurrent-service-syncs: must be at least 1`);
  const startIntervalMs = f.number('--controller-start-interval');
  if (startIntervalMs < 0) throw new OptionsError('invalid value for --controller-start-interval: must not be negative');
  return {
    selection,
    config: {
      ...DEFAULT_CONTROLLER_MANAGER_CONFIG,
      ...(cloud ? { cloud } : {}),
      allocateNodeCidrs: allocate,
      clusterCidrs,
      clusterName: f.string('--cluster-name'),
      configureCloudRoutes: f.bool('--configure-cloud-routes'),
      routeReconciliationPeriodMs: f.number('--route-reconciliation-period'),
      concurrentServiceSyncs: f.number('--concurrent-service-syncs'),
      nodeMonitorPeriodMs: f.number('--node-monitor-period'),
      nodeStatusUpdateFrequencyMs: f.number('--node-status-update-frequency'),
    },
    startIntervalMs,
    useServiceAccountCredentials: f.bool('--use-service-account-credentials'),
    common,
    client: resolveApiClientOptions(opts),
    leaderElection: resolveLeaderElectionOptions(opts),
    minResyncPeriodMs: resolveMinResyncPeriod(opts),
    delegatedAuth: resolveDelegatedAuthOptions(opts),
  };
}
