// Preloaded by scripts/run-tests.mjs (`--import`): makes a failing uvu `before` hook visible.
// uvu runs a suite's tests inside `try { before hooks; tests } finally { ...; return }`, and the
// `return` in `finally` discards the hook's error: the suite prints "(0 / N)" with no reason and
// the file exits 0. CI then shows a failed file and nothing to act on. This load hook rewrites that
// one line of uvu as it is loaded so the error is printed (with its stack) before it is discarded.
// uvu still exits 0 afterwards (it sets the exit code from its own count); the runner counts the
// file as failed because none of its tests passed.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function load(url, context, next) {
  const result = await next(url, context);
  if (!/\\/node_modules\\/uvu\\/dist\\/index\\.m?js$/.test(url) || result.source == null) return result;
  const source = String(result.source).replace(
    'for (hook of before) await hook(state);',
    "try { for (hook of before) await hook(state); } catch (err) { console.error('\\\\nbefore hook of ' + (name || 'the suite') + ' failed:', err); throw err; }",
  );
  return { ...result, source };
}
`),
);
