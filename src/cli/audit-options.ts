/**
 * The API server's audit flags (spec "Events": every row, with its type and default), their
 * established validation, and the resolved AuditConfig (src/apiserver/audit/config.ts): the policy
 * file parsed and the webhook's svcconfig file read at start, so a bad file stops the server with
 * a message naming the flag.
 *
 * As established, audit is on when a policy and at least one backend are given; a policy without
 * a backend, or a backend without a policy, records nothing and says so at start.
 * --audit-dynamic-configuration (needs the DynamicAuditing gate, checked with the other gated
 * options, and the auditregistration.svc.io/v1alpha1 API, checked when the server builds its
 * registry) turns AuditSink objects into backends; audit is then on even without a policy file.
 */
import type { AuditMode, BatchOptions, TruncateOptions } from '../apiserver/audit/backend.js';
import type { AuditConfig } from '../apiserver/audit/config.js';
import { EVENT_API_VERSIONS } from '../apiserver/audit/event.js';
import { parsePolicy, PolicyError } from '../apiserver/audit/policy.js';
import { ClientConfigError, parseSvcconfigFile } from '../client/svcconfig.js';
import { OptionsError, readFlagFile } from './common-options.js';
import type { FlagSpec, FlagValue, FlagValues } from './option-table.js';

const MODES = ['batch', 'blocking', 'blocking-strict'] as const;

/** The audit rows of the API server's flag table. */
export function auditFlags(): FlagSpec[] {
  const flags: FlagSpec[] = [
    { flags: '--audit-policy-file', type: 'string', help: 'Path to the file that defines the audit policy configuration (audit.svc.io/v1 Policy; audit.k8s.io/v1 accepted).' },
    { flags: '--audit-log-path', type: 'string', help: 'If set, all requests coming to the apiserver will be logged to this file. - means standard out.' },
    { flags: '--audit-webhook-config-file', type: 'string', help: 'Path to a svcconfig formatted file that defines the audit webhook configuration.' },
    { flags: '--audit-log-format', type: 'string', default: 'json', choices: ['json', 'legacy'], help: 'Format of saved audits. "legacy": 1-line text format for each event. "json": structured json format.' },
    { flags: '--audit-log-maxage', type: 'int', help: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
    { flags: '--audit-log-maxbackup', type: 'int', help: 'The maximum number of old audit log files to retain.' },
    { flags: '--audit-log-maxsize', type: 'int', help: 'The maximum size in megabytes of the audit log file before it gets rotated (0: 100).' },
    { flags: '--audit-log-mode', type: 'string', default: 'blocking', choices: [...MODES], help: 'Strategy for sending audit events: batch (buffer and send asynchronously), blocking (the request waits for its events), blocking-strict (as blocking, and a failure to write the RequestReceived event fails the request).' },
    { flags: '--audit-webhook-mode', type: 'string', default: 'batch', choices: [...MODES], help: 'Strategy for sending audit events: batch, blocking or blocking-strict.' },
    { flags: '--audit-log-version', type: 'string', default: 'audit.svc.io/v1', help: 'API group and version used for serializing audit events written to log.' },
    { flags: '--audit-webhook-version', type: 'string', default: 'audit.svc.io/v1', help: 'API group and version used for serializing audit events written to webhook.' },
    { flags: '--audit-webhook-initial-backoff', type: 'duration', default: 10_000, help: 'The amount of time to wait before retrying the first failed request.' },
    { flags: '--audit-dynamic-configuration', type: 'bool', help: 'Enables dynamic audit configuration (AuditSink objects, auditregistration.svc.io/v1alpha1). This feature also requires the DynamicAuditing feature flag.' },
  ];
  for (const [sink, d] of [
    ['log', { buffer: 10000, maxSize: 1, maxWait: undefined, throttle: false, qps: undefined, burst: undefined }],
    ['webhook', { buffer: 10000, maxSize: 400, maxWait: 30_000, throttle: true, qps: 10, burst: 15 }],
  ] as const) {
    const p = `--audit-${sink}`;
    flags.push(
      { flags: `${p}-batch-buffer-size`, type: 'int', default: d.buffer, help: 'The size of the buffer to store events before batching and writing. Only used in batch mode.' },
      { flags: `${p}-batch-max-size`, type: 'int', default: d.maxSize, help: 'The maximum size of a batch. Only used in batch mode.' },
      { flags: `${p}-batch-max-wait`, type: 'duration', default: d.maxWait as FlagValue, help: 'The amount of time to wait before force writing the batch that hadn\'t reached the max size. Only used in batch mode.' },
      { flags: `${p}-batch-throttle-enable`, type: 'bool', default: d.throttle, help: 'Whether batching throttling is enabled. Only used in batch mode.' },
      { flags: `${p}-batch-throttle-qps`, type: 'float32', default: d.qps as FlagValue, help: 'Maximum average number of batches per second. Only used in batch mode.' },
      { flags: `${p}-batch-throttle-burst`, type: 'int', default: d.burst as FlagValue, help: 'Maximum number of requests sent at the same moment if ThrottleQPS was not utilized before. Only used in batch mode.' },
      { flags: `${p}-truncate-enabled`, type: 'bool', help: 'Whether event and batch truncating is enabled.' },
      { flags: `${p}-truncate-max-batch-size`, type: 'int', default: 10485760, help: 'Maximum size of the batch sent to the underlying backend. If a batch exceeds this limit, it is split into several batches of smaller size.' },
      { flags: `${p}-truncate-max-event-size`, type: 'int', default: 102400, help: 'Maximum size of the audit event sent to the underlying backend. If the size of an event is greater than this number, first request and response are removed, and if this doesn\'t reduce the size enough, event is discarded.' },
    );
  }
  return flags;
}

/** The audit flags resolved (files named, not read yet). */
export interface AuditFlagOptions {
  policyFile?: string;
  /** --audit-dynamic-configuration. */
  dynamic?: boolean;
  log?: Omit<NonNullable<AuditConfig['log']>, never>;
  webhook?: Omit<NonNullable<AuditConfig['webhook']>, 'client'> & { configFile: string };
}

function sinkOptions(f: FlagValues, sink: 'log' | 'webhook', fail: (m: string) => never): { mode: AuditMode; batch: BatchOptions; truncate: TruncateOptions; apiVersion: string } {
  const p = `--audit-${sink}`;
  const mode = f.string(`${p}-mode`) as AuditMode;
  const batch: BatchOptions = {
    bufferSize: f.number(`${p}-batch-buffer-size`),
    maxBatchSize: f.number(`${p}-batch-max-size`),
    maxBatchWaitMs: f.number(`${p}-batch-max-wait`),
    throttleEnable: f.bool(`${p}-batch-throttle-enable`),
    throttleQps: f.number(`${p}-batch-throttle-qps`),
    throttleBurst: f.number(`${p}-batch-throttle-burst`),
  };
  // The established checks (AuditBatchOptions.Validate), only where batching is used.
  if (mode === 'batch') {
    if (batch.bufferSize <= 0) fail(`invalid audit batch ${sink} buffer size ${batch.bufferSize}, must be a positive number`);
    if (batch.maxBatchSize <= 0) fail(`invalid audit batch ${sink} max batch size ${batch.maxBatchSize}, must be a positive number`);
    if (batch.throttleEnable && batch.throttleQps <= 0) fail(`invalid audit batch ${sink} throttle QPS ${batch.throttleQps}, must be a positive number`);
    if (batch.throttleEnable && batch.throttleBurst <= 0) fail(`invalid audit batch ${sink} throttle burst ${batch.throttleBurst}, must be a positive number`);
  }
  const truncate: TruncateOptions = {
    enabled: f.bool(`${p}-truncate-enabled`),
    maxBatchSize: f.number(`${p}-truncate-max-batch-size`),
    maxEventSize: f.number(`${p}-truncate-max-event-size`),
  };
  if (truncate.enabled) {
    if (truncate.maxEventSize <= 0) fail(`invalid audit truncate ${sink} max event size ${truncate.maxEventSize}, must be a positive number`);
    if (truncate.maxBatchSize <= 0) fail(`invalid audit truncate ${sink} max batch size ${truncate.maxBatchSize}, must be a positive number`);
    if (truncate.maxEventSize > truncate.maxBatchSize) fail(`invalid audit truncate ${sink} max event size ${truncate.maxEventSize}, must be not greater than batch size ${truncate.maxBatchSize}`);
  }
  const apiVersion = f.string(`${p}-version`);
  if (!(EVENT_API_VERSIONS as readonly string[]).includes(apiVersion)) fail(`invalid audit ${sink} version ${apiVersion}, not in [${EVENT_API_VERSIONS.join(' ')}]`);
  return { mode, batch, truncate, apiVersion };
}

/** Resolves and checks the audit flags; `warnings` gets the established notes about a half-configured audit. */
export function resolveAuditOptions(f: FlagValues, warnings: string[], fail: (m: string) => never): AuditFlagOptions {
  const out: AuditFlagOptions = {};
  const policyFile = f.optionalString('--audit-policy-file');
  if (policyFile) out.policyFile = policyFile;
  const path = f.optionalString('--audit-log-path');
  if (path) {
    for (const flag of ['--audit-log-maxage', '--audit-log-maxbackup', '--audit-log-maxsize']) {
      if (f.number(flag) < 0) fail(`${flag} ${f.number(flag)} can't be a negative number`);
    }
    out.log = {
      path,
      format: f.string('--audit-log-format') as 'json' | 'legacy',
      maxAgeDays: f.number('--audit-log-maxage'),
      maxBackups: f.number('--audit-log-maxbackup'),
      maxSizeMB: f.number('--audit-log-maxsize'),
      ...sinkOptions(f, 'log', fail),
    };
  }
  const configFile = f.optionalString('--audit-webhook-config-file');
  if (configFile) {
    const initialBackoffMs = f.number('--audit-webhook-initial-backoff');
    if (initialBackoffMs <= 0) fail(`invalid audit webhook initial backoff ${initialBackoffMs}ms, must be a positive duration`);
    out.webhook = { configFile, initialBackoffMs, ...sinkOptions(f, 'webhook', fail) };
  }
  if (f.bool('--audit-dynamic-configuration')) out.dynamic = true;
  if (policyFile && !out.log && !out.webhook && !out.dynamic) warnings.push('--audit-policy-file is set but no audit backend (--audit-log-path, --audit-webhook-config-file): no audit events are recorded');
  if (!policyFile && (out.log || out.webhook)) warnings.push('No audit policy file provided (--audit-policy-file), no events will be recorded');
  return out;
}

/** The AuditConfig with the files read; undefined when audit records nothing. */
export function readAuditConfig(o: AuditFlagOptions): AuditConfig | undefined {
  if (!o.dynamic && (!o.policyFile || (!o.log && !o.webhook))) return undefined;
  // Dynamic audit without a static policy: the static backends (if any) record nothing.
  let policy: AuditConfig['policy'] = { rules: [], omitStages: [], omitManagedFields: false };
  if (o.policyFile) {
    try {
      policy = parsePolicy(readFlagFile('--audit-policy-file', o.policyFile), o.policyFile);
    } catch (err) {
      if (err instanceof PolicyError) throw new OptionsError(`--audit-policy-file: ${err.message}`);
      throw err;
    }
  }
  const out: AuditConfig = { policy, ...(o.dynamic ? { dynamic: true } : {}) };
  if (o.log) out.log = { ...o.log };
  if (o.webhook) {
    const { configFile, ...rest } = o.webhook;
    try {
      out.webhook = { ...rest, client: parseSvcconfigFile(configFile) };
    } catch (err) {
      if (err instanceof ClientConfigError) throw new OptionsError(`--audit-webhook-config-file: ${err.message}`);
      throw err;
    }
  }
  return out;
}
