// The C allocator's trim (src/apiserver/native-heap.ts) on this Linux/glibc machine: blocks under the
// mmap threshold, freed with one in fifty still held, stay resident until the trim gives their
// pages back. CI runs on Debian (glibc), so an absent trimmer is a failure here, not a skip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nativeHeapTrimmer } from '../../src/apiserver/native-heap.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mib = (b: number) => Math.round(b / 2 ** 20);

test('freed small blocks stay resident until the trim returns them; timed', async () => {
  const trimmer = nativeHeapTrimmer();
  assert.ok(trimmer, 'glibc and koffi load on this machine');
  const before = process.memoryUsage().rss;
  // 3,000 blocks of 60 KB (under glibc's 128 KiB mmap threshold): about 180 MB of its heap.
  let blocks: (Buffer | undefined)[] = Array.from({ length: 3_000 }, (_, i) => Buffer.alloc(60_000 + (i % 97), 1));
  const kept = blocks.filter((_, i) => i % 50 === 49);
  blocks = [];
  gc();
  await new Promise((r) => setTimeout(r, 100));
  gc();
  const freed = process.memoryUsage().rss;
  const result = await trimmer.trim();
  const trimmed = process.memoryUsage().rss;
  console.log(`  rss before ${mib(before)} MiB, blocks freed ${mib(freed)} MiB, trimmed ${mib(trimmed)} MiB in ${result?.ms.toFixed(1)} ms; ${kept.length} blocks still held`);
  assert.ok(freed - before > 100 * 2 ** 20, `the freed blocks stayed resident (${mib(freed - before)} MiB): the case the trim is for`);
  assert.ok(freed - trimmed > 100 * 2 ** 20, `the trim gave back ${mib(freed - trimmed)} MiB`);
  assert.ok(result !== undefined);
  assert.is(kept.every((b) => b!.length >= 60_000 && b![0] === 1), true, 'blocks still held are intact');
});

test('one trim at a time: a trim asked for meanwhile answers undefined', async () => {
  const trimmer = nativeHeapTrimmer()!;
  const [a, b] = await Promise.all([trimmer.trim(), trimmer.trim()]);
  assert.ok(a);
  assert.is(b, undefined);
});

test.run();
