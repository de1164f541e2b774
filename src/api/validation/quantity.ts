/**
 * Resource quantities (`100m`, `1Gi`, `2`): the string form check and a numeric value for comparisons.
 */
import type { FieldError } from '../status.js';
import { invalidValue } from './field-errors.js';

const QUANTITY_RE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const SUFFIX: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The numeric value of a quantity, or undefined when it is not one. */
export function parseQuantity(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = QUANTITY_RE.exec(q.trim());
  if (!m) return undefined;
  const num = Number(m[1]);
  if (!Number.isFinite(num)) return undefined;
  const suffix = m[2]!;
  if (suffix in SUFFIX) return num * SUFFIX[suffix]!;
  const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
  if (exp) return num * 10 ** Number(exp[1]);
  return undefined;
}

export function validateQuantity(field: string, q: unknown, opts: { nonNegative?: boolean } = {}): FieldError[] {
  const v = parseQuantity(q);
  if (v === undefined) return [invalidValue(field, q, "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")];
  if (opts.nonNegative && v < 0) return [invalidValue(field, q, 'must be greater than or equal to 0')];
  return [];
}

/** Every value of a resource list (`{cpu: '1', memory: '1Gi'}`) must be a quantity. */
export function validateResourceList(field: string, list: unknown): FieldError[] {
  if (list === undefined || list === null || typeof list !== 'object') return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(list as Record<string, unknown>)) errs.push(...validateQuantity(`${field}[${k}]`, v, { nonNegative: true }));
  return errs;
}
