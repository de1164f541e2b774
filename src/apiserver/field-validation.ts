/**
 * `fieldValidation` of writes (create, update, patch, apply): what to do with fields the kind's
 * schema does not know, which are dropped before the object is stored. Strict refuses the write
 * (400), Warn answers with a `Warning: 299` header per field (encoded as established, ./warnings.ts), Ignore drops them quietly, as
 * established. The default is Warn over HTTPS (kubectl shows the warnings; it asks for Strict) and
 * Ignore for in-process calls (the control plane's own typed writes).
 *
 * Only fields the request brings count: an object stored with fields no longer known (before a
 * schema change) can still be updated with Strict.
 */
import { unknownFields } from '../api/index.js';
import { badRequest } from '../api/status.js';
import type { SvcObject } from '../api/types.js';
import { InProcessRequest } from './in-process-exchange.js';
import type { RequestScope } from './scope.js';
import { addWarning, unknownFieldText } from './warnings.js';

const MODES = ['Ignore', 'Warn', 'Strict'] as const;
type Mode = (typeof MODES)[number];

function modeOf(s: RequestScope): Mode {
  const raw = s.query.get('fieldValidation');
  if (raw === null || raw === '') return s.req instanceof InProcessRequest ? 'Ignore' : 'Warn';
  if (!(MODES as readonly string[]).includes(raw)) {
    throw badRequest(`fieldValidation: Unsupported value: "${raw}": supported values: ${MODES.map((m) => `"${m}"`).join(', ')}`);
  }
  return raw as Mode;
}

/** Refuses (Strict) or warns about (Warn) the fields `next` holds that its kind does not know and `current` did not hold. */
export function reportUnknownFields(s: RequestScope, next: SvcObject, current?: SvcObject): void {
  const mode = modeOf(s);
  if (mode === 'Ignore') return;
  let unknown = unknownFields(next, s.def.schema);
  if (unknown.length && current) {
    const before = new Set(unknownFields(current, s.def.schema, Number.MAX_SAFE_INTEGER));
    unknown = unknown.filter((f) => !before.has(f));
  }
  if (!unknown.length) return;
  if (mode === 'Strict') throw badRequest(`strict decoding error: ${unknown.map(unknownFieldText).join(', ')}`);
  // Encoded for the wire (./warnings.ts): a field name is the client's text, any character at all.
  for (const f of unknown) addWarning(s.res, unknownFieldText(f));
}
