// The spec's "Lists in chunks" rules: limit/continue, one snapshot, continue on every list,
// remainingItemCount, and token expiry (410).
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

forEachEngine('chunked lists', (test, ctx) => {
  const ns = uniqueName('chunks');
  const base = `/api/v1/namespaces/${ns}/configmaps`;
  const total = 23;

  test('setup: a namespace with 23 objects', async () => {
    const { server } = ctx();
    assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
    for (let i = 0; i < total; i++) {
      const r = await server.request('POST', base, { metadata: { name: `item-${String(i).padStart(2, '0')}`, labels: { parity: i % 2 ? 'odd' : 'even' } } });
      assert.is(r.status, 201, r.text);
    }
  });

  test('rule 1: limit=N returns at most N items and a continue value while more remain', async () => {
    const r = await ctx().server.request('GET', `${base}?limit=5`);
    assert.is(r.json.items.length, 5);
    assert.ok(r.json.metadata.continue.length > 0);
  });

  test('rule 2: repeating with the token walks every item once; the last chunk has continue ""', async () => {
    const seen: string[] = [];
    let token = '';
    let chunks = 0;
    do {
      const r = await ctx().server.request('GET', `${base}?limit=5${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      assert.is(r.status, 200, r.text);
      seen.push(...r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      token = r.json.metadata.continue;
      assert.type(token, 'string');
      chunks++;
    } while (token);
    assert.is(chunks, 5);
    assert.is(seen.length, total);
    assert.is(new Set(seen).size, total);
  });

  test('rule 3: every chunk carries the same resourceVersion and later changes stay invisible', async () => {
    const { server } = ctx();
    const first = await server.request('GET', `${base}?limit=10`);
    await server.request('DELETE', `${base}/item-20`);
    await server.request('POST', base, { metadata: { name: 'item-99' } });
    await server.request('PATCH', `${base}/item-15`, { data: { changed: 'yes' } }, { 'content-type': 'application/merge-patch+json' });
    const items = [...first.json.items];
    let token = first.json.metadata.continue;
    while (token) {
      const r = await server.request('GET', `${base}?limit=10&continue=${encodeURIComponent(token)}`);
      assert.is(r.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
      items.push(...r.json.items);
      token = r.json.metadata.continue;
    }
    const byName = new Map(items.map((i: { metadata: { name: string } }) => [i.metadata.name, i]));
    assert.is(items.length, total);
    assert.ok(byName.has('item-20'), 'deleted item still in the snapshot');
    assert.not.ok(byName.has('item-99'), 'new item not in the snapshot');
    assert.is((byName.get('item-15') as { data?: unknown }).data, undefined);
    // A fresh list sees the changes.
    const fresh = await server.request('GET', base);
    const freshNames = fresh.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.ok(freshNames.includes('item-99'));
    assert.not.ok(freshNames.includes('item-20'));
  });

  test('continue is present on every list, empty without more chunks', async () => {
    const r = await ctx().server.request('GET', base);
    assert.is(r.json.metadata.continue, '');
    const all = await ctx().server.request('GET', `${base}?limit=1000`);
    assert.is(all.json.metadata.continue, '');
  });

  test('remainingItemCount tells how many items are left (no selector)', async () => {
    const r = await ctx().server.request('GET', `${base}?limit=5`);
    assert.is(r.json.metadata.remainingItemCount, r.json.items.length === 5 ? total - 5 : undefined);
    const filtered = await ctx().server.request('GET', `${base}?limit=3&labelSelector=parity=odd`);
    assert.is(filtered.json.metadata.remainingItemCount, undefined);
    assert.is(filtered.json.items.length, 3);
    assert.ok(filtered.json.items.every((i: { metadata: { labels: Record<string, string> } }) => i.metadata.labels.parity === 'odd'));
  });

  test('chunks with a selector hold only matches and together give every match', async () => {
    const seen: string[] = [];
    let token = '';
    do {
      const r = await ctx().server.request('GET', `${base}?limit=4&labelSelector=parity%3Deven${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
      seen.push(...r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      token = r.json.metadata.continue;
    } while (token);
    const all = await ctx().server.request('GET', `${base}?labelSelector=parity%3Deven`);
    assert.equal(seen, all.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
  });

  test('rule 4: an expired continue token is 410 with a message that says to restart the list', async () => {
    const r = await ctx().server.request('GET', `${base}?limit=5`);
    const token = JSON.parse(Buffer.from(r.json.metadata.continue, 'base64url').toString());
    token.t = Date.now() - 6 * 60 * 1000;
    const old = Buffer.from(JSON.stringify(token)).toString('base64url');
    const e = await ctx().server.request('GET', `${base}?limit=5&continue=${old}`);
    assert.is(e.status, 410, e.text);
    assert.is(e.json.reason, 'Expired');
    assert.match(e.json.message, /start a new list/);
  });

  test('a malformed continue token is 400', async () => {
    const e = await ctx().server.request('GET', `${base}?limit=5&continue=not-a-token`);
    assert.is(e.status, 400, e.text);
  });
});
