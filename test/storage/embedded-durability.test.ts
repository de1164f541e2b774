import { spawn } from 'node:child_process';
import { fsync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEmbeddedStore } from '../../src/storage/embedded.js';
import { dec, tempDir } from './embedded-fixture.js';

const writer = fileURLToPath(new URL('./fixtures/embedded-writer.js', import.meta.url));

/** Run the writer child, SIGKILL it once `killAfter` acknowledgements were printed; return them. */
function writeThenKill(dir: string, total: number, killAfter: number): Promise<{ acks: Map<string, number>; signal: string | null; sawDone: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writer, dir, String(total), '8'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks = new Map<string, number>();
    let buf = '';
    let stderr = '';
    let sawDone = false;
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        const [word, key, rev] = line.split(' ');
        if (word === 'ack') acks.set(key!, Number(rev));
        else if (word === 'done') sawDone = true;
      }
      if (!killed && acks.size >= killAfter) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (!killed) reject(new Error(`writer ended before the kill (code ${code}): ${stderr}`));
      else resolve({ acks, signal, sawDone });
    });
  });
}

test('commits are fsynced before they are acknowledged by default; fsync: false relaxes it', async () => {
  for (const [opts, want] of [[{}, true], [{ fsync: true }, true], [{ fsync: false }, false]] as const) {
    const dir = tempDir();
    const store = openEmbeddedStore({ dir, ...opts });
    try {
      assert.is(store.fsyncsCommits(), want, JSON.stringify(opts));
      await store.create('/registry/configmaps/default/a', Buffer.from('{}'));
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a commit is acknowledged, visible and watched only after its fsync; the event loop is free meanwhile', async () => {
  const dir = tempDir();
  const held: Array<() => void> = [];
  let fsyncs = 0;
  // The real fsync, held until the test lets it end.
  const store = openEmbeddedStore({
    dir,
    fsyncFile: async (fd) => {
      fsyncs++;
      await new Promise<void>((resolve) => held.push(resolve));
      await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
    },
  });
  try {
    const seen: number[] = [];
    store.watch('/registry/configmaps/', 0, { onEvents: (evs) => seen.push(...evs.map((e) => e.modRevision)), onError: () => undefined });
    let acked = false;
    const write = store.create('/registry/configmaps/default/a', Buffer.from('{"v":1}')).then((r) => ((acked = true), r));
    await eventuallyTrue(() => held.length > 0);
    // The directory's entry first (once), then the WAL.
    held.shift()!();
    await eventuallyTrue(() => held.length > 0);
    // Committed to SQLite, not yet on disk: not acknowledged, not visible, not watched.
    await new Promise((r) => setTimeout(r, 20));
    assert.not.ok(acked, 'not acknowledged before its fsync ended');
    assert.is(await store.get('/registry/configmaps/default/a'), undefined, 'a read at the current revision does not see it');
    assert.is((await store.list('/registry/configmaps/')).items.length, 0);
    assert.is(await store.currentRevision(), 0);
    const late: number[] = [];
    store.watch('/registry/configmaps/', 0, { onEvents: (evs) => late.push(...evs.map((e) => e.modRevision)), onError: () => undefined });
    // A second write waits for the first group's fsync, then is committed in a group of its own.
    const second = store.create('/registry/configmaps/default/b', Buffer.from('{"v":2}'));
    held.shift()!();
    const first = await write;
    assert.is(first.modRevision, 1);
    await eventuallyTrue(() => held.length > 0);
    held.shift()!();
    assert.is((await second).modRevision, 2);
    assert.is(Buffer.from((await store.get('/registry/configmaps/default/a'))!.value).toString(), '{"v":1}');
    await eventuallyTrue(() => seen.length === 2 && late.length === 2);
    assert.equal(seen, [1, 2]);
    assert.equal(late, [1, 2], 'a watch opened while the group was being fsynced gets it once');
    assert.is(fsyncs, 3);
  } finally {
    const closing = store.close();
    while (held.length) held.shift()!();
    await closing;
    rmSync(dir, { recursive: true, force: true });
  }
});

async function eventuallyTrue(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), 'condition reached');
}

test('every acknowledged write survives kill -9 and the revision stays consistent', async () => {
  const dir = tempDir();
  try {
    const { acks, signal, sawDone } = await writeThenKill(dir, 1_000_000, 5000);
    assert.is(signal, 'SIGKILL');
    assert.not.ok(sawDone, 'the writer was killed mid-stream');
    assert.ok(acks.size >= 5000);

    const store = openEmbeddedStore({ dir });
    const current = await store.currentRevision();
    const maxAcked = Math.max(...acks.values());
    assert.ok(current >= maxAcked, `current revision ${current} >= highest acknowledged ${maxAcked}`);
    for (const [key, rev] of acks) {
      const rec = await store.get(key);
      assert.ok(rec, `acknowledged key ${key} is present`);
      assert.is(rec!.modRevision, rev);
      assert.is(JSON.parse(dec(rec!.value)).metadata.name, key.slice(key.lastIndexOf('/') + 1).replace(/cm-0*(\d)/, 'cm-$1'));
    }
    // Only creates were written: revisions 1..current each produced exactly one live key.
    const all = await store.list('/registry/configmaps/');
    assert.is(all.items.length, current);
    const revs = all.items.map((r) => r.modRevision).sort((a, b) => a - b);
    revs.forEach((r, i) => assert.is(r, i + 1));
    // The store keeps counting from where it was.
    const next = await store.create('/registry/configmaps/default/after-crash', new Uint8Array([1]));
    assert.is(next.modRevision, current + 1);
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
