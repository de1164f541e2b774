/**
 * Schema `pattern`s run on RE2 (the re2js port): matching takes time linear in the input (at most
 * input length x compiled pattern size, never exponential), so no pattern in a CRD can freeze the
 * server the way `^(a+)+$` does on a backtracking engine. RE2 syntax is also what the established
 * server accepts (Go's regexp); patterns it cannot compile (backreferences, lookaround) are errors
 * at CRD write time.
 *
 * Linear is not enough on its own: `[a-z]{1000}x` keeps a thousand threads alive per character
 * (3 s for 200,000 characters here). So each check is held to a budget of steps, estimated as input
 * length x program size (within a factor of about two of the real cost): an input over it is
 * refused without running the pattern (the schema should bound it with `maxLength`).
 *
 * Plugged into ajv through its `code.regExp` option; compiled patterns are cached, and each one's
 * toString() is `/pattern/`, which ajv uses as its key (distinct patterns must give distinct keys).
 */
import { RE2JS } from 're2js';

/** Most steps (input characters x program instructions) one check may take: about 0.3 s at worst. */
export const PATTERN_STEP_BUDGET = 20_000_000;

/** What ajv calls on a compiled pattern. */
export interface LinearRegExp {
  /** False also when `input` is over the budget (see overBudget). */
  test(input: string): boolean;
  /** Whether checking `input` would take more than PATTERN_STEP_BUDGET steps (then it is not run). */
  overBudget(input: string): boolean;
  /** Instructions of the compiled program. */
  readonly size: number;
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
    const size = programSize(compiled);
    const overBudget = (input: string) => input.length * size > PATTERN_STEP_BUDGET;
    // ajv keys its per-instance pattern table by toString(): "[object Object]" would give every schema the first pattern.
    const key = `/${pattern}/`;
    re = { test: (input: string) => !overBudget(input) && compiled.test(input), overBudget, size, toString: () => key };
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

/** The compiled program's instruction count (re2js keeps it on the compiled RE2; 1000 if it ever moves). */
function programSize(compiled: RE2JS): number {
  const inst = (compiled as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst;
  return Array.isArray(inst) ? Math.max(1, inst.length) : 1000;
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
