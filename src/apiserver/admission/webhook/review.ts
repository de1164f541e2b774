/**
 * The AdmissionReview exchanged with admission webhooks (admission.k8s.io v1 and v1beta1, the
 * established wire format; our spelling `admission.svc.io` is accepted in answers too):
 *
 * request: uid, kind/resource/subResource (the group-version the webhook's rules matched),
 * requestKind/requestResource/requestSubResource (what the client asked for), name, namespace,
 * operation, userInfo, object, oldObject, dryRun, options (Create/Update/DeleteOptions).
 * Groups and apiVersions are in the established spelling (`networking.k8s.io`), as the token and
 * access review webhooks send them (src/apiserver/auth/webhook-*.ts): webhook servers are written
 * against the established libraries.
 *
 * response: uid (v1: must be the request's), allowed, status (a refusal's Status), patch (base64
 * of a JSON Patch, mutating only) with patchType `JSONPatch` (v1: required with a patch),
 * warnings, auditAnnotations. The established VerifyAdmissionResponse messages are kept; any
 * violation is a failed call (failurePolicy decides), never a silent allow.
 */
import { randomUUID } from 'node:crypto';
import fastJsonPatch from 'fast-json-patch';
import { canonicalizeBody, establishedGroup, establishedJsonText } from '../../../api/established-spelling.js';
import { groupVersion, type ResourceDefinition, type SvcObject } from '../../../api/types.js';
import { readAs, writeAs } from '../../../api/versions.js';
import type { AdmissionAttributes } from '../chain.js';
import type { WebhookInvocation } from './matching.js';

type Loose = Record<string, unknown>;

export type ReviewVersion = 'v1' | 'v1beta1';
const SUPPORTED: readonly ReviewVersion[] = ['v1', 'v1beta1'];
const REVIEW_GROUPS = new Set(['admission.k8s.io', 'admission.svc.io']);

/** The first of the webhook's admissionReviewVersions this server speaks (undefined: none). */
export function chooseReviewVersion(accepted: readonly string[] | undefined): ReviewVersion | undefined {
  return (accepted ?? []).find((v): v is ReviewVersion => (SUPPORTED as readonly string[]).includes(v));
}

/** A copy of `obj` in the established spelling (apiVersion and apiGroup fields). */
function established<T>(obj: T): T {
  return JSON.parse(establishedJsonText(JSON.stringify(obj))) as T;
}

/** The request's object converted to the version the invocation matched (a private copy). */
export function objectFor(inv: WebhookInvocation, a: AdmissionAttributes, obj: SvcObject | undefined): SvcObject | undefined {
  if (!obj) return undefined;
  const copy = structuredClone(obj);
  if (inv.def === a.def || a.subresource !== '') return copy;
  return readAs(inv.def, [])(writeAs(a.def, copy));
}

/** The object a patched review object stands for, back in the request's version and our spelling. */
export function objectFromReview(inv: WebhookInvocation, a: AdmissionAttributes, patched: SvcObject): SvcObject {
  canonicalizeBody(patched);
  if (inv.def === a.def || a.subresource !== '') return patched;
  return readAs(a.def, [])(writeAs(inv.def, patched));
}

const gvk = (group: string, version: string, kind: string) => ({ group: establishedGroup(group), version, kind });
const gvr = (def: ResourceDefinition) => ({ group: establishedGroup(def.group), version: def.version, resource: def.plural });

/** The kind of what is admitted: a subresource's own kind (Scale, Eviction, Binding) when the object says so. */
function kindOf(def: ResourceDefinition, obj: SvcObject | undefined, subresource: string): { group: string; version: string; kind: string } {
  if (subresource !== '' && obj && typeof obj.apiVersion === 'string' && typeof obj.kind === 'string') {
    const slash = obj.apiVersion.indexOf('/');
    return gvk(slash < 0 ? '' : obj.apiVersion.slice(0, slash), slash < 0 ? obj.apiVersion : obj.apiVersion.slice(slash + 1), obj.kind);
  }
  return gvk(def.group, def.version, def.kind);
}

function optionsFor(a: AdmissionAttributes): Loose {
  const kind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : a.operation === 'DELETE' ? 'DeleteOptions' : '';
  if (!kind) return {};
  return { apiVersion: 'meta.k8s.io/v1', kind, ...(a.dryRun ? { dryRun: ['All'] } : {}), ...(a.options ?? {}) };
}

export interface BuiltReview {
  uid: string;
  version: ReviewVersion;
  body: Loose;
}

/** The AdmissionReview request for one webhook call. */
export function buildReview(version: ReviewVersion, a: AdmissionAttributes, inv: WebhookInvocation, uid: string = randomUUID()): BuiltReview {
  const object = objectFor(inv, a, a.object);
  const oldObject = objectFor(inv, a, a.oldObject);
  const user: Loose = { username: a.user.username, ...(a.user.uid ? { uid: a.user.uid } : {}), groups: [...a.user.groups] };
  if (a.user.extra && Object.keys(a.user.extra).length) user['extra'] = a.user.extra;
  const options = optionsFor(a);
  const request: Loose = {
    uid,
    kind: kindOf(inv.def, object ?? oldObject, inv.subresource),
    resource: gvr(inv.def),
    ...(inv.subresource ? { subResource: inv.subresource } : {}),
    requestKind: kindOf(a.def, a.object ?? a.oldObject, a.subresource),
    requestResource: gvr(a.def),
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: user,
    object: object ? established(object) : null,
    oldObject: oldObject ? established(oldObject) : null,
    dryRun: a.dryRun,
    options: Object.keys(options).length ? options : null,
  };
  return { uid, version, body: { apiVersion: `admission.k8s.io/${version}`, kind: 'AdmissionReview', request } };
}

/** A webhook's answer, checked. */
export interface ReviewResult {
  allowed: boolean;
  /** The refusal's Status as the webhook gave it (absent: none). */
  status?: Loose;
  /** JSON Patch operations (mutating webhooks only). */
  patch?: fastJsonPatch.Operation[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** VerifyAdmissionResponse: the answer's response, or an Error saying what is wrong with it. */
export function verifyReview(review: BuiltReview, answer: unknown, mutating: boolean): ReviewResult {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw new Error('webhook response was absent');
  const doc = answer as Loose;
  const r = doc['response'];
  if (review.version === 'v1') {
    const apiVersion = typeof doc['apiVersion'] === 'string' ? doc['apiVersion'] : '';
    const [group = '', version = ''] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    if (!REVIEW_GROUPS.has(group) || version !== 'v1' || doc['kind'] !== 'AdmissionReview') {
      const got = `${apiVersion === '' ? '/' : apiVersion}, Kind=${typeof doc['kind'] === 'string' ? doc['kind'] : ''}`;
      if (r === null || typeof r !== 'object') throw new Error('webhook response was absent');
      throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got}`);
    }
  }
  if (r === null || typeof r !== 'object' || Array.isArray(r)) throw new Error('webhook response was absent');
  const resp = r as Loose;
  if (review.version === 'v1' && resp['uid'] !== review.uid) {
    throw new Error(`expected response.uid=${JSON.stringify(review.uid)}, got ${JSON.stringify(typeof resp['uid'] === 'string' ? resp['uid'] : '')}`);
  }
  const patchType = typeof resp['patchType'] === 'string' ? resp['patchType'] : '';
  const rawPatch = typeof resp['patch'] === 'string' ? resp['patch'] : '';
  let patch: fastJsonPatch.Operation[] | undefined;
  if (rawPatch !== '') {
    if (!mutating) throw new Error('validating webhook may not return response.patch');
    if (review.version === 'v1' && patchType === '') throw new Error('webhook returned response.patch but not response.patchType');
    if (patchType !== '' && patchType !== 'JSONPatch') throw new Error(`webhook returned invalid response.patchType of ${JSON.stringify(patchType)}`);
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(rawPatch, 'base64').toString('utf8'));
    } catch {
      throw new Error('webhook returned a response.patch that is not a base64-encoded JSON patch');
    }
    if (!Array.isArray(ops)) throw new Error('webhook returned a response.patch that is not a JSON patch (an array of operations)');
    const problem = fastJsonPatch.validate(ops as fastJsonPatch.Operation[]);
    if (problem) throw new Error(`webhook returned an invalid JSON patch: ${problem.message.split('\n')[0]}`);
    patch = ops as fastJsonPatch.Operation[];
  }
  const warnings = Array.isArray(resp['warnings']) ? resp['warnings'].filter((w): w is string => typeof w === 'string') : [];
  const annotations: Record<string, string> = {};
  const aa = resp['auditAnnotations'];
  if (aa && typeof aa === 'object' && !Array.isArray(aa)) for (const [k, v] of Object.entries(aa)) if (typeof v === 'string') annotations[k] = v;
  const status = resp['status'];
  return {
    allowed: resp['allowed'] === true,
    ...(status && typeof status === 'object' && !Array.isArray(status) ? { status: status as Loose } : {}),
    ...(patch ? { patch } : {}),
    warnings,
    auditAnnotations: annotations,
  };
}

/** Applies a webhook's patch to the review's object (a copy); throws an Error saying why it cannot. */
export function applyReviewPatch(object: SvcObject, ops: readonly fastJsonPatch.Operation[]): SvcObject {
  let out: unknown = established(object);
  for (const op of ops) {
    out = fastJsonPatch.applyOperation(out, op, true, true).newDocument;
  }
  if (out === null || typeof out !== 'object' || Array.isArray(out)) throw new Error('the patched object is not an object');
  const o = out as SvcObject;
  if (!o.metadata || typeof o.metadata !== 'object') throw new Error('the patched object has no metadata');
  return o;
}

/** `group/version` of a definition in the established spelling (for messages). */
export function establishedGroupVersion(def: ResourceDefinition): string {
  return groupVersion({ group: establishedGroup(def.group), version: def.version });
}
