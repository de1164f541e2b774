/**
 * The webhooks' HTTP client and answer cache in unit form, against a real local HTTP server:
 * the established retry rule (retried: 500, 504, 429, Retry-After, a reset connection; not
 * retried: other statuses, a refused connection), and the cache's TTLs, bound and shared loads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnswerCache, RemoteCallError, WebhookClient } from '../../../src/apiserver/auth/webhook-client.js';
import { freePort } from '../../helpers/apiserver.js';

const FAST = { initialMs: 10, factor: 1.5, jitter: 0.2, steps: 5 };
let server: Server;
let calls = 0;
/** The answers the server gives in turn (the last repeats); 'reset' destroys the connection. */
let script: (number | 'reset')[] = [];

test.before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const step = script[Math.min(calls, script.length - 1)]!;
      calls++;
      if (step === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(step, { 'content-type': 'application/json' }).end(JSON.stringify({ answer: step }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
});
test.after(() => new Promise<void>((r) => server.close(() => r())));

const client = (url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/review`) =>
  new WebhookClient({ server: url, tls: { insecureSkipVerify: false }, source: 'test' }, { backoff: FAST });

async function failure(p: Promise<unknown>): Promise<RemoteCallError> {
  return p.then(
    () => assert.unreachable('expected a failure') as never,
    (err: unknown) => {
      assert.instance(err, RemoteCallError);
      return err as RemoteCallError;
    },
  );
}

test('retried: 500, 504, 429 and a reset connection, then the answer', async () => {
  calls = 0;
  script = [500, 504, 429, 'reset', 200];
  assert.equal(await client().post({ q: 1 }), { answer: 200 });
  assert.is(calls, 5);
});

test('five attempts in all, then the last failure', async () => {
  calls = 0;
  script = [500];
  const err = await failure(client().post({}));
  assert.is(calls, 5);
  assert.is(err.status, 500);
});

test('not retried: a 403 or 404, or a refused connection', async () => {
  for (const status of [403, 404]) {
    calls = 0;
    script = [status];
    assert.is((await failure(client().post({}))).status, status);
    assert.is(calls, 1, String(status));
  }
  const started = Date.now();
  const refused = await failure(client(`http://127.0.0.1:${await freePort()}/`).post({}));
  assert.match(refused.message, /ECONNREFUSED/);
  assert.ok(Date.now() - started < 1000, 'no backoff for a refused connection');
});

test('answer cache: TTL, zero TTL not stored, bounded, concurrent loads shared', async () => {
  const c = new AnswerCache<string>(2);
  c.set('a', 'A', 1000, 0);
  assert.is(c.get('a', 999), 'A');
  assert.is(c.get('a', 1000), undefined);
  c.set('z', 'Z', 0);
  assert.is(c.get('z'), undefined);
  c.set('a', 'A', 60_000);
  c.set('b', 'B', 60_000);
  c.set('c', 'C', 60_000);
  assert.is(c.get('a'), undefined, 'the oldest goes first');
  assert.is(c.get('c'), 'C');
  let loads = 0;
  const load = async () => {
    loads++;
    await new Promise((r) => setTimeout(r, 20));
    return 'L';
  };
  assert.equal(await Promise.all([c.getOrLoad('k', load), c.getOrLoad('k', load), c.getOrLoad('k', load)]), ['L', 'L', 'L']);
  assert.is(loads, 1);
});

test.run();
