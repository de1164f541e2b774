// The watch audit of the reliability suite (test/helpers/watch-audit.ts) must catch what it
// claims to: a change missing after a list (a gap), a change delivered twice or out of order (a
// duplicate), a delete seen at two versions, while a re-list may skip what it replaced.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { from } from 'rxjs';
import type { ApiClient, ClientWatchEvent, SvcList, SvcObject } from '../../src/client/index.js';
import { resources } from '../../src/client/index.js';
import { auditWatchers, ChangeLog, KeyTable, WatchRecorder } from '../helpers/watch-audit.js';

type Step = { list: number } | { type: ClientWatchEvent['type']; name?: string; rv: number };

/** Feeds `steps` to a recorder as if a reflector had listed and watched them. */
async function recorded(keys: KeyTable, steps: Step[]): Promise<WatchRecorder> {
  let pending: Step[] = [];
  const inner = {
    list: async () => ({ metadata: { resourceVersion: String((pending.shift() as { list: number }).list) }, items: [] }) as unknown as SvcList<SvcObject>,
    watch: () => from(pending.splice(0).map((s) => ({ type: (s as { type: ClientWatchEvent['type'] }).type, object: { metadata: { name: (s as { name?: string }).name, namespace: 'ns', resourceVersion: String((s as { rv: number }).rv) } } }))),
  } as unknown as ApiClient;
  const r = new WatchRecorder(inner, keys, 'ns');
  for (let i = 0; i < steps.length; ) {
    if ('list' in steps[i]!) {
      pending = [steps[i++]!];
      await r.client.list(resources.configmaps, {});
      continue;
    }
    const batch: Step[] = [];
    while (i < steps.length && !('list' in steps[i]!)) batch.push(steps[i++]!);
    pending = batch;
    r.client.watch(resources.configmaps, {}).subscribe();
  }
  return r;
}

function log(keys: KeyTable): ChangeLog {
  const l = new ChangeLog(keys);
  l.created('ns', 'a', '11');
  l.created('ns', 'b', '12');
  l.updated('ns', 'a', '13');
  l.deleted('ns', 'b'); // at 14, as the watchers will say
  l.updated('ns', 'a', '15');
  return l;
}

test('every change once, in order: clean', async () => {
  const keys = new KeyTable();
  const l = log(keys);
  const r = await recorded(keys, [{ list: 10 }, { type: 'ADDED', name: 'a', rv: 11 }, { type: 'ADDED', name: 'b', rv: 12 }, { type: 'MODIFIED', name: 'a', rv: 13 }, { type: 'DELETED', name: 'b', rv: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const out = auditWatchers(l, [r]);
  assert.equal([out.gaps, out.duplicates, out.misplacedDeletes, out.unplacedDeletes], [0, 0, 0, 0], out.problems.join('\n'));
});

test('a change missing is a gap; a change seen twice is a duplicate', async () => {
  const keys = new KeyTable();
  const l = log(keys);
  const gap = await recorded(keys, [{ list: 10 }, { type: 'ADDED', name: 'a', rv: 11 }, { type: 'MODIFIED', name: 'a', rv: 13 }, { type: 'DELETED', name: 'b', rv: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const dup = await recorded(keys, [{ list: 12 }, { type: 'MODIFIED', name: 'a', rv: 13 }, { type: 'MODIFIED', name: 'a', rv: 13 }, { type: 'DELETED', name: 'b', rv: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const out = auditWatchers(l, [gap, dup]);
  assert.is(out.gaps, 1, out.problems.join('\n'));
  assert.is(out.duplicates, 1, out.problems.join('\n'));
});

test('a bookmark past a change not delivered is a gap; a re-list may skip what it replaced', async () => {
  const keys = new KeyTable();
  const l = log(keys);
  const bookmarked = await recorded(keys, [{ list: 12 }, { type: 'BOOKMARK', rv: 13 }, { type: 'DELETED', name: 'b', rv: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const relisted = await recorded(keys, [{ list: 10 }, { type: 'ADDED', name: 'a', rv: 11 }, { list: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const out = auditWatchers(l, [bookmarked, relisted]);
  assert.is(out.gaps, 1, out.problems.join('\n'));
  assert.is(out.duplicates, 0, out.problems.join('\n'));
});

test('a delete seen at two versions is misplaced; a wrong event type is not the next change', async () => {
  const keys = new KeyTable();
  const l = log(keys);
  const one = await recorded(keys, [{ list: 13 }, { type: 'DELETED', name: 'b', rv: 14 }, { type: 'MODIFIED', name: 'a', rv: 15 }]);
  const other = await recorded(keys, [{ list: 13 }, { type: 'DELETED', name: 'b', rv: 15 }]);
  const wrongType = await recorded(keys, [{ list: 10 }, { type: 'MODIFIED', name: 'a', rv: 11 }]);
  const out = auditWatchers(l, [one, other, wrongType]);
  assert.is(out.misplacedDeletes, 1, out.problems.join('\n'));
  assert.ok(out.duplicates >= 2, out.problems.join('\n'));
});

test.run();
