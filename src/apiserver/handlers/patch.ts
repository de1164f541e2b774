/**
 * PATCH with a JSON merge patch (RFC 7386), a JSON patch (RFC 6902) or a strategic merge patch
 * (../strategic-merge-patch.ts, built-in kinds only), applied to the current
 * object inside the guaranteed-update loop, so a concurrent write re-applies the patch to the new
 * version instead of losing either change.
 */
import fastJsonPatch from 'fast-json-patch';
import { badRequest, StatusError, unsupportedMediaType } from '../../api/status.js';
import type { SchemaNode, SvcObject } from '../../api/types.js';
import { canonicalizeBody, mayHoldEstablishedSpelling } from '../../api/established-spelling.js';
import { isBuiltinResource } from '../../api/registry.js';
import { applyStrategicMergePatch, applyStrategicMergePatchPausing, STRATEGIC_MERGE_PATCH_MEDIA_TYPE } from '../strategic-merge-patch.js';
import { mediaTypeOf, PATCH_MEDIA_TYPES } from '../../codec/body.js';
import { readRequestBytes } from '../http.js';
import { checkBodyNesting, checkJsonPatchLength, CopyBudget, type InputLimits, LARGE_OBJECT_BYTES } from '../input-limits.js';
import { writeObject } from '../representation.js';
import { asObject, checkTypeMeta, prepareForUpdate, prepareStatusUpdate } from '../object-rules.js';
import { isDryRun, type RequestScope } from '../scope.js';
import { guaranteedUpdate, keepNamespaceFinalizers } from './write.js';
import { APPLY_PATCH_MEDIA_TYPE, handleApply } from '../apply/apply.js';
import { updateOwnership } from '../apply/managed-fields.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** RFC 7386: objects merge key by key, `null` deletes, anything else replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: { [k: string]: Json } =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k] ?? null, v);
  }
  return out;
}

export type PatchFunction = (doc: SvcObject) => SvcObject;
/** A PatchFunction that, given `pause`, gives other requests a turn while it works (a large strategic merge patch). */
export type PausingPatchFunction = (doc: SvcObject, pause: (() => Promise<void>) | undefined) => Promise<SvcObject>;

/** What a patch applies to: the schema strategic merge patch follows, and whether the kind offers it. */
export interface PatchTarget {
  schema: SchemaNode | undefined;
  /** Built-in kinds (and their subresources) take strategic merge patch; custom resources do not. */
  strategic: boolean;
}

const ACCEPTED_PATCH_TYPES = [...PATCH_MEDIA_TYPES, STRATEGIC_MERGE_PATCH_MEDIA_TYPE, APPLY_PATCH_MEDIA_TYPE];

/**
 * Parses the body once and returns a function applying it to any version of the object. The patch
 * is held to the nesting limit before it is walked, a JSON patch to the operation limit, and its
 * copies to the copy budget while it is applied; the result is checked by the write itself.
 */
export function parsePatch(contentType: string | undefined, body: Buffer, limits: InputLimits, target: PatchTarget): PatchFunction {
  return parsePatchBody(contentType, body, limits, target).apply;
}

/** parsePatch with the pausing form too (only a strategic merge patch has work worth pausing). */
function parsePatchBody(contentType: string | undefined, body: Buffer, limits: InputLimits, target: PatchTarget): { apply: PatchFunction; applyPausing: PausingPatchFunction } {
  const mt = mediaTypeOf(contentType);
  if (mt === STRATEGIC_MERGE_PATCH_MEDIA_TYPE && !target.strategic) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format: ${mt}; custom resources take no strategic merge patch (their schemas carry no merge keys): ` +
        `accepted media types include: ${[...PATCH_MEDIA_TYPES, APPLY_PATCH_MEDIA_TYPE].join(', ')}`,
    );
  }
  if (!(ACCEPTED_PATCH_TYPES as readonly string[]).includes(mt)) {
    throw unsupportedMediaType(`the patch content type ${mt || '(none)'} is not supported; use one of: ${ACCEPTED_PATCH_TYPES.join(', ')}`);
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Json;
  } catch (err) {
    throw badRequest(`the patch is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  checkBodyNesting(parsed, limits, 'the patch');
  // Objects are stored in our spelling (src/api/established-spelling.ts), whichever the patch used.
  if (mayHoldEstablishedSpelling(body)) canonicalizeBody(parsed);
  if (mt === 'application/merge-patch+json' || mt === STRATEGIC_MERGE_PATCH_MEDIA_TYPE) {
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw badRequest(`a ${mt === STRATEGIC_MERGE_PATCH_MEDIA_TYPE ? 'strategic ' : ''}merge patch must be a JSON object`);
    }
    if (mt === STRATEGIC_MERGE_PATCH_MEDIA_TYPE) {
      return {
        apply: (doc) => asObject(applyStrategicMergePatch(doc, parsed, target.schema)),
        applyPausing: async (doc, pause) => asObject(pause ? await applyStrategicMergePatchPausing(doc, parsed, target.schema, pause) : applyStrategicMergePatch(doc, parsed, target.schema)),
      };
    }
    return unpaused((doc) => asObject(applyMergePatch(doc as unknown as Json, parsed)));
  }
  if (!Array.isArray(parsed)) throw badRequest('a JSON patch must be an array of operations');
  checkJsonPatchLength(parsed, limits);
  const ops = parsed as unknown as fastJsonPatch.Operation[];
  const problem = fastJsonPatch.validate(ops);
  if (problem) throw badRequest(`invalid JSON patch: ${problem.message.split('\n')[0]}`);
  return unpaused((doc) => asObject(applyJsonPatch(doc, ops, limits)));
}

/** A merge patch is one linear walk and a JSON patch is held to the operation limit: neither pauses. */
function unpaused(apply: PatchFunction): { apply: PatchFunction; applyPausing: PausingPatchFunction } {
  return { apply, applyPausing: async (doc) => apply(doc) };
}

/** Applies the operations one by one, charging each `copy` to the budget before it is made. */
function applyJsonPatch(doc: SvcObject, ops: readonly fastJsonPatch.Operation[], limits: InputLimits): unknown {
  const budget = new CopyBudget(limits);
  let out: unknown = doc;
  for (const op of ops) {
    try {
      if (op.op === 'copy') budget.charge(fastJsonPatch.getValueByPointer(out, op.from), op.path.split('/').length - 1);
      out = fastJsonPatch.applyOperation(out, op, true, true).newDocument;
    } catch (err) {
      if (err instanceof StatusError) throw err;
      const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
      throw new StatusError(422, 'Invalid', `the JSON patch could not be applied: ${msg}`);
    }
  }
  return out;
}

export async function handlePatch(s: RequestScope): Promise<void> {
  const limits = s.services.config.inputLimits;
  const body = await readRequestBytes(s.req, limits.maxRequestBodyBytes);
  if (mediaTypeOf(s.req.headers['content-type']) === APPLY_PATCH_MEDIA_TYPE) return handleApply(s, body);
  const dryRun = isDryRun(s.query);
  const { applyPausing } = parsePatchBody(s.req.headers['content-type'], body, limits, { schema: s.def.schema, strategic: isBuiltinResource(s.def) });
  // `approval` (CertificateSigningRequests) is a status write too; the kind's hook narrows it (../csr-strategy.ts).
  const status = s.info.subresource === 'status' || s.info.subresource === 'approval';
  const out = await guaranteedUpdate(
    s,
    async (current, draft, pause) => {
      const patched = await applyPausing(draft(), pause);
      checkTypeMeta(s.def, patched);
      if (patched.metadata.name !== current.metadata.name) throw badRequest('metadata.name cannot be changed by a patch');
      if ((patched.metadata.namespace ?? '') !== (current.metadata.namespace ?? '')) {
        throw badRequest('metadata.namespace cannot be changed by a patch');
      }
      if (status) return prepareStatusUpdate(patched, current);
      prepareForUpdate(s.def, patched, current);
      keepNamespaceFinalizers(s.def, patched, current);
      return patched;
    },
    // A large patch gives other requests turns while it is applied, even to a small object.
    { dryRun, subresource: s.info.subresource, ownership: updateOwnership(s, s.info.subresource), largeInput: body.length > LARGE_OBJECT_BYTES },
  );
  writeObject(s, 200, out.view);
}
