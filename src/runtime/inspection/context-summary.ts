/**
 * A small, safe summary of an actor's context for /debug/machines: numbers, booleans, short
 * strings and short arrays of those, up to two levels into plain objects. Anything that could carry a
 * secret (keys named like tokens, passwords, certificates) or be large (clients, caches, loggers,
 * class instances, functions) is left out, so the page can be shown to anyone who can reach it.
 */

export type SummaryLeaf = string | number | boolean | null | Array<string | number | boolean | null>;
/** A leaf, or a plain object of them (nested at most `maxDepth` levels). */
export type SummaryValue = SummaryLeaf | { [key: string]: SummaryValue };
export type ContextSummary = Record<string, SummaryValue>;

export interface SummaryLimits {
  /** Longest string kept (longer ones are cut and end in `…`); default 80. */
  maxString: number;
  /** Most array items kept; default 5. */
  maxArray: number;
  /** Most keys kept per object; default 16. */
  maxKeys: number;
  /** Plain objects are followed this many levels below the context; default 2. */
  maxDepth: number;
}

export const DEFAULT_SUMMARY_LIMITS: SummaryLimits = { maxString: 80, maxArray: 5, maxKeys: 16, maxDepth: 2 };

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

/** Plain values first, then nested objects, so the short facts lead. */
function summarizeObject(obj: Record<string, unknown>, limits: SummaryLimits, depth: number): Record<string, SummaryValue> {
  const out: Record<string, SummaryValue> = {};
  let n = 0;
  const entries = Object.entries(obj).filter(([key]) => !SECRET_KEY.test(key));
  for (const [key, value] of entries) {
    if (n >= limits.maxKeys) return out;
    const l = leaf(value, limits);
    if (l === undefined) continue;
    out[key] = l;
    n++;
  }
  if (depth >= limits.maxDepth) return out;
  for (const [key, value] of entries) {
    if (n >= limits.maxKeys) return out;
    if (!isPlainObject(value)) continue;
    const inner = summarizeObject(value, limits, depth + 1);
    if (Object.keys(inner).length === 0) continue;
    out[key] = inner;
    n++;
  }
  return out;
}

/** Summarises a context object (anything else summarises to `{}`). */
export function summarizeContext(context: unknown, limits: SummaryLimits = DEFAULT_SUMMARY_LIMITS): ContextSummary {
  return isPlainObject(context) ? summarizeObject(context, limits, 0) : {};
}
