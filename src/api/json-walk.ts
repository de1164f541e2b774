/**
 * Walks over JSON values (plain objects, arrays, strings, numbers, booleans, null) that never
 * recurse: each keeps its own explicit stack, so a value of any depth, even a cyclic one (a YAML
 * alias that refers to itself), cannot overflow the call stack. Request input is bounded at the
 * server's edge (src/apiserver/input-limits.ts); these walks are what the edge itself and the paths
 * that must keep working on objects stored before that bound existed (reads, delete) rely on.
 */

type JsonContainer = Record<string, unknown> | unknown[];

const isContainer = (v: unknown): v is JsonContainer => v !== null && typeof v === 'object';

/**
 * The nesting depth of `value` (a scalar is 0, `{}` and `[]` are 1, `{"a":{}}` is 2), counted no
 * further than `cap + 1`: the walk stops as soon as the value is known to be deeper than `cap`,
 * so a cyclic or huge value costs no more than reaching that depth.
 */
export function nestingDepth(value: unknown, cap = Number.MAX_SAFE_INTEGER): number {
  if (!isContainer(value)) return 0;
  let max = 0;
  // Two parallel stacks: no object allocated per container visited.
  const values: JsonContainer[] = [value];
  const depths: number[] = [1];
  while (values.length) {
    const v = values.pop()!;
    const d = depths.pop()!;
    if (d > max) {
      max = d;
      if (max > cap) return max;
    }
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const c = v[i];
        if (c !== null && typeof c === 'object') {
          values.push(c as JsonContainer);
          depths.push(d + 1);
        }
      }
    } else {
      for (const k in v) {
        const c = v[k];
        if (c !== null && typeof c === 'object') {
          values.push(c as JsonContainer);
          depths.push(d + 1);
        }
      }
    }
  }
  return max;
}

/**
 * The nesting depth of a JSON text given as UTF-8 bytes, read off its brackets without parsing
 * (a few milliseconds for megabytes); counted no further than `cap + 1`, like nestingDepth.
 */
export function jsonTextDepth(bytes: Uint8Array, cap = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) {
      if (++depth > max) {
        max = depth;
        if (max > cap) return max;
      }
    } else if (b === 0x7d || b === 0x5d) depth--;
  }
  return max;
}

/**
 * About how many bytes `value` takes as JSON (strings and keys counted by UTF-16 length, which is
 * what an attacker controls cheaply); stops once over `limit` and returns a number above it.
 */
export function jsonSizeAtMost(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') size += 8;
    else if (typeof v === 'boolean' || v === null || v === undefined) size += 5;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const c of v) stack.push(c);
    } else if (typeof v === 'object') {
      for (const k of Object.keys(v)) {
        size += k.length + 4;
        stack.push((v as Record<string, unknown>)[k]);
      }
      size += 2;
    }
    if (size > limit) return size;
  }
  return size;
}

/** A deep copy; structuredClone where the stack allows (it is native and fast), else an explicit-stack copy. */
export function cloneJson<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return cloneIteratively(value);
  }
}

function cloneIteratively<T>(value: T): T {
  if (!isContainer(value)) return value;
  const root: JsonContainer = Array.isArray(value) ? [] : {};
  const stack: { from: JsonContainer; to: JsonContainer }[] = [{ from: value, to: root }];
  while (stack.length) {
    const { from, to } = stack.pop()!;
    for (const k of Object.keys(from)) {
      const v = (from as Record<string, unknown>)[k];
      if (isContainer(v)) {
        const copy: JsonContainer = Array.isArray(v) ? [] : {};
        (to as Record<string, unknown>)[k] = copy;
        stack.push({ from: v, to: copy });
      } else (to as Record<string, unknown>)[k] = v;
    }
  }
  return root as T;
}

/** Freezes `value` and everything reachable from it (typed arrays excepted: they cannot be frozen); returns it. */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v) || ArrayBuffer.isView(v)) continue;
    Object.freeze(v);
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return value;
}

/** JSON.stringify where the stack allows, else the same text built with an explicit stack. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return writeJson(value, false);
  }
}

/** JSON with object keys sorted (undefined members left out), so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return writeJson(value, true);
}

/** The explicit-stack writer behind stringifyJson's fallback and canonicalJson. */
function writeJson(value: unknown, sortKeys: boolean): string {
  const out: string[] = [];
  // Work items: a value to write, or literal text (separators and closing brackets).
  const stack: ({ text: string } | { value: unknown })[] = [{ value }];
  while (stack.length) {
    const item = stack.pop()!;
    if ('text' in item) {
      out.push(item.text);
      continue;
    }
    const v = item.value;
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') {
      out.push('null');
    } else if (!isContainer(v)) {
      out.push(JSON.stringify(v) ?? 'null');
    } else if (Array.isArray(v)) {
      stack.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ value: v[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      out.push('[');
    } else {
      const o = v as Record<string, unknown>;
      let keys = Object.keys(o).filter((k) => o[k] !== undefined && typeof o[k] !== 'function');
      if (sortKeys) keys = keys.sort();
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ value: o[keys[i]!] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
      }
      out.push('{');
    }
  }
  return out.join('');
}
