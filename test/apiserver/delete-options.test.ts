// DeleteOptions, from a DELETE's body and query or an Eviction's `deleteOptions`, are read by one
// parser (src/apiserver/handlers/delete.ts, `deleteOptionsFrom`). Found by the issue 23 fuzz test:
// an eviction of a pod bound to a node with `deleteOptions.gracePeriodSeconds: 7.6e276` (an
// "integer" to JavaScript) was a 500 "Invalid time value" (the eviction had a second, laxer parser),
// and a DELETE's grace period of 10^15 s made the same unwritable deletion time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { StatusError } from '../../src/api/status.js';
import { deleteOptionsFrom } from '../../src/apiserver/handlers/delete.js';
import { startApiServer } from '../helpers/apiserver.js';

const test = suite('DeleteOptions');
const none = new URLSearchParams();

function refusal(f: () => unknown): StatusError {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('not refused');
}

test('a grace period past the safe integers is a 400 naming the field, in the body and the eviction alike', () => {
  for (const grace of [7.6e276, 1e308, 2 ** 53, -(2 ** 53), 1.5, '5', [], {}]) {
    const e = refusal(() => deleteOptionsFrom({ gracePeriodSeconds: grace }, none, false, 'deleteOptions.'));
    assert.is(e.status.code, 400);
    assert.match(e.status.message ?? '', /^deleteOptions\.gracePeriodSeconds: invalid value .*: must be an integer between/);
  }
  assert.is(deleteOptionsFrom({ gracePeriodSeconds: Number.MAX_SAFE_INTEGER }, none, false).gracePeriodSeconds, Number.MAX_SAFE_INTEGER);
  assert.is(deleteOptionsFrom({ gracePeriodSeconds: -5 }, none, false).gracePeriodSeconds, 0);
  assert.is(deleteOptionsFrom({ gracePeriodSeconds: 9 }, new URLSearchParams('gracePeriodSeconds=3'), false).gracePeriodSeconds, 3, 'the query wins');
});

test('dryRun, propagationPolicy and preconditions are checked the same way for an eviction', () => {
  assert.is(refusal(() => deleteOptionsFrom({ dryRun: ['x'] }, none, false, 'deleteOptions.')).status.code, 400);
  assert.is(refusal(() => deleteOptionsFrom({ propagationPolicy: 'Sideways' }, none, false, 'deleteOptions.')).status.code, 400);
  assert.is(refusal(() => deleteOptionsFrom({ preconditions: [] }, none, false, 'deleteOptions.')).status.code, 400);
  assert.is(deleteOptionsFrom({ dryRun: ['All'] }, none, false).dryRun, true);
});

test('through the server: a bound pod evicted with a huge grace period is a 400, and deleted with the largest one ends at the last writable time', async () => {
  const server = await startApiServer();
  try {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = { metadata: { name: 'p' }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx' }] } };
    assert.is((await server.request('POST', pods, pod)).status, 201);
    const evict = await server.request('POST', `${pods}/p/eviction`, { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p' }, deleteOptions: { gracePeriodSeconds: 7.6e276 } });
    assert.is(evict.status, 400, evict.text);
    assert.is(evict.json.kind, 'Status');
    assert.is((await server.request('GET', `${pods}/p`)).json.metadata.deletionTimestamp, undefined, 'nothing changed');
    const del = await server.request('DELETE', `${pods}/p?gracePeriodSeconds=${Number.MAX_SAFE_INTEGER}`);
    assert.is(del.status, 200, del.text);
    assert.is(del.json.metadata.deletionTimestamp, '9999-12-31T23:59:59Z');
    assert.is(del.json.metadata.deletionGracePeriodSeconds, Number.MAX_SAFE_INTEGER);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test.run();
