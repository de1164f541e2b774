/**
 * Flags shared by all four daemons: "Options common to all four", "TLS options (all four)", the
 * listener flags (--secure-port, --bind-address, with per-component defaults) and
 * --feature-gates ("Versioning" 4).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { featureGatesHelp, parseFeatureGates } from './feature-gates.js';
import { FlagValueError, parseTraceLocation, type NamedCertKey, type Severity } from './flag-types.js';
import type { LoggingOptions } from './logging.js';
import { addFlags, FlagValues, type FlagSpec } from './option-table.js';
import { mapCipherSuites, mapTlsMinVersion, TlsConfigError } from './tls.js';

export type Component = 'apiserver' | 'scheduler' | 'controller-manager' | 'cloud-controller-manager';

/** Default --secure-port per component (spec "Listeners"). */
export const SECURE_PORT_DEFAULT: Record<Component, number> = {
  apiserver: 6443,
  scheduler: 10259,
  'controller-manager': 10257,
  'cloud-controller-manager': 10258,
};

export function loggingFlags(): FlagSpec[] {
  return [
    { flags: '--add-dir-header', type: 'bool', help: 'Add the file directory to the log header.' },
    { flags: '--alsologtostderr', type: 'bool', help: 'Log to standard error as well as files.' },
    { flags: '--log-backtrace-at', type: 'traceLocation', default: ':0', help: 'On logging at file:N, emit a stack trace.' },
    { flags: '--log-dir', type: 'string', help: 'If non-empty, write log files here.' },
    { flags: '--log-file', type: 'string', help: 'If non-empty, use this log file.' },
    { flags: '--log-file-max-size', type: 'uint', default: 1800, help: 'Maximum log file size in megabytes. 0 means unlimited.' },
    { flags: '--log-flush-frequency', type: 'duration', default: 5000, help: 'Maximum interval between log flushes.' },
    {
      flags: '--logging-format',
      type: 'string',
      default: 'auto',
      choices: ['auto', 'text', 'json'],
      help: 'Format of the log lines on standard error: text (short human lines), json (pino JSON lines), or auto (text on a terminal, else json). Log files are always JSON. This project\'s addition.',
    },
    { flags: '--logtostderr', type: 'bool', default: true, help: 'Log to standard error instead of files.' },
    { flags: '--skip-headers', type: 'bool', help: 'Omit header prefixes in log messages.' },
    { flags: '--skip-log-headers', type: 'bool', help: 'Omit headers when opening log files.' },
    { flags: '--stderrthreshold', type: 'severity', default: 'ERROR', defaultText: '2', help: 'Logs at or above this go to standard error.' },
    { flags: '-v, --v', type: 'level', default: 0, help: 'Log verbosity number.' },
    { flags: '--vmodule', type: 'moduleSpec', help: 'Comma-separated pattern=N settings for per-file logging.' },
  ];
}

function diagnosticsFlags(component: Component): FlagSpec[] {
  const flags: FlagSpec[] = [
    {
      flags: '--profiling',
      type: 'bool',
      default: true,
      deprecated: component === 'scheduler',
      help: 'Enable profiling under host:port/debug/pprof/.',
    },
    {
      flags: '--contention-profiling',
      type: 'bool',
      default: component === 'scheduler',
      deprecated: component === 'scheduler',
      honoured: false,
      help: 'Enable lock contention profiling when profiling is on.',
    },
    {
      flags: '--http2-max-streams-per-connection',
      type: 'int',
      default: 0,
      defaultText: '',
      help: 'Stream limit given to HTTP/2 clients. 0 means the implementation default.',
    },
  ];
  if (component !== 'cloud-controller-manager') {
    flags.push({
      flags: '--show-hidden-metrics-for-version',
      type: 'string',
      honoured: false,
      help: 'Previous minor version <major>.<minor> whose hidden metrics are shown.',
    });
  }
  flags.push({
    flags: '--feature-gates',
    type: 'stringSlice',
    help: `A set of key=value pairs for alpha/experimental features. Options are:\n${featureGatesHelp()}`,
  });
  return flags;
}

function tlsFlags(component: Component): FlagSpec[] {
  return [
    {
      flags: '--cert-dir',
      type: 'string',
      default: component === 'apiserver' ? '/var/run/svc' : '',
      help: 'Directory for TLS certs. Ignored if cert and key files are given.',
    },
    {
      flags: '--tls-cert-file',
      type: 'string',
      help: 'Default x509 certificate (CA chain appended). Without cert and key files, a self-signed pair is generated into --cert-dir.',
    },
    { flags: '--tls-private-key-file', type: 'string', help: 'Matching private key.' },
    {
      flags: '--tls-cipher-suites',
      type: 'stringSlice',
      defaultText: 'implementation defaults',
      help: 'Allowed cipher suites, chosen from the TLS_ECDHE_*, TLS_RSA_* names of the TLS 1.0-1.2 families including AES CBC/GCM, CHACHA20_POLY1305, 3DES and RC4 variants. The insecure ones (RC4, 3DES, CBC with SHA-256) are refused.',
    },
    {
      flags: '--tls-min-version',
      type: 'string',
      choices: ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'],
      help: 'VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13. VersionTLS10 and VersionTLS11 are refused as insecure.',
    },
    {
      flags: '--tls-sni-cert-key',
      type: 'namedCertKey',
      defaultText: '[]',
      help: 'Cert and key paths, optionally followed by : and domain patterns (wildcards allowed), e.g. "example.crt,example.key" or "foo.crt,foo.key:*.foo.com,foo.com". Repeatable. Non-wildcard beats wildcard; explicit patterns beat extracted names.',
    },
  ];
}

function listenerFlags(component: Component): FlagSpec[] {
  const port = SECURE_PORT_DEFAULT[component];
  return [
    {
      flags: '--secure-port',
      type: 'int',
      default: port,
      help:
        component === 'apiserver'
          ? 'The port on which to serve HTTPS with authentication and authorization. It cannot be switched off with 0.'
          : 'The port on which to serve HTTPS with authentication and authorization. If 0, HTTPS is not served at all.',
    },
    {
      flags: '--bind-address',
      type: 'ip',
      default: '0.0.0.0',
      help: 'Listen address for the secure port. Blank, 0.0.0.0 or :: means all interfaces. Must be reachable by cluster and clients.',
    },
  ];
}

/** Every common flag row for `component` (logging, diagnostics, feature gates, TLS, listeners). */
export function commonFlags(component: Component): FlagSpec[] {
  return [...loggingFlags(), ...diagnosticsFlags(component), ...tlsFlags(component), ...listenerFlags(component)];
}

/** Registers the common flags on `cmd` (--version and -h/--help are set by createDaemonProgram). */
export function addCommonOptions(cmd: Command, component: Component): Command {
  return addFlags(cmd, commonFlags(component));
}

export interface TlsFlags {
  certDir: string;
  certFile?: string;
  keyFile?: string;
  cipherSuites: string[];
  minVersion?: string;
  sniCertKeys: NamedCertKey[];
}

export interface CommonOptions {
  component: Component;
  logging: LoggingOptions;
  /** Default true. */
  profiling: boolean;
  contentionProfiling: boolean;
  /** 0: node's default. */
  http2MaxStreamsPerConnection: number;
  showHiddenMetricsForVersion?: string;
  /** Every known gate. */
  featureGates: Record<string, boolean>;
  securePort: number;
  bindAddress: string;
  tls: TlsFlags;
}

/** A flag combination that is invalid; the message names the flag(s). */
export class OptionsError extends Error {}

/** The text of the file a flag names; an unreadable file is an OptionsError naming the flag. */
export function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new OptionsError(`${flag}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The logging flags (loggingFlags) as typed options; for commands that take only those. */
export function resolveLoggingOptions(opts: Record<string, unknown>): LoggingOptions {
  const f = new FlagValues(opts);
  const trace = f.string('--log-backtrace-at');
  const logging: LoggingOptions = {
    verbosity: f.number('--v'),
    vmodule: f.modules('--vmodule'),
    logToStderr: f.bool('--logtostderr'),
    alsoLogToStderr: f.bool('--alsologtostderr'),
    logFileMaxSizeMB: f.number('--log-file-max-size'),
    flushFrequencyMs: f.number('--log-flush-frequency'),
    skipHeaders: f.bool('--skip-headers'),
    skipLogHeaders: f.bool('--skip-log-headers'),
    addDirHeader: f.bool('--add-dir-header'),
    stderrThreshold: (f.string('--stderrthreshold') || 'ERROR') as Severity,
    format: (f.string('--logging-format') || 'auto') as 'auto' | 'text' | 'json',
  };
  const logFile = f.optionalString('--log-file');
  const logDir = f.optionalString('--log-dir');
  if (logFile) logging.logFile = logFile;
  if (logDir) logging.logDir = logDir;
  const backtraceAt = parseTraceLocation('--log-backtrace-at', trace || ':0');
  if (backtraceAt) logging.backtraceAt = backtraceAt;
  if (logging.flushFrequencyMs <= 0) {
    throw new OptionsError(`invalid value for --log-flush-frequency: must be greater than 0, e.g. --log-flush-frequency=5s`);
  }
  return logging;
}

/**
 * Turns commander's values (after addCommonOptions + parse) into typed common options, checking
 * what single-value parsers cannot: ranges per component, --tls-cert-file/--tls-private-key-file
 * pairing, cipher names and feature gates.
 */
export function resolveCommonOptions(opts: Record<string, unknown>, component: Component): CommonOptions {
  const f = new FlagValues(opts);
  const logging = resolveLoggingOptions(opts);

  const securePort = f.number('--secure-port');
  if (securePort < 0 || securePort > 65535) {
    throw new OptionsError(`invalid value ${securePort} for --secure-port: must be between 1 and 65535`);
  }
  if (securePort === 0 && component === 'apiserver') {
    throw new OptionsError('invalid value 0 for --secure-port: the API server always serves HTTPS; choose a port between 1 and 65535 (default 6443)');
  }
  const http2 = f.number('--http2-max-streams-per-connection');
  if (http2 < 0) throw new OptionsError(`invalid value ${http2} for --http2-max-streams-per-connection: must be 0 or more`);

  const hidden = f.optionalString('--show-hidden-metrics-for-version');
  if (hidden !== undefined && !/^\d+\.\d+$/.test(hidden)) {
    throw new OptionsError(`invalid value ${JSON.stringify(hidden)} for --show-hidden-metrics-for-version: expected <major>.<minor>, e.g. 0.0`);
  }

  let featureGates: Record<string, boolean>;
  try {
    featureGates = parseFeatureGates(f.list('--feature-gates'));
  } catch (e) {
    if (e instanceof FlagValueError) throw new OptionsError(e.message);
    throw e;
  }

  const tls: TlsFlags = {
    certDir: f.string('--cert-dir'),
    cipherSuites: f.list('--tls-cipher-suites'),
    sniCertKeys: f.namedCertKeys('--tls-sni-cert-key'),
  };
  const certFile = f.optionalString('--tls-cert-file');
  const keyFile = f.optionalString('--tls-private-key-file');
  if (Boolean(certFile) !== Boolean(keyFile)) {
    throw new OptionsError('--tls-cert-file and --tls-private-key-file must be given together');
  }
  if (certFile) tls.certFile = certFile;
  if (keyFile) tls.keyFile = keyFile;
  const minVersion = f.optionalString('--tls-min-version');
  if (minVersion) tls.minVersion = minVersion;
  try {
    mapCipherSuites(tls.cipherSuites);
    mapTlsMinVersion(tls.minVersion);
  } catch (e) {
    if (e instanceof TlsConfigError) throw new OptionsError(e.message);
    throw e;
  }

  const out: CommonOptions = {
    component,
    logging,
    profiling: f.bool('--profiling'),
    contentionProfiling: f.bool('--contention-profiling'),
    http2MaxStreamsPerConnection: http2,
    featureGates,
    securePort,
    bindAddress: f.string('--bind-address') || '0.0.0.0',
    tls,
  };
  if (hidden !== undefined) out.showHiddenMetricsForVersion = hidden;
  return out;
}
