/**
 * Constructors for FieldError in the established wording: the message starts with the error type's
 * text ("Required value", "Invalid value: <v>", ...) followed by the detail, and `type` is the cause
 * reason that clients match on.
 */
import type { FieldError } from '../status.js';
import { canonicalJson } from '../json-walk.js';

/** Renders a value the way field errors quote it: strings in double quotes, numbers bare, others as JSON. */
export function quoteValue(value: unknown): string {
  if (value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/** Go's %#v of a []string, as established messages quote a list such as clusterIPs: `[]string{"10.0.0.5"}`. */
export function goStringSlice(list: readonly unknown[] | undefined): string {
  if (!list || list.length === 0) return '[]string(nil)';
  return `[]string{${list.map((x) => JSON.stringify(String(x))).join(', ')}}`;
}

function withDetail(head: string, detail?: string): string {
  return detail ? `${head}: ${detail}` : head;
}

export function required(field: string, detail?: string): FieldError {
  return { field, type: 'FieldValueRequired', message: withDetail('Required value', detail) };
}

export function invalidValue(field: string, value: unknown, detail?: string): FieldError {
  return { field, type: 'FieldValueInvalid', message: withDetail(`Invalid value: ${quoteValue(value)}`, detail) };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { field, type: 'FieldValueNotSupported', message: `Unsupported value: ${quoteValue(value)}${list ? `: supported values: ${list}` : ''}` };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { field, type: 'FieldValueDuplicate', message: `Duplicate value: ${quoteValue(value)}` };
}

export function notFoundValue(field: string, value: unknown): FieldError {
  return { field, type: 'FieldValueNotFound', message: `Not found: ${quoteValue(value)}` };
}

export function tooLong(field: string, maxLength: number, unit: 'characters' | 'bytes' = 'characters'): FieldError {
  return { field, type: 'FieldValueTooLong', message: `Too long: must have at most ${maxLength} ${unit}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { field, type: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items` };
}

export function fieldForbidden(field: string, detail: string): FieldError {
  return { field, type: 'FieldValueForbidden', message: withDetail('Forbidden', detail) };
}

/** A JSON type mismatch found by the schema (e.g. a string where an integer belongs). */
export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { field, type: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${quoteValue(value)}`, detail) };
}

/** Turns a list of detail strings from a name validator into Invalid errors on one field. */
export function invalidEach(field: string, value: unknown, details: readonly string[]): FieldError[] {
  return details.map((d) => invalidValue(field, value, d));
}

/** `field is immutable` when two JSON values differ. */
export function immutable(field: string, next: unknown, old: unknown): FieldError[] {
  return canonicalJson(next) === canonicalJson(old) ? [] : [invalidValue(field, next, 'field is immutable')];
}

/** Common numeric rules. */
export function nonNegative(field: string, value: unknown): FieldError[] {
  return typeof value === 'number' && value < 0 ? [invalidValue(field, value, 'must be greater than or equal to 0')] : [];
}

export function positive(field: string, value: unknown): FieldError[] {
  return typeof value === 'number' && value <= 0 ? [invalidValue(field, value, 'must be greater than 0')] : [];
}

export function inRange(field: string, value: unknown, lo: number, hi: number): FieldError[] {
  return typeof value === 'number' && (value < lo || value > hi) ? [invalidValue(field, value, `must be between ${lo} and ${hi}, inclusive`)] : [];
}

/** Checks that a value is one of a fixed set (skips undefined). */
export function oneOf(field: string, value: unknown, supported: readonly string[]): FieldError[] {
  return value === undefined || (typeof value === 'string' && supported.includes(value)) ? [] : [notSupported(field, value, supported)];
}
