/**
 * POST serviceaccounts/<name>/token (a TokenRequest, authentication.svc.io/v1): issues a bound
 * token for the service account (`kubectl create token`), as established:
 *
 * - served only with a signing key (--service-account-signing-key-file) and the TokenRequest gate;
 * - `spec.audiences` defaults to --api-audiences; `spec.expirationSeconds` to 3600, at least 600
 *   and at most 2^32 (422 otherwise), and is cut to --service-account-max-token-expiration;
 * - `spec.boundObjectRef` (kind Pod or Secret of the core group, in the account's namespace) binds
 *   the token to that object: it must exist (404), have the given uid (409 when not: deleted and
 *   made again) and, for a Pod, run as this account (400); other kinds are a 400;
 * - admission (mutating, then validating) sees the TokenRequest as a create of `token` first;
 * - the account must exist (404); the answer (201) is the request with `status.token` and
 *   `status.expirationTimestamp`, in the group spelling the request used. Dry run checks it all
 *   and issues no token.
 */
import { admissionFieldsOf } from './admission-request.js';
import { podDefinition, secretDefinition } from '../../api/kinds/index.js';
import { badRequest, conflict, invalid, methodNotAllowed } from '../../api/status.js';
import type { FieldError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { OBJECT_MEDIA_TYPES } from '../../codec/body.js';
import { PROTOBUF_MEDIA_TYPE } from '../../codec/protobuf/codec.js';
import { invalidValue } from '../../api/validation/field-errors.js';
import type { BoundTokenRequest, ServiceAccountTokenIssuer } from '../auth/service-account-tokens.js';
import { answerInEstablishedSpelling, readRequestValueAndSpelling, writeJson } from '../http.js';
import { asObject, timestamp } from '../object-rules.js';
import { isDryRun, type RequestScope } from '../scope.js';

export const AUTHENTICATION_GROUP = 'authentication.svc.io';
const TOKEN_REQUEST_API_VERSION = `${AUTHENTICATION_GROUP}/v1`;
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** What the subresource needs: the issuer, the default audiences and the expiration bound. */
export interface TokenRequestSettings {
  issuer: ServiceAccountTokenIssuer;
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds (absent: no bound). */
  maxExpirationSeconds?: number;
}

const rec = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export async function handleTokenRequest(s: RequestScope, settings: TokenRequestSettings): Promise<void> {
  if (s.info.verb !== 'create') throw methodNotAllowed('only POST is supported on the token subresource');
  const { value, established } = await readRequestValueAndSpelling(s.req, [...OBJECT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE], s.services.config.inputLimits);
  const body = asObject(value, 'TokenRequest');
  if (body.kind !== undefined && body.kind !== 'TokenRequest') throw badRequest(`the kind in the data (${String(body.kind)}) must be TokenRequest`);
  if (body.apiVersion !== undefined && body.apiVersion !== TOKEN_REQUEST_API_VERSION) {
    throw badRequest(`the apiVersion in the data (${String(body.apiVersion)}) must be ${TOKEN_REQUEST_API_VERSION}`);
  }
  if (body.metadata.namespace && body.metadata.namespace !== s.info.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  // Admitted as the create it is, before the request's own checks, as established (NodeRestriction:
  // a node asks only for tokens bound to a pod of its own).
  const dryRun = isDryRun(s.query);
  const attrs = { operation: 'CREATE' as const, def: s.def, namespace: s.info.namespace, name: s.info.name, subresource: 'token', object: body, dryRun, ...admissionFieldsOf(s) };
  await s.services.admission.mutate(attrs);
  await s.services.admission.validate(attrs);
  const spec = rec(body['spec']) ?? {};
  const errors: FieldError[] = [];
  const rawAuds = spec['audiences'];
  if (rawAuds !== undefined && rawAuds !== null && (!Array.isArray(rawAuds) || rawAuds.some((a) => typeof a !== 'string'))) {
    errors.push(invalidValue('spec.audiences', rawAuds, 'must be a list of strings'));
  }
  const audiences = Array.isArray(rawAuds) && rawAuds.length > 0 ? (rawAuds as string[]) : settings.apiAudiences;
  const rawExp = spec['expirationSeconds'];
  let expirationSeconds = rawExp === undefined || rawExp === null ? DEFAULT_EXPIRATION_SECONDS : rawExp;
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) {
    errors.push(invalidValue('spec.expirationSeconds', expirationSeconds, 'must be an integer'));
    expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  } else if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errors.push(invalidValue('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  } else if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
    errors.push(invalidValue('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  if (errors.length) throw invalid('TokenRequest', body.metadata.name ?? '', AUTHENTICATION_GROUP, errors);
  const max = settings.maxExpirationSeconds;
  if (max !== undefined && max > 0 && (expirationSeconds as number) > max) expirationSeconds = max;

  const account = (await s.store.get(s.info.namespace, s.info.name)).object;
  const request: BoundTokenRequest = {
    namespace: s.info.namespace,
    serviceAccount: { name: s.info.name, uid: account.metadata.uid ?? '' },
    audiences: [...audiences],
    expirationSeconds: expirationSeconds as number,
  };
  const ref = rec(spec['boundObjectRef']);
  if (ref) request.boundObject = await boundObject(s, ref);

  const now = s.services.now();
  const issued = dryRun ? undefined : await settings.issuer.issue(request);
  const answer: SvcObject = {
    kind: 'TokenRequest',
    apiVersion: TOKEN_REQUEST_API_VERSION,
    metadata: { ...body.metadata, name: s.info.name, namespace: s.info.namespace, creationTimestamp: timestamp(now) },
    spec: { audiences: request.audiences, expirationSeconds: request.expirationSeconds, boundObjectRef: ref ?? null },
    status: { token: issued?.token ?? '', expirationTimestamp: timestamp(issued?.expiresAt ?? now + request.expirationSeconds * 1000) },
  };
  if (established) answerInEstablishedSpelling(s.res);
  writeJson(s.res, 201, answer);
}

/** The Pod or Secret `ref` names, checked as established. */
async function boundObject(s: RequestScope, ref: Record<string, unknown>): Promise<NonNullable<BoundTokenRequest['boundObject']>> {
  const kind = str(ref['kind']);
  const apiVersion = str(ref['apiVersion']);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const name = str(ref['name']);
  const uid = str(ref['uid']);
  if (group !== '' || (kind !== 'Pod' && kind !== 'Secret')) {
    const gvk = `${group ? `${group}/` : ''}${slash < 0 ? apiVersion : apiVersion.slice(slash + 1)}, Kind=${kind}`;
    throw badRequest(`cannot bind token for serviceaccount "${s.info.name}" to object of kind "${gvk}"`);
  }
  if (!name) throw invalid('TokenRequest', s.info.name, AUTHENTICATION_GROUP, [{ field: 'spec.boundObjectRef.name', type: 'FieldValueRequired', message: 'Required value' }]);
  const def = kind === 'Pod' ? podDefinition : secretDefinition;
  const target = (await s.services.storeFor(def).get(s.info.namespace, name)).object;
  const actual = target.metadata.uid ?? '';
  if (uid && uid !== actual) {
    throw conflict(
      { group: '', resource: kind, name },
      `the UID in the bound object reference (${uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  // A pod that names no account runs as `default` (what the ServiceAccount admission plugin sets).
  if (kind === 'Pod' && (str(rec(target.spec)?.['serviceAccountName']) || 'default') !== s.info.name) {
    throw badRequest(`cannot bind token for serviceaccount "${s.info.name}" to pod running with different serviceaccount name.`);
  }
  return { kind, name, uid: actual };
}
