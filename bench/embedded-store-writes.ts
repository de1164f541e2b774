/**
 * Quick write-rate measurement of the embedded store (not part of the test suite):
 *   npx tsc -p . ; node dist/bench/embedded-store-writes.js [count] [concurrency]
 * Creates `count` small ConfigMap-sized records with `concurrency` writers in flight, then the same
 * count strictly one after the other (each awaiting its acknowledgement).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedStore } from '../src/storage/embedded.js';

const count = Number(process.argv[2] ?? 100_000);
const concurrency = Number(process.argv[3] ?? 256);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const store = openEmbeddedStore({ dir });
const value = Buffer.from(
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: { k: 'v'.repeat(200) } }),
);

let next = 0;
let t = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < count) await store.create(`/registry/configmaps/default/c-${next++}`, value);
  }),
);
let s = (performance.now() - t) / 1000;
console.log(`concurrent (${concurrency} in flight): ${count} creates in ${s.toFixed(2)}s = ${Math.round(count / s)}/s`);

const seq = Math.min(count, 20_000);
t = performance.now();
for (let i = 0; i < seq; i++) await store.create(`/registry/configmaps/seq/c-${i}`, value);
s = (performance.now() - t) / 1000;
console.log(`sequential (await each): ${seq} creates in ${s.toFixed(2)}s = ${Math.round(seq / s)}/s`);

t = performance.now();
const list = await store.list('/registry/configmaps/default/');
console.log(`list of ${list.items.length} at current revision: ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
const old = await store.list('/registry/configmaps/default/', { revision: list.revision - seq, limit: 500 });
console.log(`list chunk of ${old.items.length} at an older revision (remaining ${old.remaining}): ${(performance.now() - t).toFixed(0)} ms`);
await store.close();
rmSync(dir, { recursive: true, force: true });
