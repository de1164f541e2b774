/**
 * Label selectors: the established string syntax (`a=b`, `a==b`, `a!=b`, `a in (x,y)`,
 * `a notin (x)`, `a`, `!a`, `a>1`, `a<1`, comma = AND) and the object form used in specs
 * (`matchLabels` + `matchExpressions`), both turned into one matcher.
 *
 * Parse errors are 400 BadRequest with a message that says what was found and what was expected.
 */
import { badRequest, type FieldError } from './status.js';
import { invalidValue, notSupported, required, fieldForbidden } from './validation/field-errors.js';
import { isQualifiedName, isValidLabelValue } from './validation/names.js';

export type LabelOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** One requirement; `values` is sorted and de-duplicated. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

/** A parsed selector: all requirements must hold (AND). An empty selector matches everything. */
export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  readonly empty: boolean;
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The canonical string form (requirements sorted by key). */
  toString(): string;
}

/** The object form in specs (deployments, services use a plain map instead). */
export interface LabelSelectorRequirementSpec {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}
export interface LabelSelectorSpec {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementSpec[];
}

function requirementMatches(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v!);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^-?\d+$/.test(v!)) return false;
      const n = Number(v);
      const bound = Number(r.values[0]);
      return r.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

function requirementString(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0]}`;
    case 'lt':
      return `${r.key}<${r.values[0]}`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  constructor(reqs: LabelRequirement[]) {
    this.requirements = Object.freeze([...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
  }
  get empty(): boolean {
    return this.requirements.length === 0;
  }
  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const l = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, l));
  }
  toString(): string {
    return this.requirements.map(requirementString).join(',');
  }
}

/** Builds one requirement after checking key and values; throws a message (not a StatusError). */
function makeRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length) throw new Error(`invalid label key "${key}": ${keyErrs.join('; ')}`);
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) throw new Error(`for 'in', 'notin' operators, values set can't be empty`);
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) throw new Error(`exact-match compatibility requires one single value`);
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) throw new Error(`values set must be empty for exists and does not exist`);
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1 || !/^-?\d+$/.test(values[0]!)) {
        throw new Error(`for 'Gt', 'Lt' operators, exactly one value is required and it must be an integer, found ${JSON.stringify(values[0] ?? '')}`);
      }
      return { key, operator, values: Object.freeze([...values]) };
  }
  for (const v of values) {
    const errs = isValidLabelValue(v);
    if (errs.length) throw new Error(`invalid label value: "${v}": at key: "${key}": ${errs.join('; ')}`);
  }
  return { key, operator, values: Object.freeze([...new Set(values)].sort()) };
}

// ---- string syntax -------------------------------------------------------------------------

type Tok =
  | { t: 'id'; v: string }
  | { t: 'op'; v: '=' | '==' | '!=' | '!' | '>' | '<' }
  | { t: '(' | ')' | ',' | 'end' };

const SPECIAL = new Set(['!', '=', '(', ')', ',', '<', '>']);

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c });
      i++;
    } else if (c === '!' && s[i + 1] === '=') {
      out.push({ t: 'op', v: '!=' });
      i += 2;
    } else if (c === '=' && s[i + 1] === '=') {
      out.push({ t: 'op', v: '==' });
      i += 2;
    } else if (c === '=' || c === '!' || c === '>' || c === '<') {
      out.push({ t: 'op', v: c });
      i++;
    } else {
      let j = i;
      while (j < s.length && !SPECIAL.has(s[j]!) && !/\s/.test(s[j]!)) j++;
      out.push({ t: 'id', v: s.slice(i, j) });
      i = j;
    }
  }
  out.push({ t: 'end' });
  return out;
}

function show(tok: Tok): string {
  if (tok.t === 'id' || tok.t === 'op') return tok.v;
  return tok.t === 'end' ? 'end of string' : tok.t;
}

class SelectorParser {
  private pos = 0;
  constructor(private readonly toks: Tok[]) {}
  private peek(): Tok {
    return this.toks[this.pos]!;
  }
  private next(): Tok {
    return this.toks[this.pos++]!;
  }
  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    if (this.peek().t === 'end') return reqs;
    for (;;) {
      reqs.push(this.requirement());
      const t = this.next();
      if (t.t === 'end') return reqs;
      if (t.t !== ',') throw new Error(`found '${show(t)}', expected: ',' or 'end of string'`);
      if (this.peek().t === 'end') throw new Error(`found 'end of string', expected: identifier after ','`);
    }
  }
  private requirement(): LabelRequirement {
    let t = this.next();
    if (t.t === 'op' && t.v === '!') {
      t = this.next();
      if (t.t !== 'id') throw new Error(`found '${show(t)}', expected: identifier after '!'`);
      return makeRequirement(t.v, '!', []);
    }
    if (t.t !== 'id') throw new Error(`found '${show(t)}', expected: '!' or identifier`);
    const key = t.v;
    const op = this.peek();
    if (op.t === ',' || op.t === 'end') return makeRequirement(key, 'exists', []);
    this.next();
    if (op.t === 'id' && (op.v === 'in' || op.v === 'notin')) {
      return makeRequirement(key, op.v, this.valueSet());
    }
    if (op.t !== 'op' || op.v === '!') {
      throw new Error(`found '${show(op)}', expected: '=', '!=', '==', 'in', 'notin', '>' or '<' after key "${key}"`);
    }
    const val = this.peek();
    let value = '';
    if (val.t === 'id') {
      this.next();
      value = val.v;
    } else if (val.t !== ',' && val.t !== 'end') {
      throw new Error(`found '${show(val)}', expected: a value after "${key}${op.v}"`);
    }
    const operator: LabelOperator = op.v === '>' ? 'gt' : op.v === '<' ? 'lt' : op.v;
    return makeRequirement(key, operator, [value]);
  }
  private valueSet(): string[] {
    const open = this.next();
    if (open.t !== '(') throw new Error(`found '${show(open)}', expected: '('`);
    const values: string[] = [];
    for (;;) {
      const t = this.next();
      if (t.t === ')') return values;
      if (t.t === 'id') {
        values.push(t.v);
        const sep = this.next();
        if (sep.t === ')') return values;
        if (sep.t !== ',') throw new Error(`found '${show(sep)}', expected: ',' or ')'`);
        continue;
      }
      if (t.t === ',') {
        values.push('');
        continue;
      }
      throw new Error(`found '${show(t)}', expected: ',', ')' or identifier`);
    }
  }
}

/** Parses the string syntax; an empty string is the selector that matches everything. */
export function parseLabelSelector(s: string): LabelSelector {
  try {
    return new RequirementsSelector(new SelectorParser(lex(s)).parse());
  } catch (e) {
    throw badRequest(`unable to parse requirement: ${(e as Error).message}; in label selector ${JSON.stringify(s)}`);
  }
}

/** A selector for "these labels exactly" (replicationcontroller and service selectors are plain maps). */
export function labelSelectorFromMap(map: Readonly<Record<string, string>>): LabelSelector {
  try {
    return new RequirementsSelector(Object.entries(map).map(([k, v]) => makeRequirement(k, '=', [v])));
  } catch (e) {
    throw badRequest(`invalid label selector: ${(e as Error).message}`);
  }
}

const SPEC_OPS: Record<string, LabelOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * The object form as a matcher. An object with neither part (`{}`) matches everything; callers
 * that need "a missing selector matches nothing" check for undefined before calling.
 */
export function labelSelectorFromObject(obj: LabelSelectorSpec | Readonly<Record<string, unknown>>): LabelSelector {
  const errs = validateLabelSelectorSpec(obj, 'selector');
  if (errs.length) throw badRequest(`invalid label selector: ${errs.map((e) => `${e.field}: ${e.message}`).join(', ')}`);
  const spec = obj as LabelSelectorSpec;
  const reqs: LabelRequirement[] = Object.entries(spec.matchLabels ?? {}).map(([k, v]) => makeRequirement(k, '=', [v]));
  for (const e of spec.matchExpressions ?? []) reqs.push(makeRequirement(e.key, SPEC_OPS[e.operator]!, e.values ?? []));
  return new RequirementsSelector(reqs);
}

/** Field errors for a selector object in a spec, under `field` (e.g. `spec.selector`). */
export function validateLabelSelectorSpec(obj: unknown, field: string): FieldError[] {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return [invalidValue(field, obj, 'must be an object')];
  const spec = obj as Record<string, unknown>;
  const errs: FieldError[] = [];
  const ml = spec['matchLabels'];
  if (ml !== undefined && ml !== null) {
    if (typeof ml !== 'object' || Array.isArray(ml)) errs.push(invalidValue(`${field}.matchLabels`, ml, 'must be a map of strings'));
    else {
      for (const [k, v] of Object.entries(ml)) {
        for (const d of isQualifiedName(k)) errs.push(invalidValue(`${field}.matchLabels`, k, d));
        if (typeof v !== 'string') errs.push(invalidValue(`${field}.matchLabels`, v, 'must be a string'));
        else for (const d of isValidLabelValue(v)) errs.push(invalidValue(`${field}.matchLabels`, v, d));
      }
    }
  }
  const me = spec['matchExpressions'];
  if (me !== undefined && me !== null) {
    if (!Array.isArray(me)) return [...errs, invalidValue(`${field}.matchExpressions`, me, 'must be a list')];
    me.forEach((raw: unknown, i) => {
      const p = `${field}.matchExpressions[${i}]`;
      const r = (raw ?? {}) as Record<string, unknown>;
      const key = r['key'];
      if (typeof key !== 'string' || key === '') errs.push(required(`${p}.key`));
      else for (const d of isQualifiedName(key)) errs.push(invalidValue(`${p}.key`, key, d));
      const op = r['operator'];
      const values = r['values'];
      const n = Array.isArray(values) ? values.length : 0;
      if (values !== undefined && values !== null && !Array.isArray(values)) errs.push(invalidValue(`${p}.values`, values, 'must be a list'));
      if (op === 'In' || op === 'NotIn') {
        if (n === 0) errs.push(required(`${p}.values`, 'must be specified when `operator` is \'In\' or \'NotIn\''));
      } else if (op === 'Exists' || op === 'DoesNotExist') {
        if (n > 0) errs.push(fieldForbidden(`${p}.values`, 'may not be specified when `operator` is \'Exists\' or \'DoesNotExist\''));
      } else errs.push(notSupported(`${p}.operator`, op, ['DoesNotExist', 'Exists', 'In', 'NotIn']));
      if (Array.isArray(values)) {
        values.forEach((v: unknown, j) => {
          if (typeof v !== 'string') errs.push(invalidValue(`${p}.values[${j}]`, v, 'must be a string'));
          else for (const d of isValidLabelValue(v)) errs.push(invalidValue(`${p}.values[${j}]`, v, d));
        });
      }
    });
  }
  return errs;
}
