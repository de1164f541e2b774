/**
 * Server-side apply: PATCH with `application/apply-patch+yaml`. The body is a partial object (YAML
 * or JSON) holding only the fields its manager cares about. An absent object is created; otherwise
 * the configuration is merged into the live object, fields this manager applied before and no
 * longer sets are removed unless another manager owns them, and ownership is recorded.
 */
import { canonicalizeBody, mayHoldEstablishedSpelling } from '../../api/established-spelling.js';
import { badRequest, StatusError, unsupportedMediaType } from '../../api/status.js';
import { groupVersion, type SvcObject } from '../../api/types.js';
import { cloneJson } from '../../api/json-walk.js';
import { parseYamlText } from '../../codec/body.js';
import { checkBodyNesting } from '../input-limits.js';
import { writeObject } from '../representation.js';
import { asObject, prepareForUpdate, prepareStatusUpdate, reconcileNamespace } from '../object-rules.js';
import { boolParam, isDryRun, type RequestScope } from '../scope.js';
import { createObject, guaranteedUpdate, keepNamespaceFinalizers } from '../handlers/write.js';
import { LARGE_OBJECT_BYTES, otherRequestsTurn } from '../input-limits.js';
import type { FieldSet } from './field-set.js';
import { checkManagerName, decodeManagedFields, ignoreRule, type Ownership, serverSideApplyEnabled } from './managed-fields.js';
import { mergeApplied, withoutNulls } from './merge.js';
import { fieldSetOf, objectFields, removeFields } from './object-fields.js';

export const APPLY_PATCH_MEDIA_TYPE = 'application/apply-patch+yaml';

function jsonOrUndefined(text: string): unknown {
  if (!text.trimStart().startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

type ApplyOwnership = Extract<Ownership, { operation: 'Apply' }>;

/** Decodes and checks the applied configuration (400 for anything an apply may not carry). */
export function parseApplyConfiguration(s: RequestScope, body: Buffer): SvcObject {
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the apply configuration is empty; send the fields you manage as YAML or JSON');
  let parsed: unknown;
  try {
    // Most clients send JSON (valid YAML too): parse it as such first, it is much faster.
    parsed = jsonOrUndefined(text) ?? parseYamlText(text);
  } catch (err) {
    throw badRequest(`the apply configuration is not valid YAML or JSON: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  checkBodyNesting(parsed, s.services.config.inputLimits, 'the apply configuration');
  // Stored in our spelling whichever the client used (src/api/established-spelling.ts).
  if (mayHoldEstablishedSpelling(body)) canonicalizeBody(parsed);
  const config = asObject(withoutNulls(parsed), 'apply configuration');
  const gv = groupVersion(s.def);
  if (config.apiVersion === undefined || config.apiVersion === '') throw badRequest(`apiVersion must be set in an apply configuration (expected ${gv})`);
  if (config.apiVersion !== gv) throw badRequest(`the API version in the data (${String(config.apiVersion)}) does not match the expected API version (${gv})`);
  if (config.kind === undefined || config.kind === '') throw badRequest(`kind must be set in an apply configuration (expected ${s.def.kind})`);
  if (config.kind !== s.def.kind) throw badRequest(`the kind in the data (${String(config.kind)}) does not match the expected kind (${s.def.kind})`);
  const m = config.metadata;
  if (m.managedFields !== undefined) {
    throw badRequest('metadata.managedFields must not be set in an apply configuration: the server maintains it; remove it from the body');
  }
  if (m.name === undefined || m.name === '') throw badRequest(`metadata.name must be set in an apply configuration (expected ${s.info.name})`);
  if (m.name !== s.info.name) throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${s.info.name})`);
  reconcileNamespace(s.def, config, s.info.namespace);
  return config;
}

/**
 * The live object with the configuration merged in and this manager's dropped fields removed.
 * `pause` (for large objects) runs between the steps that walk it whole.
 */
async function applyTo(s: RequestScope, current: SvcObject, config: SvcObject, own: ApplyOwnership, pause?: () => Promise<void>): Promise<SvcObject> {
  const schema = s.def.schema;
  const merged = cloneJson(mergeApplied(current, config, schema) as SvcObject);
  if (pause) await pause();
  const entries = decodeManagedFields(current.metadata.managedFields) ?? [];
  const mine = entries.find((e) => e.manager === own.manager && e.operation === 'Apply' && e.subresource === own.subresource);
  if (mine) {
    let keep: FieldSet = own.applied;
    for (const e of entries) if (e !== mine) keep = keep.union(e.fields);
    if (pause) await pause();
    removeFields(merged, schema, mine.fields.untouchedBy(keep, ['f:metadata']));
  }
  if (own.subresource === 'status' || own.subresource === 'approval') return prepareStatusUpdate(merged, current);
  prepareForUpdate(s.def, merged, current);
  keepNamespaceFinalizers(s.def, merged, current);
  return merged;
}

export async function handleApply(s: RequestScope, body: Buffer): Promise<void> {
  if (!serverSideApplyEnabled(s)) {
    throw unsupportedMediaType(
      'server-side apply (application/apply-patch+yaml) is disabled on this server (feature gate ServerSideApply=false); send application/merge-patch+json or application/json-patch+json instead',
    );
  }
  const manager = s.query.get('fieldManager');
  if (!manager) throw badRequest('fieldManager is required for apply requests: add ?fieldManager=<name of your tool> to the URL');
  checkManagerName(manager);
  const force = boolParam(s.query, 'force');
  const dryRun = isDryRun(s.query);
  const subresource = s.info.subresource;
  const large = body.length > LARGE_OBJECT_BYTES;
  const config = parseApplyConfiguration(s, body);
  if (large) await otherRequestsTurn();
  const applied = fieldSetOf(objectFields(config, s.def.schema, ignoreRule(s.def, subresource), false));
  if (large) await otherRequestsTurn();
  const own: ApplyOwnership = { operation: 'Apply', manager, subresource, force, applied };
  for (let attempt = 0; ; attempt++) {
    try {
      const out = await guaranteedUpdate(s, (current, _draft, pause) => applyTo(s, current, config, own, pause), { dryRun, subresource, ownership: own, largeInput: large });
      writeObject(s, 200, out.view);
      return;
    } catch (err) {
      if (!(err instanceof StatusError) || err.reason !== 'NotFound' || subresource) throw err;
    }
    try {
      const view = await createObject(s, cloneJson(config), dryRun, own);
      writeObject(s, 201, view);
      return;
    } catch (err) {
      // Created by someone else since we looked: apply to that object instead.
      if (attempt > 0 || !(err instanceof StatusError) || err.reason !== 'AlreadyExists') throw err;
    }
  }
}
