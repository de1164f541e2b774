import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { createProfilingHandler } from '../../src/cli/profiling.js';

async function serve(): Promise<{ server: Server; base: string }> {
  const handler = createProfilingHandler();
  const server = createServer((req, res) => {
    handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(418);
        res.end('not mine');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

test('paths outside /debug/pprof are left to the caller', async () => {
  const { server, base } = await serve();
  try {
    assert.is((await fetch(`${base}/healthz`)).status, 418);
    assert.is((await fetch(`${base}/debug/pprofx`)).status, 418);
  } finally {
    server.close();
  }
});

test('/debug/pprof/ serves an index linking the profiles', async () => {
  const { server, base } = await serve();
  try {
    const r = await fetch(`${base}/debug/pprof/`);
    assert.is(r.status, 200);
    const body = await r.text();
    assert.match(body, /profile\?seconds=/);
    assert.match(body, /heap/);
  } finally {
    server.close();
  }
});

test('/debug/pprof/profile?seconds=1 returns a .cpuprofile JSON with nodes', async () => {
  const { server, base } = await serve();
  try {
    const started = Date.now();
    const r = await fetch(`${base}/debug/pprof/profile?seconds=1`);
    assert.is(r.status, 200);
    const profile = (await r.json()) as { nodes: { callFrame: { functionName: string } }[]; samples: number[]; startTime: number; endTime: number };
    assert.ok(Date.now() - started >= 900, 'the profile lasts about the requested time');
    assert.ok(Array.isArray(profile.nodes) && profile.nodes.length > 0);
    assert.ok(profile.nodes.some((n) => n.callFrame.functionName === '(root)'));
    assert.ok(profile.endTime > profile.startTime);
  } finally {
    server.close();
  }
});

test('a bad seconds value is rejected with 400', async () => {
  const { server, base } = await serve();
  try {
    assert.is((await fetch(`${base}/debug/pprof/profile?seconds=abc`)).status, 400);
    assert.is((await fetch(`${base}/debug/pprof/profile?seconds=0`)).status, 400);
    assert.is((await fetch(`${base}/debug/pprof/nothing`)).status, 404);
  } finally {
    server.close();
  }
});

test('/debug/pprof/heap streams a heap snapshot JSON', async () => {
  const { server, base } = await serve();
  try {
    const r = await fetch(`${base}/debug/pprof/heap`);
    assert.is(r.status, 200);
    const snapshot = (await r.json()) as { snapshot: { meta: object; node_count: number }; nodes: number[] };
    assert.ok(snapshot.snapshot.meta);
    assert.ok(snapshot.snapshot.node_count > 0);
    assert.ok(snapshot.nodes.length > 0);
  } finally {
    server.close();
  }
});

test.run();
