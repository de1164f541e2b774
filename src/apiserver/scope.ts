/**
 * What a resource handler gets: the parsed request, the kind's definition and store, and the
 * server-wide services (admission, clock, watch registry). One object, built once per request.
 */
import type { Logger } from 'pino';
import { badRequest } from '../api/status.js';
import type { ResourceDefinition } from '../api/types.js';
import type { Spelling } from '../api/established-spelling.js';
import type { NegotiatedRepresentation } from '../codec/negotiation.js';
import type { AuthenticationChain } from './auth/authentication.js';
import type { Authorizer } from './auth/authorization.js';
import type { AdmissionChain } from './admission/chain.js';
import type { ApiServerConfig } from './config.js';
import type { PipelineRequest, Response } from './http.js';
import type { ResourceRequestInfo } from './request-info.js';
import { parseBoolWord } from '../api/booleans.js';
import type { ResourceStore } from './resource-store.js';
import type { WatchRegistry } from './watch-registry.js';
import type { WriteHooks } from './write-hooks.js';
import type { TokenRequestSettings } from './handlers/token-request.js';
import type { IssuerDiscovery } from './auth/issuer-discovery.js';

export interface ApiServices {
  config: ApiServerConfig;
  /** The authentication methods in force (./auth/authenticators.ts): the pipeline's first stage. */
  authentication: AuthenticationChain;
  /** The authorizer in force (./auth/authorization-modes.ts): the pipeline's authorization stage and the access reviews. */
  authorizer: Authorizer;
  admission: AdmissionChain;
  /** serviceaccounts/token (./handlers/token-request.ts): present with a signing key and the TokenRequest gate. */
  serviceAccountTokens?: TokenRequestSettings;
  /** /.well-known/openid-configuration and /openid/v1/jwks: present with the ServiceAccountIssuerDiscovery gate and a usable issuer. */
  issuerDiscovery?: IssuerDiscovery;
  storeFor(def: ResourceDefinition): ResourceStore;
  /** Custom resources whose CRD is being deleted refuse new objects. */
  customResources?: { isTerminating(def: ResourceDefinition): boolean };
  watches: WatchRegistry;
  /** The kind's write-path steps that need server state (./write-hooks.ts), if any. */
  writeHooks?(def: ResourceDefinition): WriteHooks | undefined;
  now(): number;
  logger: Logger;
}

export interface RequestScope {
  req: PipelineRequest;
  res: Response;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  def: ResourceDefinition;
  store: ResourceStore;
  services: ApiServices;
  /** The response representation chosen from Accept (src/codec/negotiation.ts). */
  output: NegotiatedRepresentation;
  /**
   * The path, Accept or Content-Type used the established spelling of a group or media type: the
   * response names groups the same way (src/api/established-spelling.ts).
   */
  spelling: Spelling;
}

/** Query parameters each verb understands; anything else is a 400 naming the parameter. */
const COMMON = ['pretty'];
const LIST = ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch', 'limit', 'continue', 'watch', 'allowWatchBookmarks', 'timeoutSeconds', 'sendInitialEvents'];
const WRITE = ['dryRun', 'fieldManager', 'fieldValidation'];
/** Table options of reads (src/codec/table.ts). */
const READ = ['includeObject'];
const ALLOWED: Record<string, string[]> = {
  get: [...COMMON, ...READ, 'resourceVersion'],
  list: [...COMMON, ...READ, ...LIST],
  watch: [...COMMON, ...READ, ...LIST],
  create: [...COMMON, ...WRITE],
  update: [...COMMON, ...WRITE],
  patch: [...COMMON, ...WRITE, 'force'],
  delete: [...COMMON, 'dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
  deletecollection: [...COMMON, ...LIST, 'dryRun', 'gracePeriodSeconds', 'orphanDependents', 'propagationPolicy'],
};

export function checkQueryParameters(verb: string, query: URLSearchParams): void {
  const allowed = ALLOWED[verb] ?? COMMON;
  for (const key of new Set(query.keys())) {
    if (!allowed.includes(key)) {
      throw badRequest(`unknown query parameter "${key}" for ${verb}; allowed: ${allowed.join(', ')}`);
    }
  }
}

/** With the DryRun feature gate off, any dry-run request is refused rather than silently written. */
export function checkDryRunGate(gates: Record<string, boolean>, requested: boolean): void {
  if (requested && gates['DryRun'] === false) {
    throw badRequest('dryRun is not allowed: the DryRun feature gate is disabled on this server (--feature-gates=DryRun=true enables it)');
  }
}

/** `dryRun=All` (the only accepted value); absent means a real write. */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values) {
    if (v !== 'All') throw badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`);
  }
  return true;
}

/** Parses an optional non-negative integer query parameter (400 otherwise). */
export function intParam(query: URLSearchParams, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    throw badRequest(`${name}: invalid value "${raw}": must be a non-negative integer`);
  }
  return Number(raw);
}

export function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === '' ) return false;
  const b = parseBoolWord(raw);
  if (b === undefined) throw badRequest(`${name}: invalid value "${raw}": must be true or false (or 1, t, T, TRUE, True; 0, f, F, FALSE, False)`);
  return b;
}
