/**
 * 5,000 objects against a real etcd from one process: every create lands, a full list and a paged
 * list at one revision return all of them in key order. Prints the measured rates (docs/benchmarks).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, uniquePrefix } from './contract.js';

const N = 5000;
let etcd: RunningEtcd;
let store: EtcdStore;

test.before(async () => {
  etcd = await startEtcd();
  store = await openEtcdStore({ endpoints: [etcd.endpoint] });
});
test.after(async () => {
  await store?.close();
  await etcd?.stop();
});

// A ~1 KiB object, the size of a small pod.
const value = bytes(JSON.stringify({ kind: 'Pod', spec: { containers: [{ name: 'c', image: 'x'.repeat(900) }] } }));
const key = (p: string, i: number): string => `${p}ns/obj-${String(i).padStart(5, '0')}`;

async function createAll(p: string, inFlight: number): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < N) await store.create(key(p, next++), value);
    }),
  );
  return performance.now() - started;
}

test(`${N} creates land and a full and a paged list return them all in key order`, async () => {
  const seqPrefix = uniquePrefix('bulk-seq');
  const seqMs = await createAll(seqPrefix, 1);
  const p = uniquePrefix('bulk');
  const parMs = await createAll(p, 64);
  assert.is(await store.count(p), N);
  assert.is(await store.count(seqPrefix), N);

  const t0 = performance.now();
  const full = await store.list(p);
  const fullMs = performance.now() - t0;
  assert.is(full.items.length, N);
  assert.is(full.remaining, 0);
  assert.equal(full.items.map((i) => i.key), Array.from({ length: N }, (_, i) => key(p, i)));

  const t1 = performance.now();
  let page = await store.list(p, { limit: 500 });
  const paged = [...page.items];
  while (page.remaining > 0) {
    page = await store.list(p, { limit: 500, revision: page.revision, startKey: `${page.items[page.items.length - 1]!.key}\0` });
    paged.push(...page.items);
  }
  const pagedMs = performance.now() - t1;
  assert.is(paged.length, N);

  const rate = (ms: number): string => `${Math.round((N / ms) * 1000)}/s`;
  console.log(
    `\n[etcd bulk] ${N} creates: sequential ${seqMs.toFixed(0)} ms (${rate(seqMs)}), 64 in flight ${parMs.toFixed(0)} ms (${rate(parMs)}); ` +
      `list all ${fullMs.toFixed(0)} ms; list in pages of 500 ${pagedMs.toFixed(0)} ms (etcd ${store.serverVersion})`,
  );
});

test.run();
