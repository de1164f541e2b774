/**
 * Flags of a process that hosts controllers (`svc run`, and the controller half of `svc up`):
 * the spec's "Leader election" and "API client options" tables and `--min-resync-period`, with
 * their validation. A bad value or combination throws `OptionsError` naming the flag.
 */
import { DEFAULT_MIN_RESYNC_PERIOD_MS } from '../../machines/controller.js';
import { JSON_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE } from '../client/body-codecs.js';
import { LEADER_ELECTION_DEFAULTS, leaderElectionConfig, LeaderElectionConfigError, LOCK_TYPES, type LeaderElectionConfig, type LockType } from '../runtime/leader-election/config.js';
import { OptionsError } from './common-options.js';
import { FlagValues, type FlagSpec } from './option-table.js';

/** Content types a client can send (`--svc-api-content-type`). */
export const CLIENT_CONTENT_TYPES = [PROTOBUF_MEDIA_TYPE, JSON_MEDIA_TYPE] as const;

/**
 * The "Leader election" rows. `defaultName` is the lock's name when --leader-elect-resource-name is
 * not given (`defaultNameText` says so in --help when it is computed later, e.g. from the modules).
 */
export function leaderElectionFlags(defaultName: string, defaultNameText?: string): FlagSpec[] {
  return [
    { flags: '--leader-elect', type: 'bool', default: true, help: 'Gain leadership before the main loop. For replicated components.' },
    {
      flags: '--leader-elect-lease-duration',
      type: 'duration',
      default: LEADER_ELECTION_DEFAULTS.leaseDurationMs,
      help: 'How long non-leaders wait after the last observed renewal before taking a lapsed slot.',
    },
    {
      flags: '--leader-elect-renew-deadline',
      type: 'duration',
      default: LEADER_ELECTION_DEFAULTS.renewDeadlineMs,
      help: 'Interval during which the leader tries to renew before it stops leading. Must be <= lease duration.',
    },
    {
      flags: '--leader-elect-resource-lock',
      type: 'string',
      default: LEADER_ELECTION_DEFAULTS.lockType,
      choices: LOCK_TYPES,
      help: `Lock object type: ${LOCK_TYPES.join(', ')}.`,
    },
    {
      flags: '--leader-elect-resource-name',
      type: 'string',
      default: defaultName,
      ...(defaultNameText !== undefined ? { defaultText: defaultNameText } : {}),
      help: 'Name of the lock object.',
    },
    { flags: '--leader-elect-resource-namespace', type: 'string', default: LEADER_ELECTION_DEFAULTS.resourceNamespace, help: 'Namespace of the lock object.' },
    {
      flags: '--leader-elect-retry-period',
      type: 'duration',
      default: LEADER_ELECTION_DEFAULTS.retryPeriodMs,
      help: 'Wait between acquisition or renewal attempts.',
    },
  ];
}

/** The "API client options" rows (non-scheduler defaults). */
export function apiClientFlags(): FlagSpec[] {
  return [
    { flags: '--master', type: 'string', help: 'API server address. Overrides the client-config file.' },
    { flags: '--svcconfig', type: 'string', help: 'Path to the client configuration file with credentials and server location.' },
    { flags: '--svc-api-qps', type: 'float32', default: 20, help: 'Queries per second to the API server.' },
    { flags: '--svc-api-burst', type: 'int32', default: 30, help: 'Burst to the API server.' },
    {
      flags: '--svc-api-content-type',
      type: 'string',
      default: PROTOBUF_MEDIA_TYPE,
      choices: CLIENT_CONTENT_TYPES,
      help: 'Content type of requests sent to the API server (JSON where a kind has no Protobuf form).',
    },
  ];
}

export function resyncFlags(): FlagSpec[] {
  return [
    {
      flags: '--min-resync-period',
      type: 'duration',
      default: DEFAULT_MIN_RESYNC_PERIOD_MS,
      help: 'Reflector resync is random between this and twice this. 0 turns resync off.',
    },
  ];
}

/** The leader-election settings a host needs; `enabled: false` runs controllers at once. */
export type LeaderElectionOptions =
  | { enabled: false }
  | ({ enabled: true } & Pick<
      LeaderElectionConfig,
      'lockType' | 'resourceName' | 'resourceNamespace' | 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs'
    >);

export interface ApiClientOptions {
  master?: string;
  svcconfig?: string;
  qps: number;
  burst: number;
  contentType: string;
}

/**
 * Reads and checks the leader-election flags (also when --leader-elect=false, so a typo does not
 * wait for the day it is switched on). An empty --leader-elect-resource-name stays '' for the
 * caller to fill in (`svc run` derives it from the modules it loads).
 */
export function resolveLeaderElectionOptions(opts: Record<string, unknown>): LeaderElectionOptions {
  const f = new FlagValues(opts);
  const settings = {
    lockType: f.string('--leader-elect-resource-lock') as LockType,
    resourceName: f.string('--leader-elect-resource-name'),
    resourceNamespace: f.string('--leader-elect-resource-namespace'),
    leaseDurationMs: f.number('--leader-elect-lease-duration'),
    renewDeadlineMs: f.number('--leader-elect-renew-deadline'),
    retryPeriodMs: f.number('--leader-elect-retry-period'),
  };
  try {
    leaderElectionConfig({ ...settings, resourceName: settings.resourceName || 'default' });
  } catch (e) {
    if (e instanceof LeaderElectionConfigError) throw new OptionsError(e.message);
    throw e;
  }
  return f.bool('--leader-elect') ? { enabled: true, ...settings } : { enabled: false };
}

export function resolveApiClientOptions(opts: Record<string, unknown>): ApiClientOptions {
  const f = new FlagValues(opts);
  const out: ApiClientOptions = { qps: f.number('--svc-api-qps'), burst: f.number('--svc-api-burst'), contentType: f.string('--svc-api-content-type') };
  if (out.burst < 1 && out.qps > 0) throw new OptionsError(`invalid value ${out.burst} for --svc-api-burst: must be at least 1 when --svc-api-qps is above 0`);
  const master = f.optionalString('--master');
  const svcconfig = f.optionalString('--svcconfig');
  if (!master && !svcconfig) throw new OptionsError('no API server given: pass --svcconfig (a client configuration file) or --master (the server address)');
  if (master) out.master = master;
  if (svcconfig) out.svcconfig = svcconfig;
  return out;
}

export function resolveMinResyncPeriod(opts: Record<string, unknown>): number {
  const ms = new FlagValues(opts).number('--min-resync-period');
  if (ms < 0) throw new OptionsError(`invalid value for --min-resync-period: must not be negative, e.g. --min-resync-period=12h0m0s`);
  return ms;
}
