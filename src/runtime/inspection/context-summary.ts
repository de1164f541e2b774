/**
 * A small, safe summary of an actor's context for /debug/machines: numbers, booleans, short
 * strings and short arrays of those, one level into plain objects. Anything that could carry a
 * secret (keys named like tokens, passwords, certificates) or be large (clients, caches, loggers,
 * class instances, functions) is left out, so the page can be shown to anyone who can reach it.
 */

export type SummaryValue = string | number | boolean | null | Array<string | number | boolean | null> | { [key: string]: SummaryLeaf };
export type SummaryLeaf = string | number | boolean | null | Array<string | number | boolean | null>;
export type ContextSummary = Record<string, SummaryValue>;

export interface SummaryLimits {
  /** Longest string kept (longer ones are cut and end in `…`); default 80. */
  maxString: number;
  /** Most array items kept; default 5. */
  maxArray: number;
  /** Most keys kept per object; default 16. */
  maxKeys: number;
}

export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = { maxString: 80, maxArray: 5, maxKeys: 16 };

/** Keys whose values are never shown, whatever they hold. */
const SECRET_KEY = /secret|token|passw|credential|private|cert|auth|cookie|bearer|signature/i;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function primitive(v: unknown, limits: SummaryLimits): string | number | boolean | null | undefined {
  if (v === null) return null;
  switch (typeof v) {
    case 'number':
      return Number.isFinite(v) ? v : String(v);
    case 'boolean':
      return v;
    case 'string':
      return v.length > limits.maxString ? `${v.slice(0, limits.maxString)}…` : v;
    case 'bigint':
      return v.toString();
    default:
      return undefined;
  }
}

function leaf(v: unknown, limits: SummaryLimits): SummaryLeaf | undefined {
  if (Array.isArray(v)) {
    const items = v.slice(0, limits.maxArray).map((x) => primitive(x, limits));
    if (items.some((x) => x === undefined)) return undefined;
    const kept = items as Array<string | number | boolean | null>;
    return v.length > limits.maxArray ? [...kept, `…${v.length - limits.maxArray} more`] : kept;
  }
  return primitive(v, limits);
}

/** Summarises a context object (anything else summarises to `{}`). */
export function summarizeContext(context: unknown, limits: SummaryLimits = DEFAULT_SUMMARY_LIMITS): ContextSummary {
  const out: ContextSummary = {};
  if (!isPlainObject(context)) return out;
  let n = 0;
  for (const [key, value] of Object.entries(context)) {
    if (n >= limits.maxKeys) break;
    if (SECRET_KEY.test(key)) continue;
    const l = leaf(value, limits);
    if (l !== undefined) {
      out[key] = l;
      n++;
      continue;
    }
    if (!isPlainObject(value)) continue;
    const inner: Record<string, SummaryLeaf> = {};
    let m = 0;
    for (const [k, v] of Object.entries(value)) {
      if (m >= limits.maxKeys) break;
      if (SECRET_KEY.test(k)) continue;
      const il = leaf(v, limits);
      if (il === undefined) continue;
      inner[k] = il;
      m++;
    }
    if (m > 0) {
      out[key] = inner;
      n++;
    }
  }
  return out;
}
