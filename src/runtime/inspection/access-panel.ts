/**
 * The access panel of the /debug/machines page: who may do what, for the user viewing the page
 * or one they pick, answered by the authorizer in force on the API server (SubjectAccessReviews
 * made with the daemon's own client: src/client/access-review.ts, the same questions as
 * `svc auth access-matrix` and `svc auth who-can`).
 *
 *   GET /debug/machines/access/viewer                     the viewer (user, groups) and what the panel lets them ask
 *   GET /debug/machines/access/matrix?user=&group=&namespace=
 *                                                         resources x verbs for that user (default: the viewer)
 *   GET /debug/machines/access/who-can?verb=&resource=&namespace=&name=
 *                                                         the subjects allowed, with the server's reasons
 *
 * The page is behind the port's own checks already (delegated authentication and authorization:
 * a user allowed `get` on the path /debug/machines/*); the panel must not let that user learn more
 * than they could ask the API server themselves, although it asks with the daemon's identity. So,
 * as the established review APIs decide, each question is first asked about the viewer:
 * - their own matrix: always (anyone may make SelfSubjectAccessReviews);
 * - another user's matrix: the viewer needs `create` on subjectaccessreviews (a SubjectAccessReview
 *   names any user);
 * - who-can: `create` on subjectaccessreviews and `list` on clusterrolebindings (and rolebindings in
 *   the namespace asked about), what `svc auth who-can` needs.
 * A viewer refused gets a 403 Status naming what they lack; the daemon's identity refused (it may
 * not create reviews or list bindings) gets the server's 403 with the identity named. A port that
 * authenticates nobody (svc run, `svc up --insecure-allow-all`) has viewer system:anonymous, so the
 * same checks decide (never an open door).
 */
import { StatusError } from '../../api/status.js';
import { accessMatrix, MATRIX_VERBS, review, type ReviewUser, whoCan } from '../../client/access-review.js';
import { ApiError } from '../../client/types.js';
import type { ApiClient } from '../../client/types.js';
import type { DebugRequest, DebugResponse } from './debug-machines-handler.js';

/** The user a request on the port was authenticated as. */
export interface Viewer {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export interface AccessPanelOptions {
  /** The daemon's own client: it makes the reviews and lists the bindings (undefined: not connected yet, 503). */
  client(): ApiClient | undefined;
  /** The daemon's identity, for messages ("system:svc-scheduler"). */
  identity: string;
  /** Who the request is (the port's authentication); undefined: the port authenticates nobody. */
  viewer(req: DebugRequest): Viewer | undefined;
}

const ANONYMOUS: Viewer = { username: 'system:anonymous', groups: ['system:unauthenticated'] };
const SAR = 'subjectaccessreviews.authorization.svc.io';
const NAMESPACE_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERB_RE = /^([a-z]+|\*)$/;
const RESOURCE_RE = /^([a-z0-9][-a-z0-9.]*|\*)(\/[a-z0-9]+)?$/;

function sendJson(res: DebugResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(`${JSON.stringify(body)}\n`);
}

function sendStatus(res: DebugResponse, err: unknown, identity: string): void {
  if (err instanceof StatusError) return sendJson(res, err.code, err.status);
  if (err instanceof ApiError) {
    const message = `asked as ${identity}: ${err.status.message ?? err.message}`;
    return sendJson(res, err.code, { ...err.status, message });
  }
  sendJson(res, 500, new StatusError(500, 'InternalError', err instanceof Error ? err.message : String(err)).status);
}

const forbidden = (viewer: Viewer, what: string) => new StatusError(403, 'Forbidden', `User ${JSON.stringify(viewer.username)} may not ${what}`);
const invalid = (message: string) => new StatusError(400, 'BadRequest', message);

function asReviewUser(v: Viewer): ReviewUser {
  return { user: v.username, groups: v.groups, ...(v.uid ? { uid: v.uid } : {}), ...(v.extra ? { extra: v.extra } : {}) };
}

function namespaceParam(q: URLSearchParams): string {
  const ns = q.get('namespace') ?? '';
  if (ns !== '' && !NAMESPACE_RE.test(ns)) throw invalid(`namespace ${JSON.stringify(ns)} is not a valid namespace name (a DNS-1123 label), or leave it empty for cluster-wide`);
  return ns;
}

export type AccessPanelHandler = (req: DebugRequest, res: DebugResponse, rest: string, query: URLSearchParams) => boolean;

/** Serves `/debug/machines/access/*` (rest: the path after /debug/machines); false for other paths. */
export function accessPanelHandler(o: AccessPanelOptions): AccessPanelHandler {
  /** Whether the viewer may `verb` `resource` (cluster-wide unless namespace), asked of the server. */
  const answer = async (path: string, q: URLSearchParams, viewer: Viewer): Promise<unknown> => {
    const client = o.client();
    if (!client) throw new StatusError(503, 'ServiceUnavailable', `${o.identity} is not connected to the API server yet; try again in a moment`);
    const may = async (viewer: Viewer, verb: string, resource: string, namespace = '') => (await review(client, asReviewUser(viewer), { verb, resource, namespace })).allowed;
    if (path === 'viewer') {
      const [others, bindings] = await Promise.all([may(viewer, 'create', SAR), may(viewer, 'list', 'clusterrolebindings.rbac.authorization.svc.io')]);
      return { user: viewer.username, groups: viewer.groups, identity: o.identity, verbs: MATRIX_VERBS, mayAskAboutOthers: others, mayAskWhoCan: others && bindings };
    }
    if (path === 'matrix') {
      const namespace = namespaceParam(q);
      const user = q.get('user') ?? viewer.username;
      const groups = q.has('user') || q.has('group') ? q.getAll('group').filter(Boolean) : viewer.groups;
      const self = user === viewer.username && groups.length === viewer.groups.length && groups.every((g) => viewer.groups.includes(g));
      if (!self && !(await may(viewer, 'create', SAR))) throw forbidden(viewer, `see the access of another user (${JSON.stringify(user)}): that needs create on subjectaccessreviews.authorization.svc.io`);
      if (user === '' && groups.length === 0) throw invalid('give a user or at least one group');
      const who: ReviewUser = self ? asReviewUser(viewer) : { user, groups };
      return { user, groups, namespace, verbs: MATRIX_VERBS, rows: await accessMatrix(client, who, namespace) };
    }
    if (path === 'who-can') {
      const namespace = namespaceParam(q);
      const verb = q.get('verb') ?? '';
      const resource = q.get('resource') ?? '';
      const name = q.get('name') ?? '';
      if (!VERB_RE.test(verb)) throw invalid(`verb ${JSON.stringify(verb)}: give one verb, e.g. get, list, create, delete`);
      if (!RESOURCE_RE.test(resource)) throw invalid(`resource ${JSON.stringify(resource)}: give a resource, e.g. pods, deployments.apps, pods/log`);
      const [sar, crb, rb] = await Promise.all([
        may(viewer, 'create', SAR),
        may(viewer, 'list', 'clusterrolebindings.rbac.authorization.svc.io'),
        namespace ? may(viewer, 'list', 'rolebindings.rbac.authorization.svc.io', namespace) : Promise.resolve(true),
      ]);
      if (!sar || !crb || !rb) throw forbidden(viewer, `ask who can: that needs create on subjectaccessreviews.authorization.svc.io and list on clusterrolebindings${namespace ? ` and on rolebindings in ${namespace}` : ''} (rbac.authorization.svc.io)`);
      const allowed = await whoCan(client, { verb, resource, namespace, ...(name ? { name } : {}) });
      return { verb, resource, namespace, ...(name ? { name } : {}), subjects: allowed.map(({ subject, reason }) => ({ ...subject, reason })) };
    }
    throw new StatusError(404, 'NotFound', `/debug/machines/access/${path} not found; try viewer, matrix or who-can`);
  };

  return (req, res, rest, query) => {
    if (rest !== '/access' && !rest.startsWith('/access/')) return false;
    const viewer = o.viewer(req) ?? ANONYMOUS;
    answer(rest.slice('/access/'.length), query, viewer).then(
      (body) => sendJson(res, 200, body),
      (err: unknown) => sendStatus(res, err, o.identity),
    );
    return true;
  };
}
