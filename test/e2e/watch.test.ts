// The spec's Watch rules and event table through the real apiserver.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import { openWatch } from '../helpers/watch.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };

forEachEngine('watch', (test, ctx) => {
  const ns = 'default';
  const base = `/api/v1/namespaces/${ns}/configmaps`;

  test('rule 1: a watch is a 200 chunked JSON stream of every create, update and delete after the version', async () => {
    const { server } = ctx();
    const tag = uniqueName('tag');
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w = await openWatch(server, `${base}?watch=1&resourceVersion=${start}&labelSelector=tag=${tag}`);
    assert.is(w.status, 200);
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name, labels: { tag } } });
    await server.request('PATCH', `${base}/${name}`, { data: { x: '1' } }, MERGE);
    await server.request('DELETE', `${base}/${name}`);
    const evs = await w.waitFor(3);
    assert.equal(evs.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    assert.ok(evs.every((e) => e.object.kind === 'ConfigMap' && e.object.apiVersion === 'v1'));
    w.close();
  });

  test('events arrive in resourceVersion order with no gap and no duplicate under concurrent writes', async () => {
    const { server } = ctx();
    const tag = uniqueName('burst');
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w = await openWatch(server, `${base}?watch=1&resourceVersion=${start}&labelSelector=burst=${tag}`);
    const n = 60;
    await Promise.all(Array.from({ length: n }, (_, i) => server.request('POST', base, { metadata: { name: `${tag}-${i}`, labels: { burst: tag } } })));
    const evs = await w.waitFor(n, 10_000);
    const rvs = evs.map((e) => Number(e.object.metadata.resourceVersion));
    for (let i = 1; i < rvs.length; i++) assert.ok(rvs[i]! > rvs[i - 1]!, `order at ${i}: ${rvs[i - 1]} then ${rvs[i]}`);
    assert.is(new Set(evs.map((e) => e.object.metadata.name)).size, n);
    await new Promise((r) => setTimeout(r, 200));
    assert.is(w.events.length, n, 'no extra events');
    w.close();
  });

  test('rule 2: a client may restart from the last resourceVersion it saw', async () => {
    const { server } = ctx();
    const tag = uniqueName('resume');
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w1 = await openWatch(server, `${base}?watch=1&resourceVersion=${start}&labelSelector=resume=${tag}`);
    await server.request('POST', base, { metadata: { name: `${tag}-a`, labels: { resume: tag } } });
    const [a] = await w1.waitFor(1);
    w1.close();
    await server.request('POST', base, { metadata: { name: `${tag}-b`, labels: { resume: tag } } });
    await server.request('POST', base, { metadata: { name: `${tag}-c`, labels: { resume: tag } } });
    const w2 = await openWatch(server, `${base}?watch=1&resourceVersion=${a!.object.metadata.resourceVersion}&labelSelector=resume=${tag}`);
    const evs = await w2.waitFor(2);
    assert.equal(evs.map((e) => e.object.metadata.name), [`${tag}-b`, `${tag}-c`]);
    w2.close();
  });

  test('rule 4: with allowWatchBookmarks a BOOKMARK carries only metadata.resourceVersion', async () => {
    const { server } = ctx();
    const w = await openWatch(server, `${base}?watch=1&allowWatchBookmarks=true&timeoutSeconds=1&fieldSelector=metadata.name=${uniqueName('none')}`);
    await w.ended;
    const bm = w.events.filter((e) => e.type === 'BOOKMARK');
    assert.ok(bm.length >= 1, JSON.stringify(w.events));
    assert.type(bm[0]!.object.metadata.resourceVersion, 'string');
    assert.equal(Object.keys(bm[0]!.object.metadata), ['resourceVersion']);
  });

  test('no BOOKMARK without allowWatchBookmarks', async () => {
    const { server } = ctx();
    const w = await openWatch(server, `${base}?watch=1&timeoutSeconds=1&fieldSelector=metadata.name=${uniqueName('none')}`);
    await w.ended;
    assert.is(w.events.filter((e) => e.type === 'BOOKMARK').length, 0);
  });

  test('timeoutSeconds ends the stream cleanly', async () => {
    const { server } = ctx();
    const t0 = Date.now();
    const w = await openWatch(server, `${base}?watch=1&timeoutSeconds=1&resourceVersion=0&labelSelector=none=none`);
    await w.ended;
    const took = Date.now() - t0;
    assert.ok(took >= 900 && took < 5000, `took ${took} ms`);
  });

  test('a watch of one object by fieldSelector=metadata.name sees only that object', async () => {
    const { server } = ctx();
    const name = uniqueName('one');
    const other = uniqueName('other');
    await server.request('POST', base, { metadata: { name } });
    const w = await openWatch(server, `${base}?watch=1&fieldSelector=metadata.name%3D${name}`);
    await w.waitFor(1);
    await server.request('POST', base, { metadata: { name: other } });
    await server.request('PATCH', `${base}/${name}`, { data: { k: 'v' } }, MERGE);
    const evs = await w.waitFor(2);
    assert.equal(evs.map((e) => [e.type, e.object.metadata.name]), [['ADDED', name], ['MODIFIED', name]]);
    w.close();
  });

  test('an object moving into a label selection arrives as ADDED, moving out as DELETED', async () => {
    const { server } = ctx();
    const tag = uniqueName('sel');
    const name = uniqueName();
    await server.request('POST', base, { metadata: { name, labels: { sel: 'no' } } });
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w = await openWatch(server, `${base}?watch=1&resourceVersion=${start}&labelSelector=sel=${tag}`);
    await server.request('PATCH', `${base}/${name}`, { metadata: { labels: { sel: tag } } }, MERGE);
    await server.request('PATCH', `${base}/${name}`, { data: { a: 'b' } }, MERGE);
    await server.request('PATCH', `${base}/${name}`, { metadata: { labels: { sel: 'gone' } } }, MERGE);
    const evs = await w.waitFor(3);
    assert.equal(evs.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
    w.close();
  });

  test('a watch in one namespace sees nothing from another', async () => {
    const { server } = ctx();
    const start = (await server.request('GET', base)).json.metadata.resourceVersion;
    const w = await openWatch(server, `/api/v1/namespaces/svc-public/configmaps?watch=1&resourceVersion=${start}`);
    await server.request('POST', base, { metadata: { name: uniqueName() } });
    const mine = uniqueName();
    await server.request('POST', '/api/v1/namespaces/svc-public/configmaps', { metadata: { name: mine } });
    const [e] = await w.waitFor(1);
    assert.is(e!.object.metadata.name, mine);
    w.close();
  });

  test('watching across all namespaces sees every namespace', async () => {
    const { server } = ctx();
    const tag = uniqueName('all');
    const start = (await server.request('GET', '/api/v1/configmaps')).json.metadata.resourceVersion;
    const w = await openWatch(server, `/api/v1/configmaps?watch=1&resourceVersion=${start}&labelSelector=all=${tag}`);
    await server.request('POST', base, { metadata: { name: uniqueName(), labels: { all: tag } } });
    await server.request('POST', '/api/v1/namespaces/svc-public/configmaps', { metadata: { name: uniqueName(), labels: { all: tag } } });
    const evs = await w.waitFor(2);
    assert.equal(evs.map((e) => e.object.metadata.namespace).sort(), ['default', 'svc-public']);
    w.close();
  });
});

forEachEngine(
  'watch history',
  (test, ctx) => {
    test('rule 3: a watch from a version older than the retained history gets a 410 ERROR event', async () => {
      const { server } = ctx();
      const base = '/api/v1/namespaces/default/configmaps';
      const first = await server.request('POST', base, { metadata: { name: uniqueName() } });
      const old = first.json.metadata.resourceVersion;
      for (let i = 0; i < 5; i++) await server.request('POST', base, { metadata: { name: uniqueName() } });
      // Compaction runs every second and keeps one interval of history: wait for two rounds.
      await new Promise((r) => setTimeout(r, 3500));
      await server.request('POST', base, { metadata: { name: uniqueName() } });
      await new Promise((r) => setTimeout(r, 1500));
      const w = await openWatch(server, `${base}?watch=1&resourceVersion=${old}`);
      const [e] = await w.waitFor(1);
      assert.is(e!.type, 'ERROR');
      assert.is(e!.object.kind, 'Status');
      assert.is(e!.object.code, 410);
      assert.is(e!.object.reason, 'Gone');
      await w.ended;
    });

    test('an exact list at a compacted version is 410 Gone', async () => {
      const { server } = ctx();
      const r = await server.request('GET', '/api/v1/namespaces/default/configmaps?limit=10&resourceVersion=2');
      assert.is(r.status, 410, r.text);
    });
  },
  { args: ['--watch-cache=false', '--kvstore-compaction-interval=1s'] },
);
