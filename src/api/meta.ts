/**
 * Small helpers over plain API objects: dotted-path access (used by the scale subresource, whose
 * mapping names paths like `spec.replicas`), deep clone and deep freeze.
 */

/** Reads a dotted path (`spec.selector.matchLabels`); undefined when any step is missing or not an object. */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (part === '') continue;
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Writes a dotted path, creating intermediate objects as needed (replacing non-object steps). */
export function setPath(obj: object, path: string, value: unknown): void {
  const parts = path.split('.').filter((p) => p !== '');
  if (parts.length === 0) throw new Error('setPath: empty path');
  let cur = obj as Record<string, unknown>;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[part] = {};
    cur = cur[part] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** Removes a dotted path; a missing path is not an error. */
export function deletePath(obj: object, path: string): void {
  const parts = path.split('.').filter((p) => p !== '');
  const parent = getPath(obj, parts.slice(0, -1).join('.'));
  if (parent && typeof parent === 'object' && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[parts[parts.length - 1]!];
}

export function deepClone<T>(value: T): T {
  return structuredClone(value);
}

/** Freezes an object graph so shared definitions and cached objects cannot be changed by accident. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** True for a plain (non-array, non-null) object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** JSON with object keys sorted, so two equal values always give the same string. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}
