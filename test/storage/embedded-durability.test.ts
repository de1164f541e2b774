import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
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

test('commits are fsynced before they are acknowledged by default (synchronous=FULL); fsync: false relaxes it', async () => {
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
