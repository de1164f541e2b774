// Ownership bookkeeping (trackOwnership) without a server: Update moves fields, Apply conflicts, reset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FieldSet, trackOwnership } from '../../src/apiserver/apply/index.js';
import { configMapDefinition, type SvcObject } from '../../src/api/index.js';
import { StatusError } from '../../src/api/status.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const T1 = Date.parse('2026-01-01T00:01:00Z');
const cm = (data: Record<string, string>, managedFields?: unknown): SvcObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', ...(managedFields ? { managedFields } : {}) }, data }) as SvcObject;
const update = (manager: string) => ({ operation: 'Update' as const, manager, subresource: '' });
const applyBy = (manager: string, data: Record<string, string>, force = false) => ({
  operation: 'Apply' as const,
  manager,
  subresource: '',
  force,
  applied: FieldSet.of(Object.keys(data).map((k) => ['f:data', `f:${k}`])),
});

function created(data: Record<string, string>, manager = 'a'): SvcObject {
  const o = cm(data);
  trackOwnership(configMapDefinition, undefined, o, update(manager), T0);
  return o;
}

test('create: the creator owns every field it wrote, stamped with the operation time', () => {
  const o = created({ x: '1' });
  assert.equal(o.metadata.managedFields, [{ manager: 'a', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:x': {} } } }]);
});

test('update: changed fields move to the updater, unchanged fields stay, time only for the mover', () => {
  const live = created({ x: '1', y: '2' });
  const next = cm({ x: '9', y: '2' }, live.metadata.managedFields);
  trackOwnership(configMapDefinition, live, next, update('b'), T1);
  const [a, b] = next.metadata.managedFields!;
  assert.equal(a!.fieldsV1, { 'f:data': { '.': {}, 'f:y': {} } });
  assert.is(a!.time, '2026-01-01T00:00:00Z');
  assert.equal(b!.fieldsV1, { 'f:data': { 'f:x': {} } });
  assert.is(b!.time, '2026-01-01T00:01:00Z');
});

test('apply: a changed field owned by another manager is a conflict unless forced', () => {
  const live = created({ x: '1' });
  const next = cm({ x: '2' });
  try {
    trackOwnership(configMapDefinition, live, structuredClone(next), applyBy('p', { x: '2' }), T1);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, StatusError);
    assert.is((err as StatusError).code, 409);
    assert.equal((err as StatusError).status.details!.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.data.x' }]);
  }
  trackOwnership(configMapDefinition, live, next, applyBy('p', { x: '2' }, true), T1);
  assert.equal(next.metadata.managedFields!.map((e) => [e.manager, e.operation, e.fieldsV1]), [
    ['p', 'Apply', { 'f:data': { 'f:x': {} } }],
    ['a', 'Update', { 'f:data': {} }],
  ]);
});

test('apply: the same value is shared, no conflict', () => {
  const live = created({ x: '1' });
  const next = cm({ x: '1' });
  trackOwnership(configMapDefinition, live, next, applyBy('p', { x: '1' }), T1);
  assert.equal(next.metadata.managedFields!.map((e) => e.manager), ['p', 'a']);
});

test('reset: [{}] as the new managedFields strips them; [] keeps the stored ones', () => {
  const live = created({ x: '1' });
  const kept = cm({ x: '1' }, []);
  trackOwnership(configMapDefinition, live, kept, update('b'), T1);
  assert.equal(kept.metadata.managedFields, live.metadata.managedFields);
  const reset = cm({ x: '1' }, [{}]);
  trackOwnership(configMapDefinition, live, reset, update('b'), T1);
  assert.is(reset.metadata.managedFields, undefined);
});

test('a conflict with many fields lists the first 100 and counts them all', () => {
  const data = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 'a']));
  const live = created(data);
  const next = cm(Object.fromEntries(Object.keys(data).map((k) => [k, 'b'])), live.metadata.managedFields);
  try {
    trackOwnership(configMapDefinition, live, next, applyBy('b', data), T1);
    assert.unreachable('expected a conflict');
  } catch (e) {
    assert.instance(e, StatusError);
    const err = e as StatusError;
    assert.match(err.message, /^Apply failed with 20000 conflicts: conflicts with "a":\n- \.data\.k0\n/);
    assert.match(err.message, /\(and 19900 more\)$/);
    assert.is((err.status.details?.causes ?? []).length, 100);
  }
});

test.run();
