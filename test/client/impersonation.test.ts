// createClient's `impersonate` option: every request and watch of the client carries the
// established Impersonate-* headers (what `svc nodes --node-identity=impersonate` sends per node),
// a client without it sends none; several groups are separate header lines, which a real server
// over HTTPS reads as separate groups (a line "a, b" would be the one group "a, b").
import { firstValueFrom } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor } from '../helpers/client.js';
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
    assert.equal(req.headers?.['impersonate-group'], ['system:nodes']);
  }
  assert.is(sent[1]!.headers?.['content-type'], 'application/merge-patch+json', "the request's own headers stay");
  const before = sent.length;
  await createClient(transport).get(resources.nodes, '', 'n1');
  assert.is(sent[before]!.headers?.['impersonate-user'], undefined);
});

test('uid, extras and several groups, one value per header line; a user is required', () => {
  assert.equal(impersonationHeaders({ user: 'u', groups: ['a', 'b,c'], uid: '42', extra: { scopes: ['s1', 's2'] } }), {
    'impersonate-user': 'u',
    'impersonate-group': ['a', 'b,c'],
    'impersonate-uid': '42',
    'impersonate-extra-scopes': ['s1', 's2'],
  });
  assert.throws(() => impersonationHeaders({ user: '' }), (e: unknown) => e instanceof ApiError && /needs a user/.test(e.message));
});

let server: ApiServerProcess | undefined;
test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('over HTTPS (Protobuf client, HTTP/2) the server sees each group and extra value as sent', async () => {
  server = await startApiServer();
  const conn = clientFor(server, { impersonate: { user: 'jane', groups: ['a', 'b,c'], extra: { scopes: ['s1', 's2'] } } });
  try {
    const ref = { group: 'authentication.svc.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false };
    const review = (await conn.client.create(ref, '', { apiVersion: 'authentication.svc.io/v1', kind: 'SelfSubjectReview', metadata: {} })) as unknown as {
      status: { userInfo: { username: string; groups: string[]; extra?: Record<string, string[]> } };
    };
    assert.is(review.status.userInfo.username, 'jane');
    assert.equal(review.status.userInfo.groups, ['a', 'b,c', 'system:authenticated']);
    assert.equal(review.status.userInfo.extra, { scopes: ['s1', 's2'] });
  } finally {
    await conn.close();
  }
});

test.run();
