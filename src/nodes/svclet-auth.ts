/**
 * Who may read a pod's volume files from the node-agent endpoint (svclet-server.ts): as the
 * established node agent decides for its API, by asking the API server as the node itself (its
 * client: `system:node:<name>` under --node-identity=impersonate, whose node rules allow both
 * reviews; else the fleet's credential):
 *
 * - the bearer token of the request is sent as a TokenReview (no token, or one the API server does
 *   not accept: 401; client certificates are not looked at here);
 * - the user it names must be allowed `get` on `nodes/proxy` of the node running the pod, asked as
 *   a SubjectAccessReview (the established node agent's rule for every path it serves that has no
 *   narrower subresource); otherwise 403 `Forbidden (user=..., verb=get, resource=nodes,
 *   subresource(s)=[proxy])`;
 * - a review that fails (the fleet's credential may not create reviews, the server is down) is a
 *   refusal, never an allow.
 * Answers are not cached: reading a volume file is rare.
 */
import type { ApiClient, ResourceRef } from '../client/types.js';

export interface VolumeReadDecision {
  code: 200 | 401 | 403;
  message: string;
}

export type VolumeReadAuthorizer = (authorization: string | undefined, node: string) => Promise<VolumeReadDecision>;

const TOKEN_REVIEWS: ResourceRef = { group: 'authentication.svc.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
const SUBJECT_ACCESS_REVIEWS: ResourceRef = { group: 'authorization.svc.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});

/** Reviews with the client of the node running the pod (`clientFor(node)`). */
export function reviewingAuthorizer(clientFor: (node: string) => ApiClient): VolumeReadAuthorizer {
  return async (authorization, node) => {
    const client = clientFor(node);
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) return { code: 401, message: 'Unauthorized' };
    let user: Loose;
    try {
      const review = rec(
        await client.create(TOKEN_REVIEWS, '', { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: m[1] } } as never),
      );
      const status = rec(review['status']);
      if (status['authenticated'] !== true) return { code: 401, message: 'Unauthorized' };
      user = rec(status['user']);
    } catch (e) {
      return { code: 401, message: `Unauthorized: the token could not be reviewed: ${(e as Error).message}` };
    }
    const username = typeof user['username'] === 'string' ? user['username'] : '';
    const attrs = { verb: 'get', resource: 'nodes', subresource: 'proxy', name: node };
    const refused: VolumeReadDecision = { code: 403, message: `Forbidden (user=${username}, verb=get, resource=nodes, subresource(s)=[proxy])` };
    try {
      const sar = rec(
        await client.create(SUBJECT_ACCESS_REVIEWS, '', {
          apiVersion: 'authorization.svc.io/v1',
          kind: 'SubjectAccessReview',
          metadata: {},
          spec: { user: username, uid: user['uid'], groups: user['groups'] ?? [], extra: user['extra'] ?? {}, resourceAttributes: attrs },
        } as never),
      );
      return rec(sar['status'])['allowed'] === true ? { code: 200, message: 'ok' } : refused;
    } catch (e) {
      return { ...refused, message: `${refused.message}: the access review failed: ${(e as Error).message}` };
    }
  };
}
