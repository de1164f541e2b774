/**
 * Field selectors: comma-joined `field=value`, `field==value`, `field!=value` terms (AND), checked
 * against the kind's selectable fields. A backslash escapes `\`, `,` and `=` inside a value.
 */
import { badRequest } from './status.js';
import type { ResourceDefinition, SvcObject } from './types.js';

export type FieldOperator = '=' | '==' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  readonly empty: boolean;
  matches(obj: SvcObject): boolean;
  /** The name when the selector pins `metadata.name` with `=`/`==` (a watch of one object). */
  exactName(): string | undefined;
  /** Canonical string form, with values escaped again. */
  toString(): string;
}

/** Escapes a value for use in a field selector string. */
export function escapeFieldValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

function unescapeValue(v: string, term: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (c !== '\\') {
      if (c === '=' || c === ',') throw badRequest(`invalid field selector: unescaped ${c} in value of term ${JSON.stringify(term)}; write \\${c}`);
      out += c;
      continue;
    }
    const n = v[i + 1];
    if (n === '\\' || n === ',' || n === '=') {
      out += n;
      i++;
    } else throw badRequest(`invalid field selector: invalid escape sequence '\\${n ?? ''}' in ${JSON.stringify(term)}; only \\\\, \\, and \\= may be escaped`);
  }
  return out;
}

/** Splits on commas not preceded by an escaping backslash. */
function splitTerms(s: string): string[] {
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === ',') {
      terms.push(cur);
      cur = '';
    } else cur += c;
  }
  terms.push(cur);
  return terms;
}

/** Finds the first unescaped operator in a term. */
function splitTerm(term: string): FieldRequirement {
  for (let i = 0; i < term.length; i++) {
    const c = term[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    let op: FieldOperator | undefined;
    if (c === '!' && term[i + 1] === '=') op = '!=';
    else if (c === '=' && term[i + 1] === '=') op = '==';
    else if (c === '=') op = '=';
    if (op) {
      const field = term.slice(0, i).trim();
      if (!field) throw badRequest(`invalid field selector: ${JSON.stringify(term)} has no field name before '${op}'`);
      return { field, operator: op, value: unescapeValue(term.slice(i + op.length), term) };
    }
  }
  throw badRequest(`invalid selector: '${term}'; can't understand '${term}' (expected field=value, field==value or field!=value)`);
}

class TermsSelector implements FieldSelector {
  constructor(
    readonly requirements: readonly FieldRequirement[],
    private readonly def: ResourceDefinition,
  ) {}
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(obj: SvcObject): boolean {
    const values = this.def.selectableFields(obj);
    return this.requirements.every((r) => {
      const v = values[r.field] ?? '';
      return r.operator === '!=' ? v !== r.value : v === r.value;
    });
  }
  exactName(): string | undefined {
    const r = this.requirements.find((x) => x.field === 'metadata.name' && x.operator !== '!=');
    return r?.value;
  }
  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

/** The selectable field names of a kind, read from its definition with an empty object. */
export function selectableFieldNames(def: ResourceDefinition): string[] {
  return Object.keys(def.selectableFields({ metadata: {} }));
}

/**
 * The requirements of a field selector whatever the kind (for request attributes: authorizers read
 * them before the kind's fields are checked); a malformed selector throws a 400 as above.
 */
export function fieldRequirements(s: string): FieldRequirement[] {
  if (s.trim() === '') return [];
  return splitTerms(s).map((term) => {
    if (term.trim() === '') throw badRequest(`invalid field selector: empty term in ${JSON.stringify(s)}`);
    return splitTerm(term);
  });
}

/**
 * Parses a field selector for one kind; a field the kind cannot select on is a 400
 * `field label not supported: <field>`.
 */
export function parseFieldSelector(s: string, def: ResourceDefinition): FieldSelector {
  const supported = new Set(selectableFieldNames(def));
  const reqs: FieldRequirement[] = [];
  if (s.trim() !== '') {
    for (const term of splitTerms(s)) {
      if (term.trim() === '') throw badRequest(`invalid field selector: empty term in ${JSON.stringify(s)}`);
      const r = splitTerm(term);
      if (!supported.has(r.field)) throw badRequest(`field label not supported: ${r.field}`);
      reqs.push(r);
    }
  }
  return new TermsSelector(Object.freeze(reqs), def);
}
