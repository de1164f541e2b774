/**
 * POST of a SelfSubjectAccessReview or SelfSubjectRulesReview: answered by the authorizer in force
 * (../access.ts) for the user making the request, returned with its status, never stored.
 */
import { canonicalGroup } from '../../api/established-spelling.js';
import { validateAgainstSchema } from '../../api/index.js';
import { selfSubjectAccessReviewDefinition, selfSubjectRulesReviewDefinition } from '../../api/kinds/index.js';
import { invalid } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { requestUser } from '../auth/authentication.js';
import type { AccessAttributes } from '../auth/authorization.js';
import { readRequestValue } from '../http.js';
import { asObject, checkTypeMeta } from '../object-rules.js';
import { objectMediaTypes, writeValue } from '../representation.js';
import type { RequestScope } from '../scope.js';

/** Kinds answered here instead of being stored. */
export function isAccessReview(def: ResourceDefinition): boolean {
  return def === selfSubjectAccessReviewDefinition || def === selfSubjectRulesReviewDefinition;
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export async function handleAccessReview(s: RequestScope): Promise<void> {
  const review = asObject(await readRequestValue(s.req, objectMediaTypes(s.def), s.services.config.inputLimits), s.def.kind);
  checkTypeMeta(s.def, review);
  const errors = [...validateAgainstSchema(s.def, review), ...(s.def.validate?.(review) ?? [])];
  if (errors.length) throw invalid(s.def.kind, '', s.def.group, errors);
  const user = requestUser(s.req);
  const spec = (review.spec ?? {}) as Record<string, Record<string, unknown> | undefined>;
  let status: Record<string, unknown>;
  if (s.def === selfSubjectAccessReviewDefinition) {
    const decision = await s.services.authorizer.authorize(user, attributesOf(spec));
    status = { allowed: decision.allowed, ...(decision.denied ? { denied: true } : {}), reason: decision.reason };
  } else {
    const rules = await s.services.authorizer.rulesFor(user, text((spec as Record<string, unknown>)['namespace']));
    status = { ...rules };
  }
  const answer: SvcObject = { ...review, metadata: { ...review.metadata, creationTimestamp: null as unknown as string }, status };
  writeValue(s, 201, answer as unknown as Record<string, unknown>);
}

function attributesOf(spec: Record<string, Record<string, unknown> | undefined>): AccessAttributes {
  const r = spec['resourceAttributes'];
  if (r) {
    return {
      kind: 'resource',
      verb: text(r['verb']),
      group: canonicalGroup(text(r['group'])),
      version: text(r['version']),
      resource: text(r['resource']),
      subresource: text(r['subresource']),
      namespace: text(r['namespace']),
      name: text(r['name']),
    };
  }
  const n = spec['nonResourceAttributes'] ?? {};
  return { kind: 'nonResource', verb: text(n['verb']), path: text(n['path']) };
}
