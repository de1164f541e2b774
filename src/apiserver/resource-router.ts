/**
 * Routes a resource request to its verb handler after the checks every resource request shares:
 * the resource exists and is enabled, the scope matches, the verb and subresource are served, the
 * query parameters are known, and the requested representation can be produced.
 */
import { handleAccessReview, isAccessReview } from './handlers/access-review.js';
import { handleAuthenticationReview, isAuthenticationReview } from './handlers/authentication-review.js';
import { handleEviction } from './handlers/eviction.js';
import { handleTokenRequest } from './handlers/token-request.js';
import { methodNotAllowed, StatusError } from '../api/status.js';
import type { ResourceRegistry } from '../api/index.js';
import type { ResourceDefinition } from '../api/types.js';
import { isEstablishedMediaType } from '../api/established-spelling.js';
import {
  JSON_REPRESENTATION,
  mediaTypeOf,
  negotiateResponse,
  type OfferedRepresentation,
  PROTOBUF_REPRESENTATION,
  TABLE_REPRESENTATION,
  TABLE_V1_REPRESENTATION,
} from '../codec/negotiation.js';
import { handleDelete, handleDeleteCollection } from './handlers/delete.js';
import { handlePatch } from './handlers/patch.js';
import { handleGet, handleList } from './handlers/read.js';
import { handleBinding, handleFinalize, handleScale, handleStatus } from './handlers/subresources.js';
import { handleWatch } from './handlers/watch.js';
import { handlePodLog } from './handlers/pod-log.js';
import { refuseRemoteCommand } from './handlers/pod-remote-commands.js';
import { handleCreate, handleUpdate } from './handlers/write.js';
import { answerInEstablishedSpelling, type PipelineRequest, type Response } from './http.js';
import { offersProtobuf } from './representation.js';
import type { ResourceRequestInfo } from './request-info.js';
import { type ApiServices, checkDryRunGate, checkQueryParameters, type RequestScope } from './scope.js';

/** The pod subresources that stream (./handlers/pod-log.ts, ./handlers/pod-remote-commands.ts). */
const POD_STREAMS = new Set(['log', 'exec', 'attach', 'portforward']);

const JSON_OUTPUT = { ...JSON_REPRESENTATION, spelling: 'svc' as const };

const NOT_FOUND_MESSAGE = 'the server could not find the requested resource';

function pageNotFound(): StatusError {
  return new StatusError(404, 'NotFound', NOT_FOUND_MESSAGE, { causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }] });
}

/** Verb of a subresource request as the query-parameter table names it. */
function subresourceVerb(info: ResourceRequestInfo): string {
  return info.verb === 'list' ? 'get' : info.verb;
}

export function resolveDefinition(registry: ResourceRegistry, info: ResourceRequestInfo): ResourceDefinition {
  const def = registry.lookup(info.group, info.version, info.resource);
  if (!def) throw pageNotFound();
  if (!def.namespaced && info.namespace) throw pageNotFound();
  if (def.namespaced && !info.namespace && info.name) throw pageNotFound();
  return def;
}

/** Verbs whose response is the object (or list, or watch stream) and so can be Protobuf. */
const PROTOBUF_VERBS = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);

/**
 * Representations a response may take, in order of preference for wildcard Accept clauses. Reads
 * of the resource itself also come as a Table; the resource itself also as Protobuf when its kind
 * offers it (never custom resources); everything else is JSON.
 */
function responseRepresentations(info: ResourceRequestInfo, def: ResourceDefinition): OfferedRepresentation[] {
  const read = info.verb === 'get' || info.verb === 'list' || info.verb === 'watch';
  const out = read && !info.subresource ? [JSON_REPRESENTATION, TABLE_V1_REPRESENTATION, TABLE_REPRESENTATION] : [JSON_REPRESENTATION];
  if (!info.subresource && PROTOBUF_VERBS.has(info.verb) && offersProtobuf(def)) out.push(PROTOBUF_REPRESENTATION);
  return out;
}

export async function routeResource(
  registry: ResourceRegistry,
  services: ApiServices,
  info: ResourceRequestInfo,
  query: URLSearchParams,
  req: PipelineRequest,
  res: Response,
): Promise<void> {
  const def = resolveDefinition(registry, info);
  if (info.subresource && POD_STREAMS.has(info.subresource) && (def.subresources as string[]).includes(info.subresource)) {
    // Text or upgraded streams, not objects: no representation to negotiate, their own parameters.
    const scope: RequestScope = { req, res, info, query, def, store: services.storeFor(def), services, output: JSON_OUTPUT, spelling: info.spelling === 'established' ? 'established' : 'svc' };
    return info.subresource === 'log' ? handlePodLog(scope) : refuseRemoteCommand(scope);
  }
  const output = negotiateResponse(req.headers['accept'], responseRepresentations(info, def));
  checkDryRunGate(services.config.featureGates, query.has('dryRun'));
  const established =
    info.spelling === 'established' || output.spelling === 'established' || isEstablishedMediaType(mediaTypeOf(req.headers['content-type']));
  if (established) answerInEstablishedSpelling(res);
  const spelling = established ? 'established' : 'svc';
  const scope: RequestScope = { req, res, info, query, def, store: services.storeFor(def), services, output, spelling };
  if (info.subresource) {
    const isNamespaceFinalize = def.group === '' && def.plural === 'namespaces' && info.subresource === 'finalize';
    // serviceaccounts/token exists only while tokens can be issued (./discovery.ts lists it then).
    const tokens = def.group === '' && def.plural === 'serviceaccounts' && info.subresource === 'token' ? services.serviceAccountTokens : undefined;
    if (!isNamespaceFinalize && !tokens && !(def.subresources as string[]).includes(info.subresource)) throw pageNotFound();
    checkQueryParameters(subresourceVerb(info), query);
    if (tokens) return handleTokenRequest(scope, tokens);
    switch (info.subresource) {
      case 'status':
      case 'approval':
        return info.verb === 'patch' ? handlePatch(scope) : handleStatus(scope);
      case 'scale':
        return handleScale(scope);
      case 'binding':
        return handleBinding(scope);
      case 'eviction':
        return handleEviction(scope);
      case 'finalize':
        return handleFinalize(scope);
      default:
        throw pageNotFound();
    }
  }
  if ((info.verb === 'update' || info.verb === 'patch') && !info.name) {
    throw methodNotAllowed(`${info.verb === 'update' ? 'PUT' : 'PATCH'} needs a single ${def.singular}: add its name to the path`);
  }
  if (!(def.verbs as string[]).includes(info.verb)) {
    throw methodNotAllowed(`the server does not allow this method on the requested resource: ${info.verb} ${def.plural}`);
  }
  checkQueryParameters(info.verb, query);
  if (isAccessReview(def) && info.verb === 'create') return handleAccessReview(scope);
  if (isAuthenticationReview(def) && info.verb === 'create') return handleAuthenticationReview(scope);
  switch (info.verb) {
    case 'get':
      return handleGet(scope);
    case 'list':
      return handleList(scope);
    case 'watch':
      return handleWatch(scope);
    case 'create':
      return handleCreate(scope);
    case 'update':
      return handleUpdate(scope);
    case 'patch':
      return handlePatch(scope);
    case 'delete':
      return handleDelete(scope);
    case 'deletecollection':
      return handleDeleteCollection(scope);
  }
}
