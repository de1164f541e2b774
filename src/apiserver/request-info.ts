/**
 * Turns a request path and method into what it addresses: the API verb, group/version, namespace,
 * resource, name and subresource. Every later stage (limits, authorization, handlers, metrics) reads
 * this one structure instead of parsing the path again.
 */
import { canonicalGroup, isEstablishedGroup, type Spelling } from '../api/established-spelling.js';
import { parseBoolWord } from '../api/booleans.js';
import { badRequest } from '../api/status.js';

export type ApiVerb =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deletecollection';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  path: string;
  verb: ApiVerb;
  /** 'api' (core group) or 'apis'. */
  apiPrefix: 'api' | 'apis';
  /** Our name of the group, whichever spelling the path used. */
  group: string;
  /** The path named the group in the established spelling (src/api/established-spelling.ts). */
  spelling: Spelling;
  version: string;
  /** '' for cluster-wide requests. */
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  path: string;
  /** Lower-case HTTP method. */
  verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Verbs that change state (counted against --max-mutating-requests-inflight). */
export function isMutating(verb: string): boolean {
  return verb !== 'get' && verb !== 'list' && verb !== 'watch';
}

const SEGMENT = /^[^/]+$/;


function checkSegment(seg: string, what: string): void {
  // Path traversal and empty segments never address anything.
  if (seg === '.' || seg === '..' || !SEGMENT.test(seg)) {
    throw badRequest(`invalid ${what} in path: ${JSON.stringify(seg)}`);
  }
}

function decodeSegment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badRequest(`malformed percent-encoding in path segment ${JSON.stringify(raw)}`);
  }
}

/**
 * Parses `/api/v1/...` and `/apis/<group>/<version>/...` paths. Any other path is a non-resource
 * request. `watch` is decided from the query (`watch=1|true`) for collection GETs.
 */
export function parseRequestInfo(method: string, pathname: string, query: URLSearchParams): RequestInfo {
  const m = method.toLowerCase();
  const raw = pathname.split('/').filter((s, i) => i > 0 || s !== '');
  if (raw[0] === '') raw.shift();
  const prefix = raw[0];
  if (prefix !== 'api' && prefix !== 'apis') return { isResourceRequest: false, path: pathname, verb: m };
  const parts = raw.map(decodeSegment);
  if (parts.some((p, i) => p === '' && i < parts.length - 1)) throw badRequest(`empty segment in path ${pathname}`);
  if (parts[parts.length - 1] === '') parts.pop();
  let i = 1;
  let group = '';
  let spelling: Spelling = 'svc';
  if (prefix === 'apis') {
    if (parts.length < 4) return { isResourceRequest: false, path: pathname, verb: m };
    const spelled = parts[i++]!;
    group = canonicalGroup(spelled);
    if (isEstablishedGroup(spelled)) spelling = 'established';
  } else if (parts.length < 3) {
    return { isResourceRequest: false, path: pathname, verb: m };
  }
  const version = parts[i++]!;
  let rest = parts.slice(i);
  for (const seg of rest) checkSegment(seg, 'segment');
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length >= 3 && rest[1] !== undefined) {
    // /namespaces/<ns>/<resource>[/<name>[/<sub>]] ; /namespaces/<name>/<sub> is a namespace subresource.
    if (rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize')) {
      // namespaces/<name>/status: the namespace object's own subresource
    } else {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  if (rest.length > 3) throw badRequest(`path ${pathname} has too many segments`);

  let verb: ApiVerb;
  const isWatch = parseBoolWord(query.get('watch') ?? '') === true;
  switch (m) {
    case 'get':
    case 'head':
      verb = name ? 'get' : isWatch ? 'watch' : 'list';
      break;
    case 'post':
      verb = 'create';
      break;
    case 'put':
      verb = 'update';
      break;
    case 'patch':
      verb = 'patch';
      break;
    case 'delete':
      verb = name ? 'delete' : 'deletecollection';
      break;
    default:
      return { isResourceRequest: false, path: pathname, verb: m };
  }
  return { isResourceRequest: true, path: pathname, verb, apiPrefix: prefix, group, spelling, version, namespace, resource, name, subresource };
}
