/**
 * The "Large objects" section of docs/benchmarks.md (bench/measure-large-objects.ts), with the
 * figures from before the work that split and thinned large writes (kept here: a run only measures
 * the code it runs).
 */
import type { LargeObjectFigures } from './measure-large-objects.js';

export const LARGE_OBJECTS_HEADING = '## Large objects';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

export function renderLargeObjectsSection(f: LargeObjectFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const rows = f.steps.map((s) => `| ${s.name} | ${s.status} | ${n0(s.requestMs)} ms | ${n0(s.worstHealthzMs)} ms | ${s.worstHealthzMs <= 1000 ? '✓' : '✗'} |`);
  return `${LARGE_OBJECTS_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-large-objects.ts. A fresh apiserver on its embedded store; one ConfigMap with ${n0(f.settings.labels)} labels
(${n0(f.bodyBytes)} bytes as sent, ${n0(f.storedBytes)} bytes as stored with its managedFields, near the 3 MiB limit on a stored
object) written each way below, one request at a time, while a second
connection asks for \`/healthz\` every ${f.settings.pingEveryMs} ms. "Slowest /healthz" is how long the server kept other requests
waiting during that step; target (issue 8): no request blocks the server for more than a second. Idle server, same run:
slowest /healthz ${n0(f.idleWorstHealthzMs)} ms.

| Step | Status | Request | Slowest /healthz meanwhile | ≤ 1 s |
|---|---:|---:|---:|:-:|
${rows.join('\n')}

${LARGE_OBJECTS_BEFORE}
`;
}

/** The same steps before the change (commit 06c3298), measured with the same object and pinger. */
export const LARGE_OBJECTS_BEFORE = `Before (commit 06c3298, 2026-11-25, the same steps with 100,000 labels k<i>: v, 2.6 MB stored): apply creating it 1,534 ms with /healthz held 1,406 ms;
apply again 2,483 / 2,362 ms; apply by a second manager 3,147 / 2,942 ms; POST 1,240 / 1,072 ms; merge patch 3,341 / 3,119 ms;
PUT about 3,150 ms (each write was one uninterrupted run of the event loop). What changed: a write to an object stored larger
than 256 KiB gives other requests a turn between its steps (read, change, ownership in six steps, validation, store), and the
steps do less: the stored bytes decide "unchanged" and are parsed again for a private copy instead of cloning, JSON text is
made once and only when asked for, ownership field sets share unchanged subtrees and keep the FieldsV1 they came from.`;
