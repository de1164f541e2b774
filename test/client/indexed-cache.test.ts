// The informer's indexed cache: namespace, owner and custom indexes, frozen objects, re-list differences.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../src/api/types.js';
import { IndexedStore } from '../../src/client/indexed-cache.js';

const obj = (ns: string, name: string, rv: string, extra: Partial<SvcObject['metadata']> = {}): SvcObject => ({
  kind: 'ConfigMap',
  metadata: { namespace: ns, name, resourceVersion: rv, ...extra },
});

test('objects are found by key and listed by namespace through the namespace index', () => {
  const s = new IndexedStore();
  s.upsert(obj('a', 'x', '1'));
  s.upsert(obj('a', 'y', '2'));
  s.upsert(obj('b', 'x', '3'));
  assert.is(s.size, 3);
  assert.is(s.get('b/x')?.metadata.resourceVersion, '3');
  assert.equal(s.list('a').map((o) => o.metadata.name).sort(), ['x', 'y']);
  assert.equal(s.byIndex('namespace', 'b').length, 1);
  s.remove('a/x');
  assert.equal(s.list('a').map((o) => o.metadata.name), ['y']);
});

test('the owner index finds dependents by their ownerReferences uid and follows changes', () => {
  const s = new IndexedStore();
  const ref = (uid: string) => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid });
  s.upsert(obj('a', 'p1', '1', { ownerReferences: [ref('u1')] }));
  s.upsert(obj('a', 'p2', '2', { ownerReferences: [ref('u1'), ref('u2')] }));
  assert.equal(s.byIndex('owner', 'u1').map((o) => o.metadata.name).sort(), ['p1', 'p2']);
  s.upsert(obj('a', 'p2', '3', { ownerReferences: [ref('u2')] }));
  assert.equal(s.byIndex('owner', 'u1').map((o) => o.metadata.name), ['p1']);
  assert.equal(s.byIndex('owner', 'u2').map((o) => o.metadata.name), ['p2']);
});

test('a custom index added later covers the objects already stored', () => {
  const s = new IndexedStore();
  s.upsert(obj('a', 'x', '1', { labels: { app: 'web' } }));
  s.upsert(obj('a', 'y', '1', { labels: { app: 'db' } }));
  s.addIndex('app', (o) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []));
  s.upsert(obj('b', 'z', '1', { labels: { app: 'web' } }));
  assert.equal(s.byIndex('app', 'web').map((o) => o.metadata.name).sort(), ['x', 'z']);
  assert.throws(() => s.addIndex('app', () => []), /already exists/);
  assert.throws(() => s.byIndex('nope', 'x'), /no index named "nope"/);
});

test('stored objects are deep-frozen', () => {
  const s = new IndexedStore();
  s.upsert({ metadata: { namespace: 'a', name: 'x', labels: { k: 'v' } }, data: { nested: { v: 1 } } });
  const o = s.get('a/x')!;
  assert.ok(Object.isFrozen(o) && Object.isFrozen(o.metadata.labels) && Object.isFrozen((o['data'] as { nested: object }).nested));
  assert.throws(() => {
    'use strict';
    (o.metadata.labels as Record<string, string>)['k'] = 'changed';
  });
});

test('replace yields only the differences: new, changed resourceVersion, gone', () => {
  const s = new IndexedStore();
  s.replace([obj('a', 'keep', '1'), obj('a', 'change', '2'), obj('a', 'gone', '3')]);
  const deltas = s.replace([obj('a', 'keep', '1'), obj('a', 'change', '5'), obj('a', 'new', '6')]);
  assert.equal(
    deltas.map((d) => `${d.type} ${d.object.metadata.name}`),
    ['MODIFIED change', 'ADDED new', 'DELETED gone'],
  );
  const mod = deltas[0] as { oldObject: SvcObject };
  assert.is(mod.oldObject.metadata.resourceVersion, '2');
  assert.equal(s.keys().sort(), ['a/change', 'a/keep', 'a/new']);
});

test('cluster-scoped objects are keyed by name and have no namespace index entry', () => {
  const s = new IndexedStore();
  s.upsert({ metadata: { name: 'node-1', resourceVersion: '1' } });
  assert.ok(s.get('node-1'));
  assert.equal(s.list(''), []);
  assert.is(s.list().length, 1);
});

test.run();
