/**
 * The fields of an object its kind's schema does not know: exactly those schema validation prunes
 * (a structural object with `properties`, not marked preserve-unknown, without
 * `additionalProperties`). The API server reports them as `fieldValidation` asks: Strict refuses
 * the write, Warn (the default over HTTPS) answers with a Warning header, Ignore drops them quietly.
 *
 * Contract: read-only; iterative (an explicit stack), so any depth the body limits allow is walked
 * without the call stack; stops after `limit` paths (a message needs no more).
 */
import type { SchemaNode } from '../types.js';

export function unknownFields(obj: unknown, schema: SchemaNode, limit = 20): string[] {
  const out: string[] = [];
  const stack: { value: unknown; schema: SchemaNode; path: string }[] = [{ value: obj, schema, path: '' }];
  while (stack.length && out.length < limit) {
    const { value, schema: s, path } = stack.pop()!;
    if (value === null || typeof value !== 'object' || s['x-svc-preserve-unknown-fields'] || s['x-svc-int-or-string']) continue;
    if (Array.isArray(value)) {
      if (s.items) value.forEach((v, i) => stack.push({ value: v, schema: s.items!, path: `${path}[${i}]` }));
      continue;
    }
    const ap = s.additionalProperties;
    for (const [key, v] of Object.entries(value)) {
      const child = `${path ? `${path}.` : ''}${key}`;
      const prop = s.properties?.[key];
      if (prop) stack.push({ value: v, schema: prop, path: child });
      else if (ap && typeof ap === 'object') stack.push({ value: v, schema: ap, path: child });
      else if (s.properties && ap === undefined && out.push(child) >= limit) break;
    }
  }
  return out.sort();
}
