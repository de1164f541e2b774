/**
 * The fully resolved configuration of one API server instance.
 *
 * `src/cli/apiserver.ts` turns flags into this; tests and the all-in-one mode build it directly.
 * Every duration is in milliseconds unless the name says otherwise.
 */
import type { AuditConfig } from './audit/config.js';
import type { SecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Request, Response } from './http.js';
import type { InputLimits } from './input-limits.js';
import type { StorageConfig } from '../storage/config.js';
import type { AuthenticationConfig, AuthorizationConfig } from './auth/config.js';
import type { AdmissionPluginConfigurations } from './admission/config-file.js';
import type { VolumeLabeler } from './admission/persistent-volume-label.js';

export type SniCallback = (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;

/** TLS material ready for node's `tls`/`http2` servers (PEM text). */
export interface ServingCertificates {
  cert: string;
  key: string;
  /** Extra certificates chosen by SNI; `names` are exact hosts or `*.domain` wildcards. */
  sni: { names: string[]; cert: string; key: string }[];
  /** Picks the certificate for a TLS client hello's server name (built from `sni` by the daemon). */
  sniCallback?: SniCallback;
  /**
   * The same choice, with each SNI certificate's context also asking for client certificates from
   * `clientCA` (a context chosen by SNI replaces the listener's, and with it the authorities named
   * in the certificate request: without this, clients reaching an SNI name would send none).
   */
  sniCallbackWithClientCA?: (clientCA: string) => SniCallback;
  /** node's `minVersion` value, e.g. 'TLSv1.2'; undefined leaves node's default. */
  minVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** OpenSSL cipher list derived from --tls-cipher-suites; undefined leaves node's default. */
  ciphers?: string;
}

/** Where and how objects are stored; owned by src/storage (storage must not import the API server). */
export type { StorageConfig } from '../storage/config.js';

export interface WatchCacheConfig {
  enabled: boolean;
  defaultSize: number;
  /** `resource` or `resource.group` -> size, from --watch-cache-sizes. */
  sizes: Record<string, number>;
}

/** The API server's side of node-agent connections (--svclet-* flags). */
export interface SvcletClientConfig {
  https: boolean;
  /** PEM text, not paths. */
  ca?: string;
  cert?: string;
  key?: string;
  preferredAddressTypes: string[];
  timeoutMs: number;
}

export const DEFAULT_SVCLET_CLIENT: Readonly<SvcletClientConfig> = Object.freeze({
  https: true,
  preferredAddressTypes: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'],
  timeoutMs: 5_000,
});

/** Services' addresses and the `kubernetes` Service (./services/). */
export interface ServiceSettings {
  /** --service-cluster-ip-range: one CIDR, or two of different families (IPv6DualStack); primary first. */
  clusterIPRanges: string[];
  /** --service-node-port-range, inclusive, as base and size. */
  nodePortRange: { base: number; size: number };
  /** --svc-service-node-port: non-zero makes the kubernetes Service a NodePort on this port. */
  masterServiceNodePort: number;
  endpointReconcilerType: 'lease' | 'master-count' | 'none';
  /** --apiserver-count (master-count reconciler). */
  apiserverCount: number;
  /** The address this server publishes in the kubernetes Endpoints (--advertise-address, resolved). */
  advertiseAddress: string;
  /** How often the repair loop rebuilds the ranges from the Services (established: 3 minutes). */
  repairIntervalMs: number;
  /** How often the kubernetes Service and Endpoints are reconciled (established: 10 s). */
  endpointIntervalMs: number;
}

export interface ApiServerConfig {
  bindAddress: string;
  securePort: number;
  tls: ServingCertificates;
  /** 0: node's default. */
  http2MaxStreamsPerConnection: number;
  storage: StorageConfig;
  watchCache: WatchCacheConfig;
  /** 0: no limit. */
  maxRequestsInflight: number;
  /** 0: no limit. */
  maxMutatingRequestsInflight: number;
  /**
   * API Priority and Fairness (./flowcontrol/) instead of the two in-flight limits, whose sum is
   * then the server's concurrency limit. Absent: off (the APIPriorityAndFairness gate is alpha, off).
   */
  priorityAndFairness?: boolean;
  requestTimeoutMs: number;
  /** Seconds; a watch lives a random time between this and twice this. */
  minRequestTimeoutSeconds: number;
  shutdownDelayMs: number;
  livezGracePeriodMs: number;
  deleteCollectionWorkers: number;
  /** Parsed --runtime-config (`api/all`, `apps/v1`, ... -> 'true' | 'false'). */
  runtimeConfig: Record<string, string>;
  /** Resolved feature gates (every known gate present). */
  featureGates: Record<string, boolean>;
  profiling: boolean;
  /** --max-connection-bytes-per-sec: the write rate of each long-running answer (0 or absent: unlimited). */
  maxConnectionBytesPerSec?: number;
  /** --goaway-chance: the probability that an HTTP/2 request ends its connection with GOAWAY (0: never; at most 0.02). */
  goawayChance?: number;
  /** Regular expressions; empty disables CORS. */
  corsAllowedOrigins: string[];
  /** Bounds on request bodies and written objects (./input-limits.ts). */
  inputLimits: InputLimits;
  services: ServiceSettings;
  /** Who may connect (--anonymous-auth, --client-ca-file, tokens, ...). Absent: the defaults (anonymous, no methods). */
  authentication?: AuthenticationConfig;
  /** --authorization-mode and its options. Absent: AlwaysAllow. */
  authorization?: AuthorizationConfig;
  /** --audit-policy-file with the log and/or webhook backend (./audit/config.ts). Absent: audit is off. */
  audit?: AuditConfig;
  /**
   * The enabled admission plugins (--enable/--disable-admission-plugins applied to the default
   * list); those built (./admission/plugins.ts) run. Absent: the default list.
   */
  /** --proxy-client-cert-file / --proxy-client-key-file, read (PEM): the client certificate admission webhooks are called with. */
  proxyClient?: { cert: string; key: string };
  admissionPlugins?: string[];
  /** DefaultTolerationSeconds' --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (absent: 300, 300). */
  defaultTolerationSeconds?: { notReadySeconds: number; unreachableSeconds: number };
  /**
   * The aggregation layer (./aggregator/): --proxy-client-cert-file/--proxy-client-key-file (PEM
   * text; absent: no client certificate shown to extension servers) and --enable-aggregator-routing
   * (endpoint addresses instead of cluster IPs). Absent: no client certificate, cluster-IP routing.
   */
  aggregator?: { proxyClient?: { cert: string; key: string }; endpointRouting: boolean };
  /**
   * The enabled plugins' sections of --admission-control-config-file, read (./admission/config-file.ts).
   * Absent: no file (plugins that need a configuration, e.g. EventRateLimit, then stop the start).
   */
  admissionPluginConfigurations?: AdmissionPluginConfigurations;
  /** The cloud provider's answer about volumes (--cloud-provider; PersistentVolumeLabel asks it). Absent: no cloud. */
  volumeLabeler?: VolumeLabeler;
  /** Continue-token lifetime (default 5 minutes). */
  continueTokenTtlMs: number;
  /** Version reported by /version. */
  version: { major: string; minor: string; gitVersion: string };
  logger: Logger;
  /**
   * Extra non-resource handlers tried before the 404 (e.g. /debug/pprof/ from the daemon's
   * --profiling, /debug/machines from `svc up`), after the same authentication, in-flight limit
   * and authorization as every non-resource path. Each returns true when it took the request. A
   * streaming response (server-sent events) must return once its headers are written: the request
   * then no longer counts as in flight, and shutdown ends its connection.
   */
  extraHandlers?: ((req: Request, res: Response) => Promise<boolean>)[];
  /**
   * How `pods/log` reaches node agents (--svclet-*): https or http, the CA that checks their serving
   * certificate (none: not checked, as established), the client certificate shown to them, the node
   * address types tried in order, the connect-and-answer timeout. Absent: the defaults.
   */
  svclet?: SvcletClientConfig;
  /**
   * More metrics served on /metrics after the server's own (`svc up`: the hosted controllers'
   * work-queue and leader-election metrics). Must not repeat the server's metric names.
   */
  extraMetrics?: Registry;
}
