// The watch cache's sorted key index (src/storage/watch-cache-keys.ts): order after recorded adds and
// removals, and reads under a quiet namespace beside another namespace's changes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SortedKeys } from '../../src/storage/watch-cache-keys.js';

const P = '/registry/configmaps/';

test('adds and removals recorded aside come out in order, under any prefix', () => {
  const keys = new SortedKeys();
  keys.reset([`${P}a/1`, `${P}a/3`, `${P}b/1`]);
  keys.add(`${P}a/2`);
  keys.remove(`${P}b/1`);
  keys.add(`${P}c/9`);
  keys.add(`${P}b/0`);
  assert.equal(keys.withPrefix(`${P}a/`), [`${P}a/1`, `${P}a/2`, `${P}a/3`]);
  assert.equal(keys.withPrefix(`${P}b/`), [`${P}b/0`]);
  assert.equal(keys.withPrefix(''), [`${P}a/1`, `${P}a/2`, `${P}a/3`, `${P}b/0`, `${P}c/9`]);
  // A removal then the same key's re-creation, and an add then its removal, before any read.
  keys.remove(`${P}a/2`);
  keys.add(`${P}a/2`);
  keys.add(`${P}d/1`);
  keys.remove(`${P}d/1`);
  assert.equal(keys.withPrefix(P), [`${P}a/1`, `${P}a/2`, `${P}a/3`, `${P}b/0`, `${P}c/9`]);
});

test('a quiet namespace is read while another namespace changes, and sees its own changes at once', () => {
  const keys = new SortedKeys();
  const quiet = Array.from({ length: 100 }, (_, i) => `${P}quiet/k${String(i).padStart(3, '0')}`);
  keys.reset([...quiet, `${P}writes/w0`]);
  for (let round = 0; round < 50; round++) {
    keys.add(`${P}writes/x${round}`);
    keys.remove(`${P}writes/w${round}`);
    keys.add(`${P}writes/w${round + 1}`);
    assert.equal(keys.withPrefix(`${P}quiet/`), quiet);
    // A namespace that sorts between the two, created and read.
    if (round === 25) {
      keys.add(`${P}r/new`);
      assert.equal(keys.withPrefix(`${P}r/`), [`${P}r/new`]);
    }
  }
  assert.equal(keys.withPrefix(`${P}writes/`), [...Array.from({ length: 50 }, (_, r) => `${P}writes/x${r}`), `${P}writes/w50`].sort());
  keys.remove(quiet[7]!);
  assert.equal(keys.withPrefix(`${P}quiet/`), quiet.filter((_, i) => i !== 7), 'a change under the namespace is seen by its next read');
  assert.equal(keys.withPrefix(''), [`${P}quiet/k000`, ...quiet.slice(1).filter((_, i) => i !== 6), `${P}r/new`, ...Array.from({ length: 50 }, (_, r) => `${P}writes/x${r}`).sort(), `${P}writes/w50`].sort());
});

test.run();
