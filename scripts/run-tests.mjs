#!/usr/bin/env node
// Runs every compiled uvu test file (dist/test/**/*.test.js) in its own process, two at a time,
// and ends with the plain line "N passed, N failed" that CI reads.
// Usage: node scripts/run-tests.mjs [substring ...]   (only files whose path contains one of them)
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const testRoot = join(root, 'dist', 'test');
const filters = process.argv.slice(2);
// A failing uvu `before` hook is otherwise silent (see the file).
const HOOK_ERRORS = new URL('./uvu-hook-errors.mjs', import.meta.url).href;
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 2);

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

// Longest first, so that two slots finish together instead of one long file running alone at the
// end: the npm-registry package test (minutes), then the process-level suites, then unit files.
const LONGEST_FIRST = ['/e2e/package-outside-repo.test.js'];
const weight = (f) => (LONGEST_FIRST.some((s) => f.endsWith(s)) ? 0 : /\/(reliability|e2e|fuzz)\//.test(f) ? 1 : 2);
const files = walk(testRoot)
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort((a, b) => weight(a) - weight(b) || a.localeCompare(b));

let passed = 0;
let failed = 0;
let skipped = 0;
const failures = [];

function runOne(file, worker) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--enable-source-maps', '--import', HOOK_ERRORS, file], {
      cwd: root,
      // Which of the concurrent slots runs the file: test/helpers/free-port.ts gives each its own ports.
      env: { ...process.env, FORCE_COLOR: '0', TEST_WORKER: String(worker), TEST_WORKERS: String(concurrency) },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Own process group: on a timeout the servers and etcd a test started are killed with it.
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    // A guard against a hung file, not a time budget: the package-outside-repo e2e (two npm installs
    // from the registry) took 140-290 s on this 2-core machine.
    const limitMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 600_000);
    const timer = setTimeout(() => {
      out += `\n[run-tests] ${relative(root, file)} exceeded ${limitMs} ms; killed\n`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, limitMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const skip = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
      const rel = relative(root, file);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      if (code === 0 && total > 0 && ok + skip === total) {
        passed += ok;
        skipped += skip;
        console.log(`ok   ${rel} (${ok} tests, ${secs}s)`);
      } else {
        const bad = Math.max(1, total - ok - skip);
        passed += ok;
        failed += bad;
        failures.push(rel);
        console.log(`FAIL ${rel} (exit ${code}, ${secs}s)\n${out}`);
      }
      resolve();
    });
  });
}

const queue = [...files];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async (_, worker) => {
    while (queue.length) await runOne(queue.shift(), worker);
  }),
);

if (failures.length) console.log(`\nfailed files:\n  ${failures.join('\n  ')}`);
if (files.length === 0) {
  console.log('no test files matched');
  failed += 1;
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed === 0 && skipped === 0 ? 0 : 1);
