/**
 * Schema `pattern`s run on RE2 (the re2js port): matching takes time linear in the input (at most
 * input length x compiled pattern size, never exponential), so no pattern in a CRD can freeze the
 * server the way `^(a+)+$` does on a backtracking engine. RE2 syntax is also what the established
 * server accepts (Go's regexp); patterns it cannot compile (backreferences, lookaround) are errors
 * at CRD write time.
 *
 * Plugged into ajv through its `code.regExp` option; compiled patterns are cached, and each one's
 * toString() is `/pattern/`, which ajv uses as its key (distinct patterns must give distinct keys).
 */
import { RE2JS } from 're2js';

/** What ajv calls on a compiled pattern. */
export interface LinearRegExp {
  test(input: string): boolean;
  /** `/pattern/`: ajv shares one compiled pattern among all schemas whose patterns give the same string. */
  toString(): string;
}

const cache = new Map<string, LinearRegExp>();
const CACHE_LIMIT = 10_000;

/** Compiles `pattern` for an unanchored search; throws with RE2's reason when it is not RE2 syntax. */
export function compileLinearRegExp(pattern: string): LinearRegExp {
  let re = cache.get(pattern);
  if (!re) {
    const compiled = RE2JS.compile(pattern);
    // ajv keys its per-instance pattern table by toString(): "[object Object]" would give every schema the first pattern.
    const key = `/${pattern}/`;
    re = { test: (input: string) => compiled.test(input), toString: () => key };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** Why RE2 refuses `pattern`, or undefined when it compiles. */
export function linearRegExpError(pattern: string): string | undefined {
  try {
    compileLinearRegExp(pattern);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** The engine in the shape ajv's `code.regExp` option takes (flags are ignored: schema patterns have none). */
export const ajvLinearRegExp = Object.assign((pattern: string, _flags: string): LinearRegExp => compileLinearRegExp(pattern), {
  // Only used by ajv's standalone code generation, which this server does not use.
  code: 'compileLinearRegExp',
});
