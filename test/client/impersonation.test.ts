// createClient's `impersonate` option: every request and watch of the client carries the
// established Impersonate-* headers (what `svc nodes --node-identity=impersonate` sends per node),
// a client without it sends none, and values the headers cannot carry are refused up front.
import { firstValueFrom } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError, createClient, impersonationHeaders, resources, type Transport, type TransportRequest } from '../../src/client/index.js';

/** A transport that answers every call and keeps what it was sent. */
function recording(): { transport: Transport; sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  const transport: Transport = {
    request: async (req) => {
      sent.push(req);
      return { status: 200, headers: {}, body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } } };
    },
    stream: async (req) => {
      sent.push(req);
      async function* events() {
        yield { type: 'ADDED', object: { metadata: { name: 'n1' } } };
      }
      return { status: 200, headers: {}, events: events(), close: () => {} };
    },
  };
  return { transport, sent };
}

test('every request and watch of an impersonating client carries the headers; other clients none', async () => {
  const { transport, sent } = recording();
  const node = createClient(transport, { impersonate: { user: 'system:node:n1', groups: ['system:nodes'] } });
  await node.get(resources.nodes, '', 'n1');
  await node.patch(resources.nodes, '', 'n1', 'merge', { status: {} }, { subresource: 'status' });
  await firstValueFrom(node.watch(resources.nodes, {}));
  for (const req of sent) {
    assert.is(req.headers?.['impersonate-user'], 'system:node:n1', `${req.method} ${req.path}`);
    assert.is(req.headers?.['impersonate-group'], 'system:nodes');
  }
  assert.is(sent[1]!.headers?.['content-type'], 'application/merge-patch+json', "the request's own headers stay");
  const before = sent.length;
  await createClient(transport).get(resources.nodes, '', 'n1');
  assert.is(sent[before]!.headers?.['impersonate-user'], undefined);
});

test('uid, extras and several groups; a value with a comma is refused', () => {
  assert.equal(impersonationHeaders({ user: 'u', groups: ['a', 'b'], uid: '42', extra: { scopes: ['s1', 's2'] } }), {
    'impersonate-user': 'u',
    'impersonate-group': 'a, b',
    'impersonate-uid': '42',
    'impersonate-extra-scopes': 's1, s2',
  });
  assert.throws(() => impersonationHeaders({ user: 'u', groups: ['a,b'] }), (e: unknown) => e instanceof ApiError && /contains a comma/.test(e.message));
  assert.throws(() => impersonationHeaders({ user: '' }), /needs a user/);
});

test.run();
