/**
 * The `scheduler` daemon's flags (spec: "Scheduler-specific options", the shared leader-election,
 * API-client, listener, TLS and logging tables, and the delegated authentication flags) and how
 * they combine with `--config` into one effective `SchedulerConfiguration`: flag (when given) >
 * file > default. Deprecated flags still work and each use logs a deprecation warning; the legacy
 * policy and `--algorithm-provider` replace the profiles with their translation.
 */
import type { Command } from 'commander';
import { formatDuration, parseDurationMs } from '../api/duration.js';
import { leaderElectionConfig, LeaderElectionConfigError, type LockType } from '../runtime/leader-election/config.js';
import {
  ALGORITHM_PROVIDERS, configurationFromObject, DEFAULT_INSECURE_PORT, DEFAULT_LOCK_NAME, DEFAULT_LOCK_NAMESPACE, DEFAULT_SCHEDULER_NAME,
  defaultConfiguration, parseConfigurationFile, parseLegacyPolicy, profileFromAlgorithmProvider, profileFromPolicy, SchedulerConfigError,
  type AlgorithmProvider, type SchedulerConfiguration, type SchedulerFeatures,
} from '../scheduler/config/index.js';
import { OptionsError, readFlagFile, resolveCommonOptions, type CommonOptions } from './common-options.js';
import { apiClientFlags, leaderElectionFlags } from './controller-host-options.js';
import { delegatedAuthFlags, resolveDelegatedAuthOptions, type DelegatedAuthOptions } from './delegated-auth-flags.js';
import { addFlags, FlagValues, type FlagSpec } from './option-table.js';
import { createDaemonProgram } from './program.js';

function schedulerFlags(): FlagSpec[] {
  return [
    { flags: '--config', type: 'string', help: 'Path to a configuration file (scheduler.config.svc.io/v1beta1 SchedulerConfiguration). Flags override file values.' },
    { flags: '--write-config-to', type: 'string', help: 'Write effective configuration to this file and exit.' },
    { flags: '--scheduler-name', type: 'string', default: DEFAULT_SCHEDULER_NAME, deprecated: true, help: 'Pods whose spec.schedulerName matches are handled.' },
    { flags: '--algorithm-provider', type: 'string', choices: ALGORITHM_PROVIDERS, deprecated: true, help: `One of ${ALGORITHM_PROVIDERS.join(', ')}.` },
    {
      flags: '--hard-pod-affinity-symmetric-weight',
      type: 'int32',
      default: 1,
      deprecated: true,
      help: 'Weight of the implicit preferred affinity rule for every required affinity rule. Range 0-100. Moved into the policy file.',
    },
    { flags: '--policy-config-file', type: 'string', deprecated: true, help: 'Policy file, used when no policy ConfigMap is given or --use-legacy-policy-config=true.' },
    {
      flags: '--policy-configmap',
      type: 'string',
      deprecated: true,
      help: 'ConfigMap with the policy under data key policy.cfg. It must exist before start when --use-legacy-policy-config=false.',
    },
    { flags: '--policy-configmap-namespace', type: 'string', default: 'svc-system', deprecated: true, help: 'Namespace of the policy ConfigMap.' },
    { flags: '--use-legacy-policy-config', type: 'bool', deprecated: true, help: 'When true, ignore the ConfigMap and use the file.' },
    { flags: '--lock-object-name', type: 'string', default: DEFAULT_LOCK_NAME, deprecated: true, help: 'Replaced by --leader-elect-resource-name.' },
    { flags: '--lock-object-namespace', type: 'string', default: DEFAULT_LOCK_NAMESPACE, deprecated: true, help: 'Replaced by --leader-elect-resource-namespace.' },
    { flags: '--port', type: 'int', default: DEFAULT_INSECURE_PORT, deprecated: true, help: 'Plain HTTP port for /healthz, /metrics and the debug pages, with no authentication or authorization. 0 disables it.' },
    { flags: '--address', type: 'ip', default: '0.0.0.0', deprecated: true, help: 'Listen address for --port.' },
  ];
}

/** The scheduler's API client rows: the shared table with the scheduler's defaults and deprecations. */
function schedulerClientFlags(): FlagSpec[] {
  return apiClientFlags().map((row) => {
    if (row.flags === '--svc-api-qps') return { ...row, default: 50, deprecated: true };
    if (row.flags === '--svc-api-burst') return { ...row, default: 100, deprecated: true };
    if (row.flags === '--svcconfig' || row.flags === '--svc-api-content-type') return { ...row, deprecated: true };
    return row;
  });
}

export function createSchedulerProgram(): Command {
  const cmd = createDaemonProgram({
    component: 'scheduler',
    description:
      'Places pods on nodes, weighing resource requirements, constraints, affinity and anti-affinity, data locality and priorities (with preemption); says why a pod is pending at /debug/scheduler/pods/<namespace>/<name>.',
  });
  return addFlags(cmd, [...leaderElectionFlags(DEFAULT_LOCK_NAME), ...schedulerClientFlags(), ...schedulerFlags(), ...delegatedAuthFlags('scheduler')]);
}

/** Where the legacy policy comes from, when one is used. */
export type LegacyPolicySource = { kind: 'file'; path: string } | { kind: 'configmap'; namespace: string; name: string };

export interface SchedulerDaemonOptions {
  common: CommonOptions;
  /** The effective configuration (file, then flags; a legacy policy file already applied). */
  configuration: SchedulerConfiguration;
  writeConfigTo?: string;
  master?: string;
  /** A legacy policy in a ConfigMap: read with the client at start, then applied. */
  policyConfigMap?: { namespace: string; name: string };
  /** The plain HTTP listener (deprecated --port/--address); port 0: none. */
  insecure: { port: number; address: string };
  features: SchedulerFeatures;
  /** The secure port's delegated authentication and authorization. */
  delegatedAuth: DelegatedAuthOptions;
  /** Deprecation warnings to log once the logger exists. */
  warnings: string[];
}

function setIf(set: Set<string>, flag: string, apply: () => void): void {
  if (set.has(flag)) apply();
}

/** Reads the flags (and the --config file) into the daemon's options; throws OptionsError naming the flag or field. */
export function resolveSchedulerOptions(opts: Record<string, unknown>, set: Set<string>): SchedulerDaemonOptions {
  const f = new FlagValues(opts);
  const common = resolveCommonOptions(opts, 'scheduler');
  const warnings: string[] = [];
  for (const flag of set) {
    if (DEPRECATED.has(flag)) warnings.push(`${flag} is deprecated${DEPRECATED.get(flag)}`);
  }
  let cfg: SchedulerConfiguration;
  const configPath = f.optionalString('--config');
  try {
    cfg = configPath ? parseConfigurationFile(readFlagFile('--config', configPath), configPath) : defaultConfiguration();

    // Leader election: the flag when given, else the deprecated alias when given, else the file.
    const le = cfg.leaderElection;
    setIf(set, '--leader-elect', () => (le.leaderElect = f.bool('--leader-elect')));
    setIf(set, '--leader-elect-lease-duration', () => (le.leaseDuration = formatDuration(f.number('--leader-elect-lease-duration'))));
    setIf(set, '--leader-elect-renew-deadline', () => (le.renewDeadline = formatDuration(f.number('--leader-elect-renew-deadline'))));
    setIf(set, '--leader-elect-retry-period', () => (le.retryPeriod = formatDuration(f.number('--leader-elect-retry-period'))));
    setIf(set, '--leader-elect-resource-lock', () => (le.resourceLock = f.string('--leader-elect-resource-lock')));
    setIf(set, '--lock-object-name', () => (le.resourceName = f.string('--lock-object-name')));
    setIf(set, '--lock-object-namespace', () => (le.resourceNamespace = f.string('--lock-object-namespace')));
    setIf(set, '--leader-elect-resource-name', () => (le.resourceName = f.string('--leader-elect-resource-name')));
    setIf(set, '--leader-elect-resource-namespace', () => (le.resourceNamespace = f.string('--leader-elect-resource-namespace')));

    const cc = cfg.clientConnection;
    setIf(set, '--svcconfig', () => (cc.svcconfig = f.string('--svcconfig')));
    setIf(set, '--svc-api-qps', () => (cc.qps = f.number('--svc-api-qps')));
    setIf(set, '--svc-api-burst', () => (cc.burst = f.number('--svc-api-burst')));
    setIf(set, '--svc-api-content-type', () => (cc.contentType = f.string('--svc-api-content-type')));
    setIf(set, '--profiling', () => (cfg.enableProfiling = f.bool('--profiling')));
    setIf(set, '--contention-profiling', () => (cfg.enableContentionProfiling = f.bool('--contention-profiling')));
    if (set.has('--port') || set.has('--address')) {
      const port = f.number('--port');
      const addr = port === 0 ? '' : `${f.string('--address') || '0.0.0.0'}:${port}`;
      cfg.healthzBindAddress = addr;
      cfg.metricsBindAddress = addr;
    }

    // Legacy policy or algorithm provider: one profile translated from it.
    const schedulerName = set.has('--scheduler-name') ? f.string('--scheduler-name') : (cfg.profiles[0]?.schedulerName ?? DEFAULT_SCHEDULER_NAME);
    const policyFile = f.optionalString('--policy-config-file');
    const policyMap = f.optionalString('--policy-configmap');
    let policyConfigMap: SchedulerDaemonOptions['policyConfigMap'];
    if (policyFile && (f.bool('--use-legacy-policy-config') || !policyMap)) {
      const text = readFlagFile('--policy-config-file', policyFile);
      cfg.profiles = [profileFromPolicy(parseLegacyPolicy(text, policyFile), schedulerName, policyFile)];
      warnings.push('the legacy policy is deprecated: it was translated onto plugins; write a --config file instead (see --write-config-to)');
    } else if (policyMap) {
      policyConfigMap = { namespace: f.string('--policy-configmap-namespace'), name: policyMap };
    } else if (set.has('--algorithm-provider')) {
      cfg.profiles = [profileFromAlgorithmProvider(f.string('--algorithm-provider') as AlgorithmProvider, schedulerName)];
    } else if (set.has('--scheduler-name')) {
      cfg.profiles[0] = { ...cfg.profiles[0]!, schedulerName };
    }
    if (set.has('--hard-pod-affinity-symmetric-weight')) {
      const w = f.number('--hard-pod-affinity-symmetric-weight');
      if (w < 0 || w > 100) throw new OptionsError(`invalid value ${w} for --hard-pod-affinity-symmetric-weight: must be between 0 and 100`);
      cfg.profiles = cfg.profiles.map((p) => withPluginArgs(p, 'InterPodAffinity', { hardPodAffinityWeight: w }));
    }
    const features = schedulerFeatures(common.featureGates);
    cfg = applyFeatureGates(cfg, features);
    // The effective configuration must read back as a file: that checks every combined value.
    cfg = configurationFromObject(JSON.parse(JSON.stringify(cfg)));
    try {
      leaderElectionConfig({
        lockType: cfg.leaderElection.resourceLock as LockType,
        resourceName: cfg.leaderElection.resourceName || 'x',
        resourceNamespace: cfg.leaderElection.resourceNamespace,
        leaseDurationMs: parseDurationMs(cfg.leaderElection.leaseDuration)!,
        renewDeadlineMs: parseDurationMs(cfg.leaderElection.renewDeadline)!,
        retryPeriodMs: parseDurationMs(cfg.leaderElection.retryPeriod)!,
      });
    } catch (e) {
      if (e instanceof LeaderElectionConfigError) throw new OptionsError(e.message);
      throw e;
    }
    const out: SchedulerDaemonOptions = {
      common,
      configuration: cfg,
      insecure: insecureListener(cfg.healthzBindAddress),
      features,
      delegatedAuth: resolveDelegatedAuthOptions(opts),
      warnings,
    };
    const writeTo = f.optionalString('--write-config-to');
    if (writeTo) out.writeConfigTo = writeTo;
    const master = f.optionalString('--master');
    if (master) out.master = master;
    if (policyConfigMap) out.policyConfigMap = policyConfigMap;
    if (!out.writeConfigTo && !master && !cfg.clientConnection.svcconfig) {
      throw new OptionsError('no API server given: pass --svcconfig (a client configuration file), --master (the server address) or clientConnection.svcconfig in --config');
    }
    return out;
  } catch (e) {
    if (e instanceof SchedulerConfigError) throw new OptionsError(`invalid configuration: ${e.message}`);
    throw e;
  }
}

const DEPRECATED = new Map<string, string>([
  ['--scheduler-name', ': set profiles[].schedulerName in --config'],
  ['--algorithm-provider', ': enable and disable plugins in --config'],
  ['--hard-pod-affinity-symmetric-weight', ': set the InterPodAffinity plugin argument hardPodAffinityWeight in --config'],
  ['--policy-config-file', ': write a --config file'],
  ['--policy-configmap', ': write a --config file'],
  ['--policy-configmap-namespace', ''],
  ['--use-legacy-policy-config', ''],
  ['--lock-object-name', ': use --leader-elect-resource-name'],
  ['--lock-object-namespace', ': use --leader-elect-resource-namespace'],
  ['--port', ': serve on the secure port (--secure-port)'],
  ['--address', ': use --bind-address'],
  ['--svc-api-qps', ': set clientConnection.qps in --config'],
  ['--svc-api-burst', ': set clientConnection.burst in --config'],
  ['--svc-api-content-type', ': set clientConnection.contentType in --config'],
  ['--svcconfig', ': set clientConnection.svcconfig in --config'],
  ['--profiling', ': set enableProfiling in --config'],
  ['--contention-profiling', ': set enableContentionProfiling in --config'],
]);

function withPluginArgs(p: SchedulerConfiguration['profiles'][number], name: string, args: Record<string, unknown>): SchedulerConfiguration['profiles'][number] {
  const rest = (p.pluginConfig ?? []).filter((c) => c.name !== name);
  const old = (p.pluginConfig ?? []).find((c) => c.name === name)?.args ?? {};
  return { ...p, pluginConfig: [...rest, { name, args: { ...old, ...args } }] };
}

/** The feature gates that change scheduling (the others do not touch it). */
export function schedulerFeatures(gates: Readonly<Record<string, boolean>>): SchedulerFeatures {
  return {
    evenPodsSpread: gates['EvenPodsSpread'] !== false,
    podOverhead: gates['PodOverhead'] !== false,
    nonPreemptingPriority: gates['NonPreemptingPriority'] === true,
    resourceLimitsPriorityFunction: gates['ResourceLimitsPriorityFunction'] === true,
  };
}

/** EvenPodsSpread off removes PodTopologySpread; ResourceLimitsPriorityFunction on adds NodeResourceLimits (weight 1). */
export function applyFeatureGates(cfg: SchedulerConfiguration, features: SchedulerFeatures): SchedulerConfiguration {
  const profiles = cfg.profiles.map((p) => {
    const plugins = structuredClone(p.plugins ?? {});
    if (!features.evenPodsSpread) {
      for (const point of ['preFilter', 'filter', 'preScore', 'score'] as const) {
        const s = (plugins[point] ??= {});
        s.enabled = (s.enabled ?? []).filter((r) => r.name !== 'PodTopologySpread');
        s.disabled = [...(s.disabled ?? []), { name: 'PodTopologySpread' }];
      }
    }
    if (features.resourceLimitsPriorityFunction) {
      const s = (plugins.score ??= {});
      if (!(s.enabled ?? []).some((r) => r.name === 'NodeResourceLimits')) s.enabled = [...(s.enabled ?? []), { name: 'NodeResourceLimits', weight: 1 }];
    }
    return Object.keys(plugins).length > 0 ? { ...p, plugins } : p;
  });
  return { ...cfg, profiles };
}

function insecureListener(bind: string): { port: number; address: string } {
  if (!bind) return { port: 0, address: '' };
  const i = bind.lastIndexOf(':');
  const port = Number(bind.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new OptionsError(`invalid healthzBindAddress ${JSON.stringify(bind)}: expected <ip>:<port>`);
  return { port, address: bind.slice(0, i).replace(/^\[|\]$/g, '') || '0.0.0.0' };
}


