/**
 * GET of one object and LIST of a collection, under the resource-version tables of the spec, as
 * JSON, as a Table (src/codec/table.ts) or as Protobuf (src/codec/protobuf/).
 */
import { includeObjectParam, objectTable, tableApiVersion, tableJsonSteps } from '../../codec/table.js';
import { answersInEstablishedSpelling, inProcessResponse, writeJson, writeJsonParts } from '../http.js';
import { ListBodies } from '../list-bodies.js';
import { runInTurns } from '../input-limits.js';
import { writeObject, writeProtobufList } from '../representation.js';
import { intParam, type RequestScope } from '../scope.js';
import { filterFromQuery } from '../selectors.js';

export async function handleGet(s: RequestScope): Promise<void> {
  const includeObject = includeObjectParam(s.query);
  const view = await s.store.get(s.info.namespace, s.info.name, s.query.get('resourceVersion') ?? undefined);
  if (s.output.representation === 'table') {
    const table = objectTable(s.def, view.object, { includeObject, now: s.services.now(), apiVersion: tableApiVersion(s.output.params) });
    return writeJson(s.res, 200, table, { 'content-type': s.output.contentType });
  }
  writeObject(s, 200, view);
}

const ITEMS_OPEN = Buffer.from(',"items":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** Joined items of whole-scope LISTs, process-wide (one budget, like the fair scheduler). */
const listBodies = new ListBodies();

/** The items' JSON with commas between, as parts of one body. */
function itemParts(items: readonly { json: Buffer }[]): Buffer[] {
  const parts: Buffer[] = [];
  items.forEach((item, i) => {
    if (i) parts.push(COMMA);
    parts.push(item.json);
  });
  return parts;
}

export async function handleList(s: RequestScope): Promise<void> {
  const includeObject = includeObjectParam(s.query);
  const filter = filterFromQuery(s.def, s.query);
  const limit = intParam(s.query, 'limit');
  const result = await s.store.list({
    namespace: s.info.namespace,
    resourceVersion: s.query.get('resourceVersion') ?? undefined,
    resourceVersionMatch: s.query.get('resourceVersionMatch') ?? undefined,
    limit,
    continueToken: s.query.get('continue') || undefined,
    filter: filter.matches,
    filtered: filter.matches !== undefined,
  });
  const metadata: Record<string, unknown> = { resourceVersion: String(result.revision), continue: result.continueToken };
  if (result.remainingItemCount !== undefined && s.services.config.featureGates['RemainingItemCount'] !== false) {
    metadata['remainingItemCount'] = result.remainingItemCount;
  }
  if (s.output.representation === 'table') {
    // Laid out a few rows per turn of the event loop; one part per turn's rows.
    const objects = result.items.map((i) => i.object);
    const parts: Buffer[] = [];
    let text = '';
    const flush = () => {
      if (text) parts.push(Buffer.from(text));
      text = '';
    };
    const steps = tableJsonSteps(s.def, objects, metadata, { includeObject, now: s.services.now(), apiVersion: tableApiVersion(s.output.params) });
    await runInTurns(s.res, steps, (piece) => {
      text += piece;
      if (text.length >= 16 * 1024) flush();
    });
    flush();
    return writeJsonParts(s.res, 200, parts, { 'content-type': s.output.contentType });
  }
  if (s.output.representation === 'protobuf') return writeProtobufList(s, metadata, result.items.map((i) => i.object));
  const groupVersion = s.def.group ? `${s.def.group}/${s.def.version}` : s.def.version;
  if (inProcessResponse(s.res)) {
    return writeJson(s.res, 200, { kind: s.def.listKind, apiVersion: groupVersion, metadata, items: result.items.map((i) => i.object) });
  }
  // Items are already JSON: splice them instead of re-serialising every object; a whole scope's are
  // joined once for as long as nothing under it changes (spelling rewrites need each item on its own).
  const head = Buffer.from(JSON.stringify({ kind: s.def.listKind, apiVersion: groupVersion, metadata }).slice(0, -1));
  const { whole } = result;
  if (whole && !answersInEstablishedSpelling(s.res)) {
    const items = listBodies.get(s.store, whole.scope, whole.stamp, () => Buffer.concat(itemParts(result.items)));
    return writeJsonParts(s.res, 200, [head, ITEMS_OPEN, items, CLOSE]);
  }
  writeJsonParts(s.res, 200, [head, ITEMS_OPEN, ...itemParts(result.items), CLOSE]);
}
