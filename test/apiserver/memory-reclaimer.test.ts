// The memory reclaimer (src/apiserver/memory-reclaimer.ts) in this process: once a burst of Buffers
// ends and allocation stops, one full collection frees them, and at the next settled readings the C
// allocator is asked to give its free pages back (a counting trimmer stands in for glibc's here;
// test/apiserver/native-heap.test.ts checks the real one); under steady allocation nothing runs.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startMemoryReclaimer } from '../../src/apiserver/memory-reclaimer.js';
import type { NativeHeapTrimmer } from '../../src/apiserver/native-heap.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function countingTrimmer(): NativeHeapTrimmer & { calls: number } {
  const t = {
    calls: 0,
    trim: async () => {
      t.calls++;
      return { ms: 0 };
    },
  };
  return t;
}

test('a burst of Buffers that ends: one collection frees them, then a trim', async () => {
  const trimmer = countingTrimmer();
  const reclaimer = startMemoryReclaimer({ intervalMs: 50, thresholdBytes: 16 * 2 ** 20, quietBytes: 2 ** 20, trimmer });
  try {
    let burst: Buffer[] | undefined = Array.from({ length: 64 }, () => Buffer.alloc(2 ** 20, 1));
    const held = process.memoryUsage().external;
    assert.ok(burst.length === 64);
    burst = undefined;
    for (let i = 0; i < 60 && trimmer.calls === 0; i++) await sleep(50);
    const after = process.memoryUsage().external;
    assert.ok(held - after >= 48 * 2 ** 20, `the collection freed the burst: external ${held} -> ${after}`);
    assert.ok(trimmer.calls >= 1, 'the C allocator was asked to give its free pages back');
    // A few more trims follow the collection (finalizers free native memory over seconds), then,
    // as they released little (nothing here), none while nothing changes.
    await sleep(600);
    const calls = trimmer.calls;
    assert.ok(calls >= 2 && calls <= 6, `a few trims after the collection: ${calls}`);
    await sleep(400);
    assert.is(trimmer.calls, calls, 'no trim once those are done');
  } finally {
    reclaimer.stop();
  }
});

test('under steady allocation it neither collects nor trims', async () => {
  const trimmer = countingTrimmer();
  const reclaimer = startMemoryReclaimer({ intervalMs: 100, thresholdBytes: 16 * 2 ** 20, quietBytes: 2 ** 20, trimmer });
  try {
    const live: Buffer[] = [];
    const until = Date.now() + 600;
    while (Date.now() < until) {
      // 2 MiB every 10 ms, all kept: ten allocations between two readings, which never find the
      // process settled (each sees `external` grow by far more than quietBytes).
      live.push(Buffer.alloc(2 * 2 ** 20, 1));
      await sleep(10);
    }
    assert.is(trimmer.calls, 0);
    assert.ok(live.length > 10);
  } finally {
    reclaimer.stop();
  }
});

test("V8's own collections after a burst (the heap shrinking reading by reading) do not postpone the reclaim", async () => {
  const trimmer = countingTrimmer();
  const MiB = 2 ** 20;
  let reading = 0;
  // At rest 100 MiB resident; then the burst's end: 64 MiB more resident, and V8's memory reducer
  // collecting 8 MiB of the heap at every reading, as it does for a while after load.
  const memoryUsage = (): NodeJS.MemoryUsage => {
    const n = reading++;
    return n === 0
      ? { rss: 100 * MiB, heapTotal: 120 * MiB, heapUsed: 100 * MiB, external: 4 * MiB, arrayBuffers: 0 }
      : { rss: 164 * MiB, heapTotal: 120 * MiB, heapUsed: Math.max(20, 100 - 8 * n) * MiB, external: 4 * MiB, arrayBuffers: 0 };
  };
  const reclaimer = startMemoryReclaimer({ intervalMs: 20, quietBytes: 4 * MiB, trimmer, memoryUsage });
  try {
    for (let i = 0; i < 100 && trimmer.calls === 0; i++) await sleep(20);
    assert.ok(trimmer.calls >= 1, `collected and trimmed after ${reading} readings`);
    // 5 settled readings, the collection, up to 4 follow-up collections (this scripted heap keeps
    // shrinking, so each looks as if it freed more), then the trim; each collection reads once more.
    assert.ok(reading <= 12 + 2 * 4, `within a few readings of the quiet period: ${reading}`);
  } finally {
    reclaimer.stop();
  }
});

test.run();

