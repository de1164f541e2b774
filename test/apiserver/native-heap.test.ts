// The C allocator's trim (src/apiserver/native-heap.ts) on this Linux/glibc machine: blocks under the
// mmap threshold, freed with one in fifty still held, stay resident until the trim gives their
// pages back. CI runs on Debian (glibc, and Debian's libjemalloc2 that the launchers preload), so an
// absent trimmer or allocator is a failure here, not a skip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { nativeAllocator, nativeHeapTrimmer } from '../../src/apiserver/native-heap.js';

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

test('this process runs on glibc; with the launchers\' LD_PRELOAD a process runs on jemalloc and purges what it freed', () => {
  assert.is(nativeAllocator(), 'glibc');
  const module = fileURLToPath(new URL('../../src/apiserver/native-heap.js', import.meta.url));
  // The same burst as above in a child on jemalloc (no background thread: the purge alone gives the pages back).
  const script = `
    const { nativeAllocator, nativeHeapTrimmer } = await import(${JSON.stringify(module)});
    const rss = () => process.memoryUsage().rss;
    const before = rss();
    let blocks = Array.from({ length: 3000 }, (_, i) => Buffer.alloc(60000 + (i % 97), 1));
    const kept = blocks.filter((_, i) => i % 50 === 49);
    blocks = [];
    gc(); await new Promise((r) => setTimeout(r, 100)); gc();
    const freed = rss();
    const result = await nativeHeapTrimmer().trim();
    console.log(JSON.stringify({ allocator: nativeAllocator(), before, freed, trimmed: rss(), ms: result?.ms, kept: kept.length }));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    env: { ...process.env, LD_PRELOAD: 'libjemalloc.so.2', MALLOC_CONF: 'dirty_decay_ms:-1,muzzy_decay_ms:-1' },
    encoding: 'utf8',
  });
  const r = JSON.parse(out.trim().split('\n').pop()!) as { allocator: string; before: number; freed: number; trimmed: number; ms: number; kept: number };
  console.log(`  jemalloc: rss before ${mib(r.before)} MiB, blocks freed ${mib(r.freed)} MiB, purged ${mib(r.trimmed)} MiB in ${r.ms.toFixed(1)} ms`);
  assert.is(r.allocator, 'jemalloc', 'libjemalloc2 is installed and preloaded');
  assert.ok(r.freed - r.before > 100 * 2 ** 20, `with decay off, the freed blocks stayed resident (${mib(r.freed - r.before)} MiB)`);
  assert.ok(r.freed - r.trimmed > 100 * 2 ** 20, `the purge gave back ${mib(r.freed - r.trimmed)} MiB`);
});

test.run();
