/**
 * `svc nodes`: simulated nodes against any API server (docs/simulated-nodes.md).
 *
 *   svc nodes --count N [--profile FILE] [node shape and timing flags] (--master URL | --svcconfig FILE)
 *       runs N simulated nodes (or the profile's) until SIGTERM/SIGINT;
 *   svc nodes fault NODE FAULT... (--master | --svcconfig)
 *       adds faults to a node (its `sim.svc.io/faults` annotation), which its agent then shows;
 *   svc nodes recover NODE [FAULT...] (--master | --svcconfig)
 *       removes the named faults, or all of them.
 *
 * The flags that shape nodes (`--count`, `--cpu` ...) make one group; `--profile` (YAML, see
 * src/nodes/node-shape.ts) gives several and wins over them. `svc up --nodes N` runs the same fleet
 * in process.
 */
import { hostname } from 'node:os';
import { Command } from 'commander';
import { apiClientFlags, resolveApiClientOptions } from './controller-host-options.js';
import { connectFromFlags } from './controller-host-process.js';
import { loggingFlags, OptionsError, readFlagFile, resolveLoggingOptions } from './common-options.js';
import { createLogger } from './logging.js';
import { addFlags, explicitlySetFlags, FlagValues, type FlagSpec } from './option-table.js';
import { superviseDaemon, type DaemonStartContext, type RunningDaemon } from './program.js';
import { versionLine } from './version.js';

/** The flags that shape nodes and time their agents, shared with `svc up`. */
export function nodeFleetFlags(countDefault: number, countFlag = '--count'): FlagSpec[] {
  return [
    { flags: countFlag, type: 'int', default: countDefault, help: 'How many simulated nodes to run (with the shape flags below; --node-profile/--profile wins).' },
    { flags: '--node-name-prefix', type: 'string', default: 'sim-node', help: 'Simulated nodes are named <prefix>-0, <prefix>-1, ...' },
    { flags: '--node-cpu', type: 'string', default: '4', help: 'CPU capacity of each simulated node (a quantity).' },
    { flags: '--node-memory', type: 'string', default: '32Gi', help: 'Memory capacity of each simulated node (a quantity).' },
    { flags: '--node-pods', type: 'string', default: '110', help: 'Pod capacity of each simulated node.' },
    { flags: '--node-ephemeral-storage', type: 'string', default: '100Gi', help: 'Ephemeral-storage capacity of each simulated node (a quantity).' },
    { flags: '--node-zones', type: 'stringSlice', default: ['zone-a', 'zone-b', 'zone-c'], help: 'Zones the simulated nodes are spread over, round-robin (label topology.svc.io/zone).' },
    { flags: '--pod-usage', type: 'float', default: 0, help: 'Fraction of its requests a running pod uses when it has no sim.svc.io/cpu-usage or memory-usage annotation, reported as PodMetrics and NodeMetrics (metrics.svc.io); 0: only annotated pods report usage.' },
    { flags: '--image-pull-delay', type: 'duration', default: 500, help: 'Simulated image pull before a pod\'s containers start.' },
    { flags: '--container-start-delay', type: 'duration', default: 200, help: 'Simulated container start after the pull.' },
    { flags: '--container-stop-delay', type: 'duration', default: 1_000, help: 'How long a simulated container takes to stop on SIGTERM (never longer than the pod\'s grace period; per pod: annotations sim.svc.io/stop-seconds and sim.svc.io/ignore-sigterm).' },
    { flags: '--crash-loop-back-off', type: 'duration', default: 10_000, help: 'First back-off before restarting an exited container; doubles per restart up to --crash-loop-max-back-off.' },
    { flags: '--crash-loop-max-back-off', type: 'duration', default: 300_000, help: 'Longest back-off before restarting an exited container.' },
    { flags: '--node-lease-renew-interval', type: 'duration', default: 10_000, help: 'How often each node renews its Lease in svc-node-lease (±10% jitter).' },
    { flags: '--node-status-update-frequency', type: 'duration', default: 60_000, help: 'How often each node writes its status when nothing changed (±10% jitter).' },
    { flags: '--node-write-concurrency', type: 'int', default: 32, help: 'Status, lease and pod writes of the whole fleet in flight at most.' },
    // Defaults as src/nodes/fleet.ts DEFAULT_EVENT_QPS/BURST (not imported: --help must not load the fleet).
    { flags: '--node-event-qps', type: 'float', default: 25, help: 'Events (Pulling, Started, Killing ...) the whole fleet records per second at most; past it and the burst they are dropped. 0: no limit.' },
    { flags: '--node-event-burst', type: 'int', default: 250, help: 'Events the whole fleet may record at once before --node-event-qps applies.' },
    { flags: '--node-agent-address', type: 'string', default: '127.0.0.1', help: 'Address the simulated nodes\' agent endpoint (container logs for the API server) listens on.' },
    { flags: '--node-agent-port', type: 'int', default: 0, help: 'Port of that endpoint (0: any free port); published in each Node\'s status.daemonEndpoints.' },
    { flags: '--node-agent-hostname', type: 'string', help: 'The host the API server dials for that endpoint, published as each Node\'s Hostname address (default: --node-agent-address, or this machine\'s hostname when that is 0.0.0.0 or ::).' },
  ];
}

/** The fleet's shapes and timings from the flags above (and the profile file flag, when given). */
export async function resolveNodeFleetFlags(opts: Record<string, unknown>, countFlag: string, profileFlag: string) {
  const { groupFromFlags, nodeShapes, parseNodeProfile, NodeProfileError } = await import('../nodes/index.js');
  const f = new FlagValues(opts);
  const profile = f.optionalString(profileFlag);
  let shapes;
  try {
    const groups = profile
      ? parseNodeProfile(readFlagFile(profileFlag, profile), profile)
      : [
          groupFromFlags({
            count: f.number(countFlag),
            namePrefix: f.string('--node-name-prefix'),
            cpu: f.string('--node-cpu'),
            memory: f.string('--node-memory'),
            pods: f.string('--node-pods'),
            ephemeralStorage: f.string('--node-ephemeral-storage'),
            zones: f.list('--node-zones'),
            podUsage: f.number('--pod-usage'),
          }),
        ];
    shapes = nodeShapes(groups);
  } catch (e) {
    if (e instanceof NodeProfileError) throw new OptionsError(profile ? `${profileFlag}: ${e.message}` : `invalid node shape: ${e.message.replace(/^flags\.podUsage/, '--pod-usage').replace(/^flags\./, '--node-')}`);
    throw e;
  }
  const positive = (flag: string) => {
    const v = f.number(flag);
    if (v <= 0) throw new OptionsError(`invalid value for ${flag}: must be greater than 0`);
    return v;
  };
  const timings = {
    imagePullMs: f.number('--image-pull-delay'),
    containerStartMs: f.number('--container-start-delay'),
    backoffBaseMs: positive('--crash-loop-back-off'),
    backoffMaxMs: positive('--crash-loop-max-back-off'),
    containerStopMs: f.number('--container-stop-delay'),
    leaseRenewMs: positive('--node-lease-renew-interval'),
    statusReportMs: positive('--node-status-update-frequency'),
  };
  const writeConcurrency = f.number('--node-write-concurrency');
  if (writeConcurrency < 1) throw new OptionsError('invalid value for --node-write-concurrency: must be at least 1');
  const eventQps = f.number('--node-event-qps');
  const eventBurst = f.number('--node-event-burst');
  if (eventQps < 0) throw new OptionsError('invalid value for --node-event-qps: must not be negative');
  if (eventBurst < 1) throw new OptionsError('invalid value for --node-event-burst: must be at least 1');
  const agentAddress = f.string('--node-agent-address');
  const agentPort = f.number('--node-agent-port');
  if (!Number.isInteger(agentPort) || agentPort < 0 || agentPort > 65535) throw new OptionsError('invalid value for --node-agent-port: must be 0 to 65535');
  const anyAddress = agentAddress === '0.0.0.0' || agentAddress === '::' || agentAddress === '';
  const agentHostname = f.optionalString('--node-agent-hostname') ?? (anyAddress ? hostname() : agentAddress);
  return { shapes, timings, writeConcurrency, eventQps, eventBurst, agent: { address: agentAddress, port: agentPort, hostname: agentHostname } };
}

/**
 * Starts the fleet's node-agent endpoint (a fresh self-signed certificate: the API server does not
 * check it unless given --svclet-certificate-authority) and then the fleet, which publishes it.
 */
export async function startFleetWithEndpoint(
  resolved: Awaited<ReturnType<typeof resolveNodeFleetFlags>>,
  options: Omit<import('../nodes/index.js').NodeFleetOptions, 'shapes' | 'timings' | 'writeConcurrency' | 'eventQps' | 'eventBurst' | 'endpoint'>,
): Promise<{ fleet: import('../nodes/index.js').NodeFleet; close(): Promise<void> }> {
  const { NodeFleet, startSvcletServer, reviewingAuthorizer } = await import('../nodes/index.js');
  const { generateSelfSignedPair } = await import('./tls.js');
  const { agent } = resolved;
  const pair = await generateSelfSignedPair([agent.hostname, ...(agent.address && agent.address !== agent.hostname ? [agent.address] : []), 'localhost', '127.0.0.1']);
  let fleet: import('../nodes/index.js').NodeFleet | undefined;
  const server = await startSvcletServer({
    lookup: (namespace, name) => fleet?.findPod(namespace, name),
    // Projected volume files (tokens among them) only for users the API server allows nodes/proxy.
    volumes: (namespace, name) => fleet?.findPodVolumes(namespace, name),
    authorizeVolumeRead: reviewingAuthorizer((node) => (node && options.clientFor ? options.clientFor(node) : options.client)),
    key: pair.key,
    cert: pair.cert,
    host: agent.address,
    port: agent.port,
    logger: options.logger.child({ module: 'node-agent-endpoint' }),
  });
  fleet = new NodeFleet({
    ...options,
    shapes: resolved.shapes,
    timings: resolved.timings,
    writeConcurrency: resolved.writeConcurrency,
    eventQps: resolved.eventQps,
    eventBurst: resolved.eventBurst,
    endpoint: { host: agent.hostname, port: server.port },
  });
  fleet.start();
  const started = fleet;
  return {
    fleet: started,
    async close() {
      await started.stop();
      await server.close();
    },
  };
}

function newCommand(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .helpOption('-h, --help', 'Print help.')
    .allowExcessArguments(false)
    .configureHelp({ sortOptions: true, optionDescription: (opt) => (opt.defaultValueDescription ? `${opt.description} (default: ${opt.defaultValueDescription})` : opt.description) })
    .exitOverride();
}

export function nodesCommand(): Command {
  const cmd = newCommand('nodes', 'Runs simulated nodes (node agents whose pods really run, simulated) against an API server; "fault" and "recover" change a running node\'s faults.')
    .version(versionLine(), '--version', 'Print version and quit.')
    .showHelpAfterError('(run "svc nodes --help" to list the flags)')
    // `svc nodes fault NODE ... --svcconfig F`: flags after a subcommand are the subcommand's.
    .enablePositionalOptions();
  addFlags(cmd, [
    ...nodeFleetFlags(3),
    { flags: '--profile', type: 'string', help: 'A YAML file of node groups (see docs/simulated-nodes.md); wins over --count and the shape flags.' },
    // The fleet's writes are bounded by --node-write-concurrency; a QPS limit would only slow heartbeats down.
    { flags: '--svc-api-qps', type: 'float32', default: 0, help: 'Queries per second to the API server (0: no limit; the fleet bounds its writes with --node-write-concurrency).' },
    { flags: '--svc-api-burst', type: 'int32', default: 100, help: 'Burst to the API server (with --svc-api-qps above 0).' },
    {
      flags: '--node-identity',
      type: 'string',
      default: 'shared',
      choices: ['shared', 'impersonate'],
      help: "Who each node's writes are made as. shared: the credential of --svcconfig/--master for every node. impersonate: each node acts as system:node:<name> in system:nodes (Impersonate-User/-Group headers on the one connection), as the Node authorizer and NodeRestriction expect; the credential must be allowed to impersonate those users and that group, and to list and watch pods and nodes (the fleet's shared informers).",
    },
    {
      flags: '--cloud-provider',
      type: 'string',
      help: 'The cloud the nodes\' machines are in: "cloudy" (the simulated cloud, with --cloud-config). Each node then runs on an instance of it, registers with the node.cloudprovider.svc.io/uninitialized taint for the cloud controller manager to initialise, and goes silent while its instance is stopped or deleted. Empty: no cloud.',
    },
    { flags: '--cloud-config', type: 'string', help: 'The simulated cloud\'s file (the same as the cloud controller manager\'s --cloud-config).' },
    ...apiClientFlags(),
    ...loggingFlags(),
  ]);
  cmd.action(async (_opts: unknown, self: Command) => {
    await superviseDaemon({ program: self, start: startNodes });
  });
  cmd.addCommand(faultCommand('fault', 'Adds faults to a simulated node: FAULT is one of stop-heartbeats, not-ready, memory-pressure, disk-pressure, pid-pressure, network-unavailable, crash.'));
  cmd.addCommand(faultCommand('recover', 'Removes the named faults from a simulated node (all of them when none is named).'));
  return cmd;
}

async function startNodes(program: Command, ctx: DaemonStartContext): Promise<RunningDaemon> {
  const opts = program.opts();
  const logging = resolveLoggingOptions(opts);
  const clientOptions = resolveApiClientOptions(opts);
  const resolved = await resolveNodeFleetFlags(opts, '--count', '--profile');
  if (explicitlySetFlags(program).has('--profile') && explicitlySetFlags(program).has('--count')) {
    throw new OptionsError('--count and --profile both set: the profile says how many nodes; leave --count out');
  }
  const logger = createLogger('svc-nodes', logging);
  ctx.setLogger(logger);
  const { createInformerFactory } = await import('../client/index.js');
  const connection = await connectFromFlags(clientOptions, 'svc-nodes');
  const informers = createInformerFactory(connection.client, { logger: logger.child({ module: 'informer' }) });
  const f = new FlagValues(opts);
  const clientFor = await nodeClients(f.string('--node-identity'), connection.transport);
  // On a cloud: machines first (the nodes take their addresses), then the fleet, then following the machines.
  const cloud = await nodesCloud(f);
  if (cloud) resolved.shapes = await (await import('../nodes/cloud-machines.js')).onCloud(resolved.shapes, cloud, resolved.agent.hostname);
  const fleet = await startFleetWithEndpoint(resolved, { client: connection.client, informers, logger, version: versionLine().split(' ')[1] ?? 'v0.0.0', ...(clientFor ? { clientFor } : {}) });
  const machines = cloud ? (await import('../nodes/cloud-machines.js')).followMachines({ fleet: fleet.fleet, cloud, periodMs: MACHINE_CHECK_MS, logger }) : undefined;
  // Timers are unref'd: hold the process open until shutdown.
  const keepAlive = setInterval(() => {}, 1 << 30);
  return {
    async shutdown() {
      clearInterval(keepAlive);
      machines?.stop();
      await fleet.close();
      informers.stop();
      await connection.close();
    },
  };
}

/** How often the nodes look at their machines' state in the simulated cloud. */
const MACHINE_CHECK_MS = 1000;

/** The simulated cloud `svc nodes --cloud-provider=cloudy --cloud-config=F` runs its nodes in. */
async function nodesCloud(f: FlagValues): Promise<import('../cloud/cloudy/index.js').Cloudy | undefined> {
  const { Cloudy, CLOUDY } = await import('../cloud/cloudy/index.js');
  const provider = f.string('--cloud-provider');
  if (provider !== '' && provider !== CLOUDY) throw new OptionsError(`--cloud-provider: simulated nodes can run on the simulated cloud only ("${CLOUDY}"), not "${provider}"`);
  // The provider's own checks (the file required, its format), as the cloud controllers make them.
  const cloud = (await import('./cloud-provider-flags.js')).resolveCloudProvider(f);
  return cloud instanceof Cloudy ? cloud : undefined;
}

/**
 * `--node-identity=impersonate`: one client per node over the fleet's one transport, acting as
 * `system:node:<name>` in `system:nodes` (docs/security.md says why impersonation and not a
 * certificate per node). `shared`: none (every node writes as the fleet's credential).
 */
async function nodeClients(mode: string, transport: import('../client/index.js').Transport): Promise<((name: string) => import('../client/index.js').ApiClient) | undefined> {
  if (mode === 'shared') return undefined;
  if (mode !== 'impersonate') throw new OptionsError(`invalid value ${JSON.stringify(mode)} for --node-identity: expected shared or impersonate`);
  const { createClient } = await import('../client/index.js');
  const { NODES_GROUP, nodeUserName } = await import('../api/node-identity.js');
  return (name) => createClient(transport, { impersonate: { user: nodeUserName(name), groups: [NODES_GROUP] } });
}

const FAULT_TIMEOUT_MS = 30_000;

function faultCommand(name: 'fault' | 'recover', description: string): Command {
  const cmd = newCommand(name, description)
    .usage(`[flags] NODE ${name === 'fault' ? 'FAULT...' : '[FAULT...]'}`)
    .argument('<node>', 'the simulated node')
    .argument(name === 'fault' ? '<faults...>' : '[faults...]', 'faults');
  addFlags(cmd, apiClientFlags());
  return cmd.action(async (node: string, faults: string[], _opts: unknown, self: Command) => {
    const { checkFaultNames, nodeFaults, ANNOTATION_FAULTS } = await import('../nodes/index.js');
    const { connect, resources } = await import('../client/index.js');
    try {
      const named = checkFaultNames(faults);
      const o = resolveApiClientOptions(self.opts());
      const { client, close } = connect({ ...(o.master ? { master: o.master } : {}), ...(o.svcconfig ? { svcconfig: o.svcconfig } : {}), contentType: o.contentType, userAgent: 'svc-nodes' });
      // The client's retry timers do not hold the process open; this does, and bounds the wait.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the API server within ${FAULT_TIMEOUT_MS / 1000} s`)), FAULT_TIMEOUT_MS);
      });
      try {
        await Promise.race([change(), deadline]);
      } finally {
        clearTimeout(timer);
        await close();
      }
      async function change(): Promise<void> {
        const current = await client.get(resources.nodes, '', node);
        const set = nodeFaults(current.metadata.annotations).faults;
        if (name === 'fault') for (const f of named) set.add(f);
        else if (named.length === 0) set.clear();
        else for (const f of named) set.delete(f);
        const value = set.size ? [...set].sort().join(',') : null;
        await client.patch(resources.nodes, '', node, 'merge', { metadata: { annotations: { [ANNOTATION_FAULTS]: value } } });
        process.stdout.write(`${node}: faults ${value ?? 'none'}\n`);
      }
    } catch (e) {
      process.stderr.write(`svc nodes ${name}: error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    }
  });
}
