/**
 * The API server's own flags (spec: admission/storage/general, authentication, audit "Events",
 * "Limits", "Listeners"), their validation, and `buildApiServerConfig` which turns them into the
 * `ApiServerConfig` contract.
 *
 * Every flag of the spec is parsed and validated so scripts keep working; flags whose behaviour is
 * not implemented yet are marked `honoured: false` and refused at start when set to anything but their default.
 * `--data-dir` (the embedded store's folder) and `--max-request-body-bytes` are this project's additions.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { ApiServerConfig } from '../apiserver/config.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, inputLimitsFor } from '../apiserver/input-limits.js';
import { MAX_CIDR_BITS, ServiceIPRange } from '../apiserver/services/ip-range.js';
import { linearRegExpError } from '../api/validation/linear-regexp.js';
import { builtinResources, ResourceRegistry } from '../api/registry.js';
import { CloudProviderError, cloudProviderFromFlags } from '../cloud/registry.js';
import { readFlagFile, resolveCommonOptions, OptionsError, type CommonOptions } from './common-options.js';
import { checkGatePrerequisites } from './feature-gates.js';
import { FlagValueError, parseBool, parseCidrs, parseStringSlice, type PortRange } from './flag-types.js';
import { addFlags, longFlag, FlagValues, type FlagSpec, type FlagValue } from './option-table.js';
import { createDaemonProgram } from './program.js';
import { createProfilingHandler } from './profiling.js';
import { loadServingCertificates } from './tls.js';
import { builtModes, modesNotBuilt } from '../apiserver/auth/authorization-modes.js';
import {
  AUTHORIZATION_MODES, OIDC_SIGNING_ALGS, type AuthenticationConfig, type AuthorizationConfig, type AuthorizationMode, type OidcConfig, type RequestHeaderConfig,
  type ServiceAccountTokenConfig, type WebhookVersion,
} from '../apiserver/auth/config.js';
import { type ClientConfig, ClientConfigError, parseSvcconfigFile } from '../client/svcconfig.js';
import { isServiceAccountKeyText, KeyFileError, signingKeyFrom, verificationKeysFrom } from '../api/service-account-keys.js';
import { projectVersion } from './version.js';
import { auditFlags, type AuditFlagOptions, readAuditConfig, resolveAuditOptions } from './audit-options.js';

export { ALL_ADMISSION_PLUGINS, DEFAULT_ADMISSION_PLUGINS } from '../apiserver/admission/plugins.js';
import { admissionPluginsNotBuilt, ALL_ADMISSION_PLUGINS, builtAdmissionPlugins, checkAdmissionConfiguration, DEFAULT_ADMISSION_PLUGINS } from '../apiserver/admission/plugins.js';
import { AdmissionConfigError, resolveAdmissionConfiguration, type AdmissionPluginConfigurations } from '../apiserver/admission/config-file.js';


// ---------------------------------------------------------------------------------------------
// value parsers specific to the API server

/** `resource[.group]#size,...` -> { 'resource[.group]': size }. */
export function parseWatchCacheSizes(flag: string, items: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) {
    const m = /^([a-z0-9][a-z0-9.-]*)#(\d+)$/i.exec(item.trim());
    if (!m) throw new FlagValueError(flag, item, `expected resource[.group]#size, e.g. ${flag}=pods#1000,deployments.apps#200`);
    out[(m[1] as string).toLowerCase()] = Number(m[2]);
  }
  return out;
}

/** `group/resource#url;url,...` -> { 'group/resource': [url, url] } (core group: `/pods`). */
export function parseServersOverrides(flag: string, items: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const item of items) {
    const m = /^([a-z0-9.-]*)\/([a-z0-9.-]+)#(.+)$/i.exec(item.trim());
    const fail = (): never => {
      throw new FlagValueError(flag, item, `expected group/resource#url;url, e.g. ${flag}=/events#https://127.0.0.1:4002`);
    };
    if (!m) fail();
    const servers = (m![3] as string).split(';').map((s) => s.trim()).filter(Boolean);
    if (servers.length === 0) fail();
    for (const s of servers) checkServerUrl(flag, s);
    out[`${m![1]}/${m![2]}`.toLowerCase()] = servers;
  }
  return out;
}

function checkServerUrl(flag: string, s: string): void {
  let ok = false;
  try {
    const u = new URL(s);
    ok = (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'unix:') && (u.host !== '' || u.protocol === 'unix:');
  } catch {
    ok = false;
  }
  if (!ok) throw new FlagValueError(flag, s, `expected scheme://ip:port, e.g. ${flag}=https://127.0.0.1:2379`);
}

const RUNTIME_CONFIG_KEY = /^(api\/(all|ga|beta|alpha|legacy)|v1|[a-z0-9.-]+\/v\d+((alpha|beta)\d+)?|[a-z0-9.-]+\/v\d+((alpha|beta)\d+)?\/[a-z0-9.-]+)$/;

/** `--runtime-config`: `key[=true|false],...`; a key without a value means true. */
export function parseRuntimeConfig(flag: string, raw: string, previous?: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = { ...previous };
  for (const item of parseStringSlice(raw)) {
    const eq = item.indexOf('=');
    const key = (eq < 0 ? item : item.slice(0, eq)).trim();
    const value = eq < 0 ? 'true' : item.slice(eq + 1).trim();
    if (!RUNTIME_CONFIG_KEY.test(key)) {
      throw new FlagValueError(flag, item, `expected api/all, api/ga, api/beta, api/alpha, api/legacy, v1 or <group>/<version> keys, e.g. ${flag}=api/all=true,batch/v2alpha1=false`);
    }
    let on: boolean;
    try {
      on = parseBool(flag, value === '' ? 'true' : value);
    } catch {
      throw new FlagValueError(flag, item, `the value of ${key} must be true or false`);
    }
    out[key] = String(on);
  }
  return out;
}

const asList = (prev: unknown): string[] => (Array.isArray(prev) ? (prev as string[]) : []);

// ---------------------------------------------------------------------------------------------
// the flag table

const NOT_YET = { honoured: false } as const;

/** Node address types (core/v1 NodeAddressType), for --svclet-preferred-address-types. */
const NODE_ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'];

function admissionStorageGeneralFlags(): FlagSpec[] {
  return [
    { flags: '--admission-control-config-file', type: 'string', help: 'Admission control configuration file: an AdmissionConfiguration (apiserver.config.svc.io/v1; the apiserver.config.k8s.io spellings accepted), YAML or JSON, with plugins[].configuration inline or plugins[].path (relative to the file). Read at start; a bad section of an enabled plugin stops the start.' },
    { flags: '--enable-admission-plugins', type: 'stringSlice', help: `Plugins enabled in addition to the defaults (${DEFAULT_ADMISSION_PLUGINS.join(', ')}). Selectable: ${ALL_ADMISSION_PLUGINS.join(', ')}. Order does not matter. Built so far: ${builtAdmissionPlugins().join(', ')}; naming another is refused.` },
    { flags: '--disable-admission-plugins', type: 'stringSlice', help: 'Default plugins to switch off. Order does not matter.' },
    { flags: '--advertise-address', type: 'ip', help: 'Address advertised to cluster members (the kubernetes Service\'s Endpoints). If blank, --bind-address, else the host default interface.' },
    { flags: '--allow-privileged', type: 'bool', ...NOT_YET, help: 'Allow privileged containers.' },
    { flags: '--apiserver-count', type: 'int', default: 1, help: 'Number of API servers (positive). Used when endpoint reconciler type is master-count.' },
    { flags: '--endpoint-reconciler-type', type: 'string', default: 'lease', choices: ['master-count', 'lease', 'none'], help: 'One of master-count, lease, none: how the kubernetes Service\'s Endpoints list the API servers (lease: Leases in svc-system that each server renews).' },
    // Read by the PersistentVolumeLabel admission plugin (the cloud places its disks), as established.
    { flags: '--cloud-config', type: 'string', help: 'Cloud provider config file. Empty means none.' },
    { flags: '--cloud-provider', type: 'string', help: 'Cloud provider. Empty means none. The API server asks it where its disks are (PersistentVolumeLabel admission plugin).' },
    { flags: '--cloudx-container-registry-config', type: 'string', ...NOT_YET, help: 'Registry configuration file.' },
    { flags: '--cloud-provider-cloudy-l7lb-src-cidrs', type: 'cidrs', default: ['130.211.0.0/22', '35.191.0.0/16'], ...NOT_YET, help: 'L7 firewall CIDRs.' },
    { flags: '--default-not-ready-toleration-seconds', type: 'int', default: 300, help: 'tolerationSeconds of the default notReady:NoExecute toleration added to pods (admission plugin DefaultTolerationSeconds).' },
    { flags: '--default-unreachable-toleration-seconds', type: 'int', default: 300, help: 'tolerationSeconds of the default unreachable:NoExecute toleration added to pods (admission plugin DefaultTolerationSeconds).' },
    { flags: '--egress-selector-config-file', type: 'string', ...NOT_YET, help: 'Egress selector configuration.' },
    { flags: '--enable-aggregator-routing', type: 'bool', help: 'Route aggregator requests to endpoint IPs, not cluster IPs.' },
    { flags: '--enable-garbage-collector', type: 'bool', default: true, ...NOT_YET, help: 'Enables the generic garbage collector. Must match the controller manager.' },
    { flags: '--enable-priority-and-fairness', type: 'bool', default: true, help: 'With the APIPriorityAndFairness gate on, replace the in-flight handler with a queueing handler.' },
    { flags: '--external-hostname', type: 'string', ...NOT_YET, help: 'Hostname for externalized URLs (API docs, discovery).' },
    { flags: '--kvstore-servers', type: 'stringSlice', help: 'Storage servers, scheme://ip:port. Empty: the embedded store in --data-dir.' },
    { flags: '--kvstore-servers-overrides', type: 'stringSlice', help: 'Per-resource override, group/resource#servers, URLs separated by semicolons (core group: /pods#...).' },
    { flags: '--kvstore-cafile', type: 'string', help: 'SSL Certificate Authority file used to secure the storage connection.' },
    { flags: '--kvstore-certfile', type: 'string', help: 'SSL certification file used to secure the storage connection.' },
    { flags: '--kvstore-keyfile', type: 'string', help: 'SSL key file used to secure the storage connection.' },
    { flags: '--kvstore-prefix', type: 'string', default: '/registry', help: 'Prefix for all resource paths in storage.' },
    { flags: '--kvstore-compaction-interval', type: 'duration', default: 300_000, help: 'Compaction request interval. 0 disables.' },
    { flags: '--kvstore-count-metric-poll-period', type: 'duration', default: 60_000, help: 'Poll rate of per-type resource counts. 0 disables.' },
    { flags: '--storage-backend', type: 'string', help: 'Options: kvstore3 (default).' },
    { flags: '--storage-media-type', type: 'string', default: 'application/vnd.svc.protobuf', help: 'Media type for stored objects. Some resources ignore it.' },
    { flags: '--encryption-provider-config', type: 'string', ...NOT_YET, help: 'Encryption provider configuration for stored secrets.' },
    { flags: '--event-ttl', type: 'duration', default: 3_600_000, ...NOT_YET, help: 'Retention of events.' },
    { flags: '--default-watch-cache-size', type: 'int', default: 100, help: 'Default watch cache size. 0 disables it for resources with no default.' },
    { flags: '--watch-cache', type: 'bool', default: true, help: 'Enable watch caching.' },
    {
      flags: '--watch-cache-sizes',
      type: 'stringSlice',
      help: 'resource[.group]#size. Group omitted for the legacy core group. Some resources (replicationcontrollers, endpoints, nodes, pods, services, apiservices.apiregistration) have heuristic defaults.',
      parse: (flag, raw, prev) => {
        const items = parseStringSlice(raw);
        parseWatchCacheSizes(flag, items);
        return [...asList(prev), ...items];
      },
    },
    { flags: '--delete-collection-workers', type: 'int', default: 1, help: 'Workers for DeleteCollection.' },
    // pods/log reaches the node agents with these (src/apiserver/handlers/pod-log.ts).
    { flags: '--svclet-https', type: 'bool', default: true, help: 'Use https to node agents.' },
    { flags: '--svclet-certificate-authority', type: 'string', help: 'CA file for node-agent connections: their serving certificates are checked against it (unset: not checked).' },
    { flags: '--svclet-client-certificate', type: 'string', help: 'Client certificate for node-agent connections.' },
    { flags: '--svclet-client-key', type: 'string', help: 'Client key for node-agent connections.' },
    { flags: '--svclet-preferred-address-types', type: 'stringSlice', default: ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'], help: 'Address types in order of preference.' },
    { flags: '--svclet-timeout', type: 'duration', default: 5000, help: 'Node-agent operation timeout.' },
    { flags: '--svc-service-node-port', type: 'int', help: 'If non-zero, the master service is NodePort on this port; if zero, ClusterIP.' },
    { flags: '--master-service-namespace', type: 'string', default: 'default', deprecated: true, ...NOT_YET, help: 'Namespace whose master services are injected into pods.' },
    {
      flags: '--runtime-config',
      type: 'mapStringString',
      help: 'Toggle built-in APIs: v1, <group>/<version>, api/all, api/ga, api/beta, api/alpha, api/legacy (deprecated), each =true or =false.',
      parse: (flag, raw, prev) => parseRuntimeConfig(flag, raw, prev as Record<string, string> | undefined),
    },
    {
      flags: '--service-cluster-ip-range',
      type: 'string',
      defaultText: '10.0.0.0/24 when empty',
      help: 'CIDR for service cluster IPs. Must not overlap node pod ranges. Two CIDRs of different families (dual-stack) need the IPv6DualStack feature gate.',
      parse: (flag, raw) => parseCidrs(flag, raw).join(','),
    },
    { flags: '--service-node-port-range', type: 'portRange', default: { base: 30000, size: 2768 }, help: 'NodePort range, inclusive.' },
    { flags: '--target-ram-mb', type: 'int', ...NOT_YET, help: 'Memory limit in MB used to size caches.' },
    { flags: '--livez-grace-period', type: 'duration', help: 'Startup time during which /livez assumes unfinished post-start hooks succeed.' },
    { flags: '--shutdown-delay-duration', type: 'duration', help: 'Delay before termination. The server keeps serving and /healthz succeeds, but /readyz fails at once.' },
    { flags: '--goaway-chance', type: 'float', help: 'Fraction of HTTP/2 requests that get a connection close (GOAWAY). Range 0 to 0.02. Not for single servers or setups without a load balancer.' },
    { flags: '--cors-allowed-origins', type: 'stringSlice', help: 'Allowed CORS origins; entries may be regular expressions. Empty means CORS is off.' },
    { flags: '--data-dir', type: 'string', default: './data', help: 'Folder of the embedded store, used when --kvstore-servers is empty (this project\'s addition).' },
    {
      flags: '--data-dir-fsync',
      type: 'bool',
      default: true,
      help: 'The embedded store fsyncs each commit (a group of writes) before acknowledging it, so an acknowledged write survives a power loss or kernel crash, as with etcd. false acknowledges once the commit is in the page cache (survives kill -9 of the server, not a power loss) for a higher write rate; see docs/benchmarks.md (this project\'s addition).',
    },
  ];
}

function authenticationFlags(): FlagSpec[] {
  return [
    { flags: '--anonymous-auth', type: 'bool', default: true, help: 'Requests not rejected by another method are anonymous: user system:anonymous, group system:unauthenticated.' },
    { flags: '--api-audiences', type: 'stringSlice', defaultText: 'issuer URL if --service-account-issuer is set', help: 'Token audiences; a token must be bound to at least one.' },
    { flags: '--client-ca-file', type: 'string', help: 'A client certificate signed by one of these authorities authenticates as its CommonName.' },
    { flags: '--token-auth-file', type: 'string', help: 'Static token file securing the secure port.' },
    { flags: '--enable-bootstrap-token-auth', type: 'bool', help: 'Allow secrets of type bootstrap.svc.io/token in namespace svc-system for TLS bootstrapping.' },
    { flags: '--authentication-token-webhook-config-file', type: 'string', help: 'Webhook config for bearer tokens.' },
    { flags: '--authentication-token-webhook-version', type: 'string', default: 'v1beta1', choices: ['v1', 'v1beta1'], help: 'TokenReview API version.' },
    { flags: '--authentication-token-webhook-cache-ttl', type: 'duration', default: 120_000, help: 'Cache time of webhook token responses.' },
    { flags: '--authorization-mode', type: 'stringSlice', default: ['AlwaysAllow'], help: `Ordered plug-ins: ${AUTHORIZATION_MODES.join(', ')}. The first that allows or denies decides; members of system:masters are always allowed.` },
    { flags: '--authorization-policy-file', type: 'string', help: 'ABAC policy, one JSON document per line.' },
    { flags: '--authorization-webhook-config-file', type: 'string', help: 'Webhook config for mode Webhook.' },
    { flags: '--authorization-webhook-version', type: 'string', default: 'v1beta1', choices: ['v1', 'v1beta1'], help: 'SubjectAccessReview API version.' },
    { flags: '--authorization-webhook-cache-authorized-ttl', type: 'duration', default: 300_000, help: 'Cache of allow answers.' },
    { flags: '--authorization-webhook-cache-unauthorized-ttl', type: 'duration', default: 30_000, help: 'Cache of deny answers.' },
    { flags: '--oidc-issuer-url', type: 'string', help: 'HTTPS issuer URL for verifying identity tokens (JWT).' },
    { flags: '--oidc-client-id', type: 'string', help: 'Required if the issuer is set.' },
    { flags: '--oidc-ca-file', type: 'string', help: "CA for the issuer's certificate; else host roots." },
    { flags: '--oidc-username-claim', type: 'string', default: 'sub', help: 'Claim used as user name.' },
    { flags: '--oidc-username-prefix', type: 'string', help: 'Prefix for user names; - skips prefixing. Without a value, claims other than email are prefixed by the issuer URL.' },
    { flags: '--oidc-groups-claim', type: 'string', help: 'Claim with groups (string or array of strings). Experimental.' },
    { flags: '--oidc-groups-prefix', type: 'string', help: 'Prefix for groups.' },
    { flags: '--oidc-required-claim', type: 'mapStringString', help: 'key=value claim that must be in the token. Repeatable.' },
    { flags: '--oidc-signing-algs', type: 'stringSlice', default: ['RS256'], help: "Allowed signing algorithms; other 'alg' values are rejected." },
    { flags: '--service-account-issuer', type: 'stringArray', help: 'Issuer asserted in iss. Should be an https URL that serves discovery at <issuer>/.well-known/openid-configuration. Repeatable: the first issues new tokens, tokens of every one are accepted (to change issuers without refusing tokens already out).' },
    { flags: '--service-account-jwks-uri', type: 'string', help: 'Overrides the key-set URI in the discovery document (an https URL). Needs ServiceAccountIssuerDiscovery.' },
    { flags: '--service-account-key-file', type: 'stringArray', defaultText: '--tls-private-key-file if unset', help: 'PEM RSA/ECDSA keys that verify tokens. Repeatable. Required when the signing key is given.' },
    { flags: '--service-account-signing-key-file', type: 'string', help: 'Current private key for signing tokens. Needs TokenRequest.' },
    { flags: '--service-account-lookup', type: 'bool', default: true, help: 'Check tokens exist in storage.' },
    { flags: '--service-account-max-token-expiration', type: 'duration', help: 'Upper bound of requested token validity; longer requests get this value (between 1h and 2^32 s).' },
    { flags: '--proxy-client-cert-file', type: 'string', help: 'Identity used when proxying to extension servers and calling admission webhooks. Signed by the CA in --requestheader-client-ca-file.' },
    { flags: '--proxy-client-key-file', type: 'string', help: 'Private key of --proxy-client-cert-file.' },
    { flags: '--requestheader-client-ca-file', type: 'string', help: 'CA bundle verifying client certs before header-supplied usernames are trusted.' },
    { flags: '--requestheader-allowed-names', type: 'stringSlice', help: 'Allowed client cert common names. Empty allows any cert the CA validates.' },
    { flags: '--requestheader-username-headers', type: 'stringSlice', default: ['x-remote-user'], help: 'Headers inspected for user name.' },
    { flags: '--requestheader-group-headers', type: 'stringSlice', default: ['x-remote-group'], help: 'Headers inspected for groups.' },
    { flags: '--requestheader-extra-headers-prefix', type: 'stringSlice', default: ['x-remote-extra-'], help: 'Header prefixes inspected for extra attributes.' },
  ];
}

function limitFlags(): FlagSpec[] {
  return [
    { flags: '--max-requests-inflight', type: 'int', default: 400, help: 'Non-mutating requests in flight. Above it, requests are rejected. 0 is no limit.' },
    { flags: '--max-mutating-requests-inflight', type: 'int', default: 200, help: 'Mutating requests in flight. Above it, requests are rejected. 0 is no limit.' },
    { flags: '--request-timeout', type: 'duration', default: 60_000, help: 'Default handler timeout. Other flags may override it per type.' },
    { flags: '--min-request-timeout', type: 'int', default: 1800, help: 'Minimum seconds a watch handler keeps a request open; it picks a random value above this.' },
    { flags: '--max-request-body-bytes', type: 'int', default: DEFAULT_MAX_REQUEST_BODY_BYTES, help: "Largest request body in bytes, and largest object a write may store (after a patch has grown it). Larger requests get 413. This project's addition; the established server fixes it at 3 MiB." },
    { flags: '--max-connection-bytes-per-sec', type: 'int', help: 'If non-zero, throttle each user connection, for long-running requests only.' },
  ];
}

/** Every API-server-specific flag row. */
export function apiServerFlags(): FlagSpec[] {
  return [...admissionStorageGeneralFlags(), ...authenticationFlags(), ...auditFlags(), ...limitFlags()];
}

/** `apiserver [flags]`: common flags plus the API server's own (`svc up` names it `up`). */
/**
 * `omit`: rows another table of the same program provides instead (`svc up` takes --cloud-provider
 * and --cloud-config from the controller manager's table, where they are honoured).
 */
export function createApiServerProgram(o: { name?: string; displayName?: string; description?: string; omit?: readonly string[] } = {}): Command {
  const cmd = createDaemonProgram({
    component: 'apiserver',
    ...(o.name ? { name: o.name } : {}),
    ...(o.displayName ? { displayName: o.displayName } : {}),
    description:
      o.description ??
      'Validates and configures API objects (pods, services, replication controllers and others), serves the REST operations, and is the front end to shared cluster state through which all other components interact.',
  });
  return addFlags(cmd, apiServerFlags().filter((row) => !o.omit?.includes(longFlag(row))));
}

// ---------------------------------------------------------------------------------------------
// resolution and validation

/** The --service-account-* flags as given (files not yet read). */
export interface ServiceAccountFlags {
  issuers: string[];
  keyFiles: string[];
  signingKeyFile?: string;
  maxTokenExpirationSeconds?: number;
  lookup: boolean;
  jwksUri?: string;
  /** The ServiceAccountIssuerDiscovery gate. */
  issuerDiscovery: boolean;
}

/** The established bounds of --service-account-max-token-expiration. */
const MIN_MAX_TOKEN_EXPIRATION_MS = 3_600_000;
const MAX_MAX_TOKEN_EXPIRATION_MS = 2 ** 32 * 1000;

function resolveServiceAccountFlags(f: FlagValues, gates: Record<string, boolean>, fail: (msg: string) => never): ServiceAccountFlags {
  const issuers = f.list('--service-account-issuer');
  for (const iss of issuers) {
    if (iss.trim() === '') fail('--service-account-issuer must not be empty');
    if (iss.includes(':')) {
      try {
        new URL(iss);
      } catch {
        fail(`--service-account-issuer ${JSON.stringify(iss)} contained a ':' but was not a valid URL`);
      }
    }
  }
  if (new Set(issuers).size !== issuers.length) fail(`--service-account-issuer lists an issuer twice: ${issuers.join(', ')}`);
  const jwksUri = f.optionalString('--service-account-jwks-uri');
  if (jwksUri !== undefined) {
    let https = false;
    try {
      https = new URL(jwksUri).protocol === 'https:';
    } catch {
      https = false;
    }
    if (!https) fail(`invalid value ${JSON.stringify(jwksUri)} for --service-account-jwks-uri: must be an https:// URL`);
  }
  const maxMs = f.number('--service-account-max-token-expiration');
  if (maxMs !== 0 && (maxMs < MIN_MAX_TOKEN_EXPIRATION_MS || maxMs > MAX_MAX_TOKEN_EXPIRATION_MS)) {
    fail('the --service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
  }
  const signingKeyFile = f.optionalString('--service-account-signing-key-file');
  const keyFiles = f.list('--service-account-key-file');
  // The established rules of the TokenRequest issuer (its gates, and the three flags that make it).
  const attempted = Boolean(signingKeyFile) || issuers.length > 0 || f.list('--api-audiences').length > 0;
  if (attempted && !gates['TokenRequest']) {
    fail('the TokenRequest feature is not enabled but --service-account-signing-key-file, --service-account-issuer and/or --api-audiences flags were passed');
  }
  if (gates['BoundServiceAccountTokenVolume'] && !gates['TokenRequestProjection']) {
    fail('the BoundServiceAccountTokenVolume feature depends on the TokenRequestProjection feature, but the TokenRequestProjection feature is not enabled');
  }
  if (gates['BoundServiceAccountTokenVolume'] && !attempted) fail('--service-account-signing-key-file and --service-account-issuer are required flags');
  // Projected token sources are validated (and served by the nodes) unconditionally here: the
  // established server's gate-off refusal of them in pod specs is not built, so the gate cannot be off.
  if (!gates['TokenRequestProjection']) {
    fail('--feature-gates=TokenRequestProjection=false is not supported: projected serviceAccountToken volume sources are always accepted and validated by this server (set TokenRequestProjection=true, or leave it at its default)');
  }
  if (attempted && !(signingKeyFile && issuers.length > 0)) {
    fail('--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together');
  }
  if (signingKeyFile && keyFiles.length === 0 && !f.optionalString('--tls-private-key-file')) {
    fail('--service-account-key-file is required when --service-account-signing-key-file is set (the keys that verify the tokens it signs)');
  }
  return {
    issuers,
    keyFiles,
    lookup: f.bool('--service-account-lookup'),
    issuerDiscovery: gates['ServiceAccountIssuerDiscovery'] === true,
    ...(signingKeyFile ? { signingKeyFile } : {}),
    ...(maxMs ? { maxTokenExpirationSeconds: Math.floor(maxMs / 1000) } : {}),
    ...(jwksUri ? { jwksUri } : {}),
  };
}

/**
 * The --service-account-* section of the authentication settings, files read: the verification
 * keys are --service-account-key-file's, else those of --tls-private-key-file when it holds an RSA
 * or ECDSA key (established; the server's generated serving key is never used). No keys: no
 * service-account tokens. A file that cannot be read or holds no usable key is refused by name.
 */
export function serviceAccountConfig(sa: ServiceAccountFlags, tlsKeyFile: string | undefined, logger: Logger): ServiceAccountTokenConfig | undefined {
  const keyError = (fn: () => unknown): void => {
    try {
      fn();
    } catch (e) {
      if (e instanceof KeyFileError) throw new OptionsError(e.message);
      throw e;
    }
  };
  let verificationKeys = sa.keyFiles.map((file) => readFlagFile('--service-account-key-file', file));
  verificationKeys.forEach((pem, i) => keyError(() => verificationKeysFrom(pem, `--service-account-key-file ${sa.keyFiles[i]!}`)));
  if (verificationKeys.length === 0 && tlsKeyFile) {
    const pem = readFlagFile('--tls-private-key-file', tlsKeyFile);
    if (isServiceAccountKeyText(pem)) verificationKeys = [pem];
    else logger.warn('--tls-private-key-file holds no RSA or ECDSA key: service account token authentication is off');
  }
  if (verificationKeys.length === 0) {
    if (sa.issuers.length) logger.warn('--service-account-issuer is set but there is no --service-account-key-file: service account tokens are not accepted');
    return undefined;
  }
  const out: ServiceAccountTokenConfig = { issuers: [...sa.issuers], verificationKeys, lookup: sa.lookup, issuerDiscovery: sa.issuerDiscovery };
  if (sa.signingKeyFile) {
    const pem = readFlagFile('--service-account-signing-key-file', sa.signingKeyFile);
    keyError(() => signingKeyFrom(pem, `--service-account-signing-key-file ${sa.signingKeyFile!}`));
    out.signingKey = pem;
  }
  if (sa.maxTokenExpirationSeconds) out.maxTokenExpirationSeconds = sa.maxTokenExpirationSeconds;
  if (sa.jwksUri) out.jwksUri = sa.jwksUri;
  return out;
}

export interface ApiServerOptions {
  common: CommonOptions;
  /** True when --cert-dir came from its default (so an unwritable default may fall back). */
  certDirIsDefault: boolean;
  advertiseAddress?: string;
  externalHostname?: string;
  dataDir: string;
  /** --data-dir-fsync. */
  dataDirFsync: boolean;
  storage: {
    backend: 'kvstore3';
    servers: string[];
    serversOverrides: Record<string, string[]>;
    prefix: string;
    caFile?: string;
    certFile?: string;
    keyFile?: string;
    compactionIntervalMs: number;
    countMetricPollPeriodMs: number;
    mediaType: string;
  };
  watchCache: { enabled: boolean; defaultSize: number; sizes: Record<string, number> };
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** APIPriorityAndFairness gate and --enable-priority-and-fairness both on: queueing replaces the in-flight limits. */
  priorityAndFairness: boolean;
  requestTimeoutMs: number;
  maxRequestBodyBytes: number;
  minRequestTimeoutSeconds: number;
  shutdownDelayMs: number;
  livezGracePeriodMs: number;
  deleteCollectionWorkers: number;
  runtimeConfig: Record<string, string>;
  corsAllowedOrigins: string[];
  /** --goaway-chance. */
  goawayChance: number;
  /** --max-connection-bytes-per-sec (0: unlimited). */
  maxConnectionBytesPerSec: number;
  /** The aggregation layer: --proxy-client-cert-file/--proxy-client-key-file (paths, read by buildApiServerConfig) and --enable-aggregator-routing. */
  aggregator: { proxyClientCertFile?: string; proxyClientKeyFile?: string; endpointRouting: boolean };
  serviceNodePortRange: PortRange;
  /** --service-cluster-ip-range resolved: one CIDR (10.0.0.0/24 by default) or two of different families. */
  serviceClusterIPRanges: string[];
  endpointReconcilerType: 'lease' | 'master-count' | 'none';
  apiserverCount: number;
  masterServiceNodePort: number;
  /** Enabled admission plugins after --enable/--disable-admission-plugins. */
  admissionPlugins: string[];
  /** --cloud-provider / --cloud-config (the provider made by buildApiServerConfig; PersistentVolumeLabel asks it). */
  cloud: { provider: string; cloudConfig: string };
  /** --admission-control-config-file (read by buildApiServerConfig). */
  admissionControlConfigFile?: string;
  /** --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds (DefaultTolerationSeconds). */
  defaultTolerationSeconds: { notReadySeconds: number; unreachableSeconds: number };
  authentication: AuthenticationConfig;
  /** The files of the authentication methods, read by buildApiServerConfig into `authentication`. */
  authenticationFiles: AuthenticationFiles;
  /** The --service-account-* flags (files named, not yet read; buildApiServerConfig reads them into `authentication`). */
  serviceAccounts: ServiceAccountFlags;
  authorization: AuthorizationConfig;
  /** The files of the methods that consult something outside the server (read by buildApiServerConfig). */
  externalAuth: ExternalAuthFiles;
  /** --proxy-client-cert-file / --proxy-client-key-file (files named, not yet read): the identity admission webhooks are called with. */
  proxyClient?: { certFile: string; keyFile: string };
  /** The --svclet-* flags (files named, not yet read). */
  svclet: { https: boolean; caFile?: string; certFile?: string; keyFile?: string; preferredAddressTypes: string[]; timeoutMs: number };
  /** The --audit-* flags (the policy and webhook files named, read by buildApiServerConfig). */
  audit: AuditFlagOptions;
  /** Warnings to log at start (e.g. an option without effect because its gate is off). */
  warnings: string[];
  /** Every flag value by long name, for flags not lifted into typed fields yet. */
  flags: FlagValues;
}

/** The flags of the authentication methods that name files (read at start). */
export interface AuthenticationFiles {
  clientCaFile?: string;
  tokenAuthFile?: string;
  requestHeader?: Omit<RequestHeaderConfig, 'clientCA'> & { clientCaFile: string };
}

/** The authentication flags that name files, cross-checked. */
function resolveAuthenticationFiles(f: FlagValues, fail: (msg: string) => never): AuthenticationFiles {
  const out: AuthenticationFiles = {};
  const clientCaFile = f.optionalString('--client-ca-file');
  if (clientCaFile) out.clientCaFile = clientCaFile;
  const tokenAuthFile = f.optionalString('--token-auth-file');
  if (tokenAuthFile) out.tokenAuthFile = tokenAuthFile;
  const requestHeaderCa = f.optionalString('--requestheader-client-ca-file');
  const allowedNames = f.list('--requestheader-allowed-names').map((n) => n.trim()).filter(Boolean);
  if (!requestHeaderCa && allowedNames.length > 0) fail('--requestheader-allowed-names needs --requestheader-client-ca-file: without it no proxy is trusted, so the list would have no effect');
  if (requestHeaderCa) {
    out.requestHeader = {
      clientCaFile: requestHeaderCa,
      allowedNames,
      usernameHeaders: f.list('--requestheader-username-headers'),
      groupHeaders: f.list('--requestheader-group-headers'),
      extraHeaderPrefixes: f.list('--requestheader-extra-headers-prefix'),
    };
    if (out.requestHeader.usernameHeaders.length === 0) fail('--requestheader-username-headers must name at least one header when --requestheader-client-ca-file is set, e.g. X-Remote-User');
  }
  return out;
}

/** Resolves and cross-checks the API server flags; throws OptionsError naming the flag. */
export function resolveApiServerOptions(opts: Record<string, unknown>, explicit: ReadonlySet<string> = new Set()): ApiServerOptions {
  const common = resolveCommonOptions(opts, 'apiserver');
  const f = new FlagValues(opts);
  const fail = (msg: string): never => {
    throw new OptionsError(msg);
  };
  const wrap = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      if (e instanceof FlagValueError) throw new OptionsError(e.message);
      throw e;
    }
  };
  const warnings: string[] = [];

  const backend = f.string('--storage-backend');
  if (backend !== '' && backend !== 'kvstore3') {
    fail(`invalid value ${JSON.stringify(backend)} for --storage-backend: the only storage backend is kvstore3 (leave it empty for the default)`);
  }
  const servers = f.list('--kvstore-servers');
  for (const s of servers) wrap(() => checkServerUrl('--kvstore-servers', s));
  const serversOverrides = wrap(() => parseServersOverrides('--kvstore-servers-overrides', f.list('--kvstore-servers-overrides')));
  const certFile = f.optionalString('--kvstore-certfile');
  const keyFile = f.optionalString('--kvstore-keyfile');
  if (Boolean(certFile) !== Boolean(keyFile)) fail('--kvstore-certfile and --kvstore-keyfile must be given together');
  const prefix = f.string('--kvstore-prefix');
  if (!prefix.startsWith('/')) fail(`invalid value ${JSON.stringify(prefix)} for --kvstore-prefix: must start with /, e.g. --kvstore-prefix=/registry`);
  const compactionIntervalMs = f.number('--kvstore-compaction-interval');
  const countMetricPollPeriodMs = f.number('--kvstore-count-metric-poll-period');
  if (compactionIntervalMs < 0) fail('--kvstore-compaction-interval must not be negative (0 disables compaction)');
  if (countMetricPollPeriodMs < 0) fail('--kvstore-count-metric-poll-period must not be negative (0 disables polling)');

  const defaultSize = f.number('--default-watch-cache-size');
  if (defaultSize < 0) fail(`invalid value ${defaultSize} for --default-watch-cache-size: must be 0 or more`);
  const sizes = wrap(() => parseWatchCacheSizes('--watch-cache-sizes', f.list('--watch-cache-sizes')));

  const nonNegative = (flag: string): number => {
    const n = f.number(flag);
    if (n < 0) fail(`invalid value ${n} for ${flag}: must be 0 or more`);
    return n;
  };
  const maxRequestsInflight = nonNegative('--max-requests-inflight');
  const maxMutatingRequestsInflight = nonNegative('--max-mutating-requests-inflight');
  const minRequestTimeoutSeconds = nonNegative('--min-request-timeout');
  const maxRequestBodyBytes = f.number('--max-request-body-bytes');
  if (maxRequestBodyBytes < 1024) fail(`invalid value ${maxRequestBodyBytes} for --max-request-body-bytes: must be at least 1024`);
  const requestTimeoutMs = f.number('--request-timeout');
  if (requestTimeoutMs <= 0) fail('--request-timeout must be greater than 0, e.g. --request-timeout=1m0s');
  const shutdownDelayMs = f.number('--shutdown-delay-duration');
  if (shutdownDelayMs < 0) fail('--shutdown-delay-duration must not be negative');
  const livezGracePeriodMs = f.number('--livez-grace-period');
  if (livezGracePeriodMs < 0) fail('--livez-grace-period must not be negative');
  const deleteCollectionWorkers = f.number('--delete-collection-workers');
  if (deleteCollectionWorkers < 1) fail(`invalid value ${deleteCollectionWorkers} for --delete-collection-workers: must be 1 or more`);
  nonNegative('--max-connection-bytes-per-sec');
  nonNegative('--target-ram-mb');
  if (f.number('--apiserver-count') < 1) fail(`invalid value ${f.number('--apiserver-count')} for --apiserver-count: must be a positive number`);
  const goaway = f.number('--goaway-chance');
  if (goaway < 0 || goaway > 0.02) fail(`invalid value ${goaway} for --goaway-chance: must be between 0 and 0.02`);

  const cors = f.list('--cors-allowed-origins');
  for (const c of cors) {
    // RE2 syntax, as the server matches origins with it (linear time on a client's Origin header).
    const problem = linearRegExpError(c);
    if (problem) fail(`invalid value ${JSON.stringify(c)} for --cors-allowed-origins: not a regular expression (${problem})`);
  }

  const serviceNodePortRange = f.portRange('--service-node-port-range');
  const serviceClusterIPRanges = checkServiceClusterIPRanges(parseStringSlice(f.string('--service-cluster-ip-range')), common.featureGates, fail);
  const masterNodePort = f.number('--svc-service-node-port');
  if (masterNodePort !== 0 && (masterNodePort < serviceNodePortRange.base || masterNodePort >= serviceNodePortRange.base + serviceNodePortRange.size)) {
    fail(`invalid value ${masterNodePort} for --svc-service-node-port: must be inside --service-node-port-range`);
  }

  // Admission plugins.
  const enable = f.list('--enable-admission-plugins');
  const disable = f.list('--disable-admission-plugins');
  for (const [flag, list] of [['--enable-admission-plugins', enable], ['--disable-admission-plugins', disable]] as const) {
    for (const p of list) {
      if (!(ALL_ADMISSION_PLUGINS as readonly string[]).includes(p)) {
        fail(`invalid value ${JSON.stringify(p)} for ${flag}: unknown admission plugin; known: ${ALL_ADMISSION_PLUGINS.join(', ')}`);
      }
    }
  }
  const both = enable.filter((p) => disable.includes(p));
  if (both.length > 0) fail(`admission plugin ${both.join(', ')} is both in --enable-admission-plugins and --disable-admission-plugins`);
  const admissionPlugins = [...new Set([...DEFAULT_ADMISSION_PLUGINS, ...enable])].filter((p) => !disable.includes(p));
  // A plugin asked for by name that this server cannot run would be a check silently skipped.
  const unbuilt = admissionPluginsNotBuilt(enable);
  if (unbuilt.length > 0) fail(`--enable-admission-plugins=${unbuilt.join(',')}: not built yet, so it would have no effect; built so far: ${builtAdmissionPlugins().join(', ')}`);
  // PodPreset reads the alpha settings API: without it the plugin could apply nothing (the
  // established server does not start either: its informer's kind is not served).
  if (admissionPlugins.includes('PodPreset') && !podPresetsServed(f.map('--runtime-config'))) {
    fail('--enable-admission-plugins=PodPreset needs the settings.k8s.io/v1alpha1 API (an alpha API, off by default): add --runtime-config=settings.k8s.io/v1alpha1=true');
  }

  // Authorization.
  const modes = f.list('--authorization-mode');
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) {
      fail(`invalid value ${JSON.stringify(m)} for --authorization-mode: expected some of ${AUTHORIZATION_MODES.join(', ')}`);
    }
  }
  if (new Set(modes).size !== modes.length) fail(`--authorization-mode lists a mode twice: ${modes.join(',')}`);
  if (modes.length === 0) fail('--authorization-mode must name at least one mode, e.g. --authorization-mode=AlwaysAllow');
  if (modes.includes('ABAC') && !f.optionalString('--authorization-policy-file')) fail('--authorization-mode=ABAC needs --authorization-policy-file');
  if (!modes.includes('ABAC') && f.optionalString('--authorization-policy-file')) fail('--authorization-policy-file is only used with --authorization-mode=ABAC');
  if (modes.includes('Webhook') && !f.optionalString('--authorization-webhook-config-file')) fail('--authorization-mode=Webhook needs --authorization-webhook-config-file');
  if (!modes.includes('Webhook') && f.optionalString('--authorization-webhook-config-file')) fail('--authorization-webhook-config-file is only used with --authorization-mode=Webhook');
  const notBuilt = modesNotBuilt(modes as AuthorizationMode[]);
  if (notBuilt.length > 0) fail(`--authorization-mode=${notBuilt.join(',')} is not built yet, so it would have no effect; built so far: ${builtModes().join(', ')}`);

  // Authentication.
  const issuer = f.optionalString('--oidc-issuer-url');
  if (issuer !== undefined) {
    let https = false;
    try {
      https = new URL(issuer).protocol === 'https:';
    } catch {
      https = false;
    }
    if (!https) fail(`invalid value ${JSON.stringify(issuer)} for --oidc-issuer-url: must be an https:// URL`);
    if (!f.optionalString('--oidc-client-id')) fail('--oidc-client-id is required when --oidc-issuer-url is set');
  } else {
    const orphans = ['--oidc-client-id', '--oidc-ca-file', '--oidc-username-prefix', '--oidc-groups-claim', '--oidc-groups-prefix'].filter((x) => f.optionalString(x));
    if (Object.keys(f.map('--oidc-required-claim')).length) orphans.push('--oidc-required-claim');
    if (orphans.length) fail(`${orphans.join(', ')} ${orphans.length > 1 ? 'have' : 'has'} no effect without --oidc-issuer-url; set the issuer or remove ${orphans.length > 1 ? 'them' : 'it'}`);
  }
  const signingAlgs = f.list('--oidc-signing-algs');
  for (const alg of signingAlgs) {
    if (!(OIDC_SIGNING_ALGS as readonly string[]).includes(alg)) fail(`invalid value ${JSON.stringify(alg)} for --oidc-signing-algs: oidc: unsupported signing alg (supported: ${OIDC_SIGNING_ALGS.join(', ')})`);
  }
  if (issuer !== undefined && signingAlgs.length === 0) fail('--oidc-signing-algs must name at least one algorithm, e.g. --oidc-signing-algs=RS256');
  if (f.optionalString('--service-account-signing-key-file') && f.list('--service-account-issuer').length === 0) {
    fail('--service-account-signing-key-file needs --service-account-issuer');
  }
  if (Boolean(f.optionalString('--proxy-client-cert-file')) !== Boolean(f.optionalString('--proxy-client-key-file'))) {
    fail('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }

  // Gate prerequisites (spec "Versioning" 5).
  const inUse = new Set<string>();
  if (f.bool('--enable-priority-and-fairness') && explicit.has('--enable-priority-and-fairness')) inUse.add('--enable-priority-and-fairness');
  if (f.bool('--audit-dynamic-configuration')) inUse.add('--audit-dynamic-configuration');
  if (f.optionalString('--service-account-signing-key-file')) inUse.add('--service-account-signing-key-file');
  if (f.optionalString('--service-account-jwks-uri')) inUse.add('--service-account-jwks-uri');
  const gates = checkGatePrerequisites(common.featureGates, inUse);
  if (gates.errors.length > 0) fail(gates.errors[0] as string);
  warnings.push(...gates.ignored.map((m) => `${m}; it has no effect`));
  const serviceAccounts = resolveServiceAccountFlags(f, common.featureGates, fail);
  const priorityAndFairness = common.featureGates['APIPriorityAndFairness'] === true && f.bool('--enable-priority-and-fairness');
  if (priorityAndFairness && maxRequestsInflight + maxMutatingRequestsInflight <= 0) {
    fail(`invalid configuration: MaxRequestsInFlight=${maxRequestsInflight} and MaxMutatingRequestsInFlight=${maxMutatingRequestsInflight}; they must add up to something positive (with API Priority and Fairness their sum is the server's concurrency limit)`);
  }

  // Node agents (pods/log).
  const addressTypes = f.list('--svclet-preferred-address-types');
  for (const t of addressTypes) {
    if (!NODE_ADDRESS_TYPES.includes(t)) fail(`invalid value ${JSON.stringify(t)} for --svclet-preferred-address-types: expected some of ${NODE_ADDRESS_TYPES.join(', ')}`);
  }
  if (addressTypes.length === 0) fail('--svclet-preferred-address-types must name at least one address type');
  const svcletCert = f.optionalString('--svclet-client-certificate');
  const svcletKey = f.optionalString('--svclet-client-key');
  if (Boolean(svcletCert) !== Boolean(svcletKey)) fail('--svclet-client-certificate and --svclet-client-key must be given together');
  const svcletTimeout = f.number('--svclet-timeout');
  if (svcletTimeout <= 0) fail('invalid value for --svclet-timeout: must be greater than 0');
  const svcletCa = f.optionalString('--svclet-certificate-authority');
  const svclet: ApiServerOptions['svclet'] = {
    https: f.bool('--svclet-https'),
    preferredAddressTypes: addressTypes,
    timeoutMs: svcletTimeout,
    ...(svcletCa ? { caFile: svcletCa } : {}),
    ...(svcletCert ? { certFile: svcletCert } : {}),
    ...(svcletKey ? { keyFile: svcletKey } : {}),
  };
  if (!svclet.https && (svcletCa || svcletCert)) fail('--svclet-certificate-authority and --svclet-client-certificate need --svclet-https=true');

  const out: ApiServerOptions = {
    common,
    svclet,
    certDirIsDefault: !explicit.has('--cert-dir'),
    dataDir: f.string('--data-dir') || './data',
    dataDirFsync: f.bool('--data-dir-fsync'),
    storage: {
      backend: 'kvstore3',
      servers,
      serversOverrides,
      prefix,
      compactionIntervalMs,
      countMetricPollPeriodMs,
      mediaType: f.string('--storage-media-type'),
    },
    watchCache: { enabled: f.bool('--watch-cache'), defaultSize, sizes },
    maxRequestsInflight,
    maxMutatingRequestsInflight,
    priorityAndFairness,
    requestTimeoutMs,
    maxRequestBodyBytes,
    minRequestTimeoutSeconds,
    shutdownDelayMs,
    livezGracePeriodMs,
    deleteCollectionWorkers,
    runtimeConfig: f.map('--runtime-config'),
    corsAllowedOrigins: cors,
    goawayChance: goaway,
    maxConnectionBytesPerSec: f.number('--max-connection-bytes-per-sec'),
    aggregator: {
      endpointRouting: f.bool('--enable-aggregator-routing'),
      ...(f.optionalString('--proxy-client-cert-file') ? { proxyClientCertFile: f.optionalString('--proxy-client-cert-file')! } : {}),
      ...(f.optionalString('--proxy-client-key-file') ? { proxyClientKeyFile: f.optionalString('--proxy-client-key-file')! } : {}),
    },
    serviceNodePortRange,
    serviceClusterIPRanges,
    endpointReconcilerType: f.string('--endpoint-reconciler-type') as ApiServerOptions['endpointReconcilerType'],
    apiserverCount: f.number('--apiserver-count'),
    masterServiceNodePort: masterNodePort,
    admissionPlugins,
    cloud: { provider: f.string('--cloud-provider'), cloudConfig: f.string('--cloud-config') },
    ...(f.optionalString('--admission-control-config-file') ? { admissionControlConfigFile: f.optionalString('--admission-control-config-file')! } : {}),
    ...(f.optionalString('--proxy-client-cert-file') ? { proxyClient: { certFile: f.optionalString('--proxy-client-cert-file')!, keyFile: f.optionalString('--proxy-client-key-file')! } } : {}),
    defaultTolerationSeconds: { notReadySeconds: f.number('--default-not-ready-toleration-seconds'), unreachableSeconds: f.number('--default-unreachable-toleration-seconds') },
    authentication: {
      anonymous: f.bool('--anonymous-auth'),
      // Established default: the issuers (a token must be meant for this API).
      apiAudiences: f.list('--api-audiences').length ? f.list('--api-audiences') : [...serviceAccounts.issuers],
      ...(f.bool('--enable-bootstrap-token-auth') ? { bootstrapTokens: true } : {}),
      ...(issuer ? { oidc: oidcOptions(f, issuer, signingAlgs) } : {}),
    },
    authenticationFiles: resolveAuthenticationFiles(f, fail),
    serviceAccounts,
    externalAuth: externalAuthFiles(f),
    authorization: { modes: modes as AuthorizationMode[] },
    audit: resolveAuditOptions(f, warnings, fail),
    warnings,
    flags: f,
  };
  const caFile = f.optionalString('--kvstore-cafile');
  if (caFile) out.storage.caFile = caFile;
  if (certFile) out.storage.certFile = certFile;
  if (keyFile) out.storage.keyFile = keyFile;
  const advertise = f.optionalString('--advertise-address');
  if (advertise) out.advertiseAddress = advertise;
  const external = f.optionalString('--external-hostname');
  if (external) out.externalHostname = external;
  return out;
}

/** The files the OIDC, webhook and ABAC methods read, with the settings that go with them. */
export interface ExternalAuthFiles {
  oidcCaFile?: string;
  tokenWebhook?: { configFile: string; version: WebhookVersion; cacheTtlMs: number };
  abacPolicyFile?: string;
  authorizationWebhook?: { configFile: string; version: WebhookVersion; authorizedTtlMs: number; unauthorizedTtlMs: number };
}

/**
 * The --oidc-* flags as OidcConfig (without the CA, read later), the user name prefix defaulted as
 * established: unset, claims other than `email` get the issuer URL and '#' (so a `sub` of one
 * issuer can never pass for a user of another); `-` means no prefix.
 */
function oidcOptions(f: FlagValues, issuerUrl: string, signingAlgs: string[]): OidcConfig {
  const usernameClaim = f.string('--oidc-username-claim') || 'sub';
  const given = f.optionalString('--oidc-username-prefix');
  const usernamePrefix = given === undefined ? (usernameClaim === 'email' ? '' : `${issuerUrl}#`) : given === '-' ? '' : given;
  const groupsClaim = f.optionalString('--oidc-groups-claim');
  return {
    issuerUrl,
    clientId: f.string('--oidc-client-id'),
    usernameClaim,
    usernamePrefix,
    ...(groupsClaim ? { groupsClaim } : {}),
    groupsPrefix: f.string('--oidc-groups-prefix'),
    requiredClaims: f.map('--oidc-required-claim'),
    signingAlgs,
  };
}

function externalAuthFiles(f: FlagValues): ExternalAuthFiles {
  const out: ExternalAuthFiles = {};
  const oidcCa = f.optionalString('--oidc-ca-file');
  if (oidcCa) out.oidcCaFile = oidcCa;
  const tokenWebhook = f.optionalString('--authentication-token-webhook-config-file');
  if (tokenWebhook) {
    out.tokenWebhook = { configFile: tokenWebhook, version: f.string('--authentication-token-webhook-version') as WebhookVersion, cacheTtlMs: f.number('--authentication-token-webhook-cache-ttl') };
  }
  const policy = f.optionalString('--authorization-policy-file');
  if (policy) out.abacPolicyFile = policy;
  const authzWebhook = f.optionalString('--authorization-webhook-config-file');
  if (authzWebhook) {
    out.authorizationWebhook = {
      configFile: authzWebhook,
      version: f.string('--authorization-webhook-version') as WebhookVersion,
      authorizedTtlMs: f.number('--authorization-webhook-cache-authorized-ttl'),
      unauthorizedTtlMs: f.number('--authorization-webhook-cache-unauthorized-ttl'),
    };
  }
  return out;
}

/** A webhook's kubeconfig-format file as the client it names; errors name the flag. */
function webhookClient(flag: string, file: string): ClientConfig {
  try {
    return parseSvcconfigFile(file);
  } catch (err) {
    if (err instanceof ClientConfigError) throw new OptionsError(`${flag}: ${err.message}`);
    throw err;
  }
}

/**
 * --admission-control-config-file read: the enabled plugins' sections (paths read), each checked
 * by its plugin, so a bad one stops the start with the file and plugin named. Without the file,
 * plugins that need a configuration (EventRateLimit, ImagePolicyWebhook) stop it too.
 */
function admissionConfiguration(o: ApiServerOptions): AdmissionPluginConfigurations {
  try {
    const sections = o.admissionControlConfigFile ? resolveAdmissionConfiguration(o.admissionControlConfigFile, o.admissionPlugins) : {};
    checkAdmissionConfiguration(o.admissionPlugins, sections);
    return sections;
  } catch (err) {
    if (err instanceof AdmissionConfigError) throw new OptionsError(`--admission-control-config-file: ${err.message}`);
    throw err;
  }
}

/** The resolved AuthenticationConfig and AuthorizationConfig: the files of the external methods read. */
function externalAuthConfig(o: ApiServerOptions): { authentication: AuthenticationConfig; authorization: AuthorizationConfig } {
  const x = o.externalAuth;
  const authentication = readAuthenticationFiles(o);
  if (authentication.oidc && x.oidcCaFile) authentication.oidc = { ...authentication.oidc, caPem: readFlagFile('--oidc-ca-file', x.oidcCaFile) };
  if (x.tokenWebhook) {
    const { configFile, ...rest } = x.tokenWebhook;
    authentication.tokenWebhook = { client: webhookClient('--authentication-token-webhook-config-file', configFile), ...rest };
  }
  const authorization: AuthorizationConfig = { ...o.authorization, modes: [...o.authorization.modes] };
  if (x.abacPolicyFile) authorization.abac = { file: x.abacPolicyFile, policy: readFlagFile('--authorization-policy-file', x.abacPolicyFile) };
  if (x.authorizationWebhook) {
    const { configFile, ...rest } = x.authorizationWebhook;
    authorization.webhook = { client: webhookClient('--authorization-webhook-config-file', configFile), ...rest };
  }
  return { authentication, authorization };
}

/** The authentication and authorization settings: the external methods' files and the service-account keys read. */
function authConfig(o: ApiServerOptions, logger: Logger): { authentication: AuthenticationConfig; authorization: AuthorizationConfig } {
  const out = externalAuthConfig(o);
  const sa = serviceAccountConfig(o.serviceAccounts, o.common.tls.keyFile, logger);
  if (sa) out.authentication.serviceAccounts = sa;
  return out;
}

/** The audit settings with the policy parsed and the webhook file read (absent: audit records nothing). */
function auditConfig(o: ApiServerOptions): { audit?: NonNullable<ApiServerConfig['audit']> } {
  const audit = readAuditConfig(o.audit);
  return audit ? { audit } : {};
}

/** The established default when --service-cluster-ip-range is empty. */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';

/**
 * --service-cluster-ip-range as the established server checks it: at most two CIDRs, two only of
 * different families and only with the IPv6DualStack gate, none with more than 20 host bits.
 */
export function checkServiceClusterIPRanges(given: string[], gates: Record<string, boolean>, fail: (msg: string) => never): string[] {
  const ranges = given.length > 0 ? given : [DEFAULT_SERVICE_CLUSTER_IP_RANGE];
  if (ranges.length > 2) fail('--service-cluster-ip-range must not contain more than two entries');
  if (ranges.length === 2) {
    if (!gates['IPv6DualStack']) {
      fail(`--service-cluster-ip-range=${ranges.join(',')} names two ranges (dual-stack), which needs the IPv6DualStack feature gate: add --feature-gates=IPv6DualStack=true, or give one range`);
    }
    if (ranges[0]!.includes(':') === ranges[1]!.includes(':')) fail('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
  }
  ranges.forEach((cidr, i) => {
    const range = new ServiceIPRange(cidr);
    const bits = range.family === 'IPv4' ? 32 : 128;
    const flag = ranges.length > 1 ? `--service-cluster-ip-range[${i}]` : '--service-cluster-ip-range';
    if (bits - range.prefixLength > MAX_CIDR_BITS) fail(`specified ${flag} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_CIDR_BITS}`);
    if (range.size < 2) fail(`specified ${flag} ${cidr} leaves fewer than 2 addresses to hand out; give a larger range, e.g. ${DEFAULT_SERVICE_CLUSTER_IP_RANGE}`);
  });
  return ranges.map((c) => new ServiceIPRange(c).cidr);
}

/**
 * The address this server publishes (established: --advertise-address, else --bind-address when
 * it names one, else the first non-loopback address of the host, else loopback).
 */
export function resolveAdvertiseAddress(advertise: string | undefined, bindAddress: string): string {
  if (advertise) return advertise;
  if (!UNSPECIFIED.has(bindAddress)) return bindAddress;
  const all = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  const v4 = all.find((a) => a.family === 'IPv4' && !a.internal);
  const v6 = all.find((a) => a.family === 'IPv6' && !a.internal && !a.address.startsWith('fe80'));
  return v4?.address ?? v6?.address ?? '127.0.0.1';
}

// ---------------------------------------------------------------------------------------------
// ApiServerConfig

const UNSPECIFIED = new Set(['', '0.0.0.0', '::']);

async function writable(dir: string): Promise<boolean> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The folder the self-signed serving pair is in: --cert-dir, or `<data-dir>/certs` when the default
 * --cert-dir (/var/run/svc) is not writable, e.g. not running as root.
 */
export async function servingCertDir(o: ApiServerOptions): Promise<string> {
  const c = o.common;
  if (!c.tls.certFile && o.certDirIsDefault && !(await writable(c.tls.certDir))) return join(o.dataDir, 'certs');
  return c.tls.certDir;
}

/**
 * Where the `apiserver` daemon writes its admin client configuration: beside the self-signed
 * certificate it trusts, or in --data-dir when the serving pair is the operator's own
 * (--tls-cert-file), whose folder is theirs.
 */
export async function adminConfigDir(o: ApiServerOptions): Promise<string> {
  return o.common.tls.certFile ? o.dataDir : servingCertDir(o);
}

/** The resolved authentication settings with the methods' files read (a file that cannot be read stops the start, naming the flag). */
export function readAuthenticationFiles(o: ApiServerOptions): AuthenticationConfig {
  const files = o.authenticationFiles;
  const out: AuthenticationConfig = { ...o.authentication, apiAudiences: [...o.authentication.apiAudiences] };
  if (files.clientCaFile) out.x509 = { clientCA: readFlagFile('--client-ca-file', files.clientCaFile) };
  if (files.tokenAuthFile) out.tokenFile = { text: readFlagFile('--token-auth-file', files.tokenAuthFile), source: files.tokenAuthFile };
  if (files.requestHeader) {
    const { clientCaFile, ...rest } = files.requestHeader;
    out.requestHeader = { ...rest, clientCA: readFlagFile('--requestheader-client-ca-file', clientCaFile) };
  }
  return out;
}

/** --proxy-client-cert-file and --proxy-client-key-file read and checked to be a pair (absent: none). */
function proxyClientCertificate(o: ApiServerOptions): { proxyClient?: { cert: string; key: string } } {
  const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = o.aggregator;
  if (!certFile || !keyFile) return {};
  const cert = readFlagFile('--proxy-client-cert-file', certFile);
  const key = readFlagFile('--proxy-client-key-file', keyFile);
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new OptionsError(`--proxy-client-cert-file ${certFile} and --proxy-client-key-file ${keyFile} do not form a usable certificate and key: ${(e as Error).message}`);
  }
  return { proxyClient: { cert, key } };
}

/**
 * The proxy client pair, read and checked at start: a certificate whose key does not match would
 * only fail later, at each webhook call.
 */
function readProxyClient(files: { certFile: string; keyFile: string }): { cert: string; key: string } {
  const cert = readFlagFile('--proxy-client-cert-file', files.certFile);
  const key = readFlagFile('--proxy-client-key-file', files.keyFile);
  let matches: boolean;
  try {
    matches = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new Error(`--proxy-client-cert-file/--proxy-client-key-file: not a PEM certificate and private key: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!matches) throw new Error(`--proxy-client-key-file ${files.keyFile} is not the private key of --proxy-client-cert-file ${files.certFile}`);
  return { cert, key };
}

/**
 * Fills the `ApiServerConfig` contract: loads or generates the serving certificate (when the
 * default --cert-dir /var/run/svc is not writable, e.g. not running as root, the self-signed pair
 * goes to `<data-dir>/certs` with a warning), and copies the resolved limits and storage settings.
 */
export async function buildApiServerConfig(o: ApiServerOptions, logger: Logger): Promise<ApiServerConfig> {
  for (const w of o.warnings) logger.warn(w);
  const c = o.common;
  const certDir = await servingCertDir(o);
  if (certDir !== c.tls.certDir) {
    logger.warn({ certDir: c.tls.certDir, fallback: certDir }, `--cert-dir ${c.tls.certDir} is not writable; writing the self-signed certificate to ${certDir}`);
  }
  const hosts = ['127.0.0.1', '::1', 'localhost', hostname()];
  if (!UNSPECIFIED.has(c.bindAddress)) hosts.push(c.bindAddress);
  if (o.advertiseAddress) hosts.push(o.advertiseAddress);
  if (o.externalHostname) hosts.push(o.externalHostname);
  const tls = await loadServingCertificates({
    ...(c.tls.certFile ? { certFile: c.tls.certFile } : {}),
    ...(c.tls.keyFile ? { keyFile: c.tls.keyFile } : {}),
    ...(c.tls.minVersion ? { minVersion: c.tls.minVersion } : {}),
    certDir,
    sniCertKeys: c.tls.sniCertKeys,
    cipherSuites: c.tls.cipherSuites,
    hosts,
    component: 'apiserver',
  });
  const v = projectVersion();
  const storage: ApiServerConfig['storage'] = {
    servers: o.storage.servers,
    serversOverrides: o.storage.serversOverrides,
    prefix: o.storage.prefix,
    dataDir: o.dataDir,
    dataDirFsync: o.dataDirFsync,
    compactionIntervalMs: o.storage.compactionIntervalMs,
    countMetricPollPeriodMs: o.storage.countMetricPollPeriodMs,
    mediaType: o.storage.mediaType,
  };
  if (o.storage.caFile) storage.caFile = o.storage.caFile;
  if (o.storage.certFile) storage.certFile = o.storage.certFile;
  if (o.storage.keyFile) storage.keyFile = o.storage.keyFile;
  return {
    bindAddress: c.bindAddress,
    securePort: c.securePort,
    tls,
    http2MaxStreamsPerConnection: c.http2MaxStreamsPerConnection,
    storage,
    watchCache: { ...o.watchCache, sizes: { ...o.watchCache.sizes } },
    maxRequestsInflight: o.maxRequestsInflight,
    maxMutatingRequestsInflight: o.maxMutatingRequestsInflight,
    priorityAndFairness: o.priorityAndFairness,
    requestTimeoutMs: o.requestTimeoutMs,
    minRequestTimeoutSeconds: o.minRequestTimeoutSeconds,
    shutdownDelayMs: o.shutdownDelayMs,
    livezGracePeriodMs: o.livezGracePeriodMs,
    deleteCollectionWorkers: o.deleteCollectionWorkers,
    runtimeConfig: o.runtimeConfig,
    featureGates: c.featureGates,
    profiling: c.profiling,
    corsAllowedOrigins: o.corsAllowedOrigins,
    goawayChance: o.goawayChance,
    maxConnectionBytesPerSec: o.maxConnectionBytesPerSec,
    inputLimits: inputLimitsFor(o.maxRequestBodyBytes),
    services: {
      clusterIPRanges: o.serviceClusterIPRanges,
      nodePortRange: { base: o.serviceNodePortRange.base, size: o.serviceNodePortRange.size },
      masterServiceNodePort: o.masterServiceNodePort,
      endpointReconcilerType: o.endpointReconcilerType,
      apiserverCount: o.apiserverCount,
      advertiseAddress: resolveAdvertiseAddress(o.advertiseAddress, c.bindAddress),
      repairIntervalMs: 3 * 60_000,
      endpointIntervalMs: 10_000,
    },
    continueTokenTtlMs: 5 * 60_000,
    aggregator: { endpointRouting: o.aggregator.endpointRouting, ...proxyClientCertificate(o) },
    ...authConfig(o, logger),
    ...auditConfig(o),
    admissionPlugins: [...o.admissionPlugins],
    ...(o.proxyClient ? { proxyClient: readProxyClient(o.proxyClient) } : {}),
    defaultTolerationSeconds: { ...o.defaultTolerationSeconds },
    admissionPluginConfigurations: admissionConfiguration(o),
    ...volumeLabelerOf(o),
    version: { major: v.major, minor: v.minor, gitVersion: v.gitVersion },
    svclet: {
      https: o.svclet.https,
      preferredAddressTypes: [...o.svclet.preferredAddressTypes],
      timeoutMs: o.svclet.timeoutMs,
      ...(o.svclet.caFile ? { ca: readFlagFile('--svclet-certificate-authority', o.svclet.caFile) } : {}),
      ...(o.svclet.certFile ? { cert: readFlagFile('--svclet-client-certificate', o.svclet.certFile) } : {}),
      ...(o.svclet.keyFile ? { key: readFlagFile('--svclet-client-key', o.svclet.keyFile) } : {}),
    },
    logger,
    ...(c.profiling ? { extraHandlers: [createProfilingHandler()] } : {}),
  };
}

/** Whether --runtime-config serves PodPresets (a bad --runtime-config is reported where the registry is built). */
function podPresetsServed(runtimeConfig: Record<string, string>): boolean {
  try {
    return new ResourceRegistry(builtinResources(), runtimeConfig).lookup('settings.svc.io', 'v1alpha1', 'podpresets') !== undefined;
  } catch {
    return true;
  }
}

/**
 * The cloud's answer about volumes for PersistentVolumeLabel: made from --cloud-provider and
 * --cloud-config (none, `external`, or a provider without disks: nothing, and the plugin labels nothing).
 */
function volumeLabelerOf(o: ApiServerOptions): Pick<ApiServerConfig, 'volumeLabeler'> {
  let provider;
  try {
    provider = cloudProviderFromFlags({ provider: o.cloud.provider, cloudConfig: o.cloud.cloudConfig });
  } catch (e) {
    if (e instanceof CloudProviderError) throw new OptionsError(e.message);
    throw e;
  }
  const labels = provider?.volumeLabels?.bind(provider);
  return labels ? { volumeLabeler: { volumeLabels: labels } } : {};
}
