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

/** True for a plain (non-array, non-null) object. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

