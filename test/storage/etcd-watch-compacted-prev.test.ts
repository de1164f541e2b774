/**
 * An etcd watch that reaches a change whose previous state etcd can no longer read (the history
 * before it compacted, as for a watch lagging behind the compactor) ends with CompactedError
 * after the events before it: it never delivers a delete with no object (the watch cache dropped
 * those as undecodable, and watchers of the API server missed the delete: found by
 * test/reliability/watch-churn.test.ts on etcd with compaction every second) nor an update with
 * no previous state.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { CompactedError } from '../../src/storage/types.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, recordWatch, uniquePrefix } from './contract.js';

let etcd: RunningEtcd;
let store: EtcdStore;

test.before(async () => {
  etcd = await startEtcd();
  store = await openEtcdStore({ endpoints: [etcd.endpoint], logger: undefined });
});
test.after(async () => {
  await store?.close();
  await etcd?.stop();
});

// etcd reads the previous state at (revision - 1): a watch starting at the compaction revision gets
// the change there without it. (A lagging watch meets the same for every change up to the
// compaction revision when the compactor passes it mid-replay, which cannot be staged exactly.)
test('an update whose previous state is compacted ends the watch with CompactedError, delivering nothing in its place', async () => {
  const p = uniquePrefix('compacted-prev-update');
  const first = await store.create(`${p}a`, bytes('1'));
  const updated = await store.update(`${p}a`, bytes('2'), first.modRevision);
  await store.compact(updated.modRevision);
  const w = recordWatch(store, p, updated.modRevision - 1);
  try {
    const err = await w.waitForError();
    assert.instance(err, CompactedError);
    assert.equal(w.events.map((e) => `${e.type} ${e.key.slice(p.length)}@${e.modRevision}`), [], 'no update without its previous state');
  } finally {
    w.close();
  }
});

test('a create at the compaction revision needs no previous state: delivered, the watch goes on', async () => {
  const p = uniquePrefix('compacted-prev-create');
  const created = await store.create(`${p}b`, bytes('b'));
  await store.compact(created.modRevision);
  const w = recordWatch(store, p, created.modRevision - 1);
  try {
    const [ev] = await w.waitFor(1);
    assert.equal([ev!.type, ev!.modRevision], ['put', created.modRevision]);
    const next = await store.update(`${p}b`, bytes('c'), created.modRevision);
    const events = await w.waitFor(2);
    assert.equal([events[1]!.modRevision, events[1]!.prevModRevision], [next.modRevision, created.modRevision]);
    assert.is(w.error, undefined);
  } finally {
    w.close();
  }
});

test.run();
