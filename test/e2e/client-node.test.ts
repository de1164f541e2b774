// The official JavaScript client (@kubernetes/client-node 1.4.0; 2.x needs Node 22) drives `svc up`
// unmodified: CRUD of a ConfigMap, server-side apply, and an informer that sees every change across
// a server-side 410. The 410 is forced: the server keeps a short history (HISTORY_FLAGS), and the
// informer reaches it through a TCP proxy that stops reading from the server while 120 changes
// (24 MB) are made; the stalled watch ends on the server, the store compacts past it, and once the
// proxy reads again the informer gets the events the connection held, re-watches from the last of
// them, is told 410 in an ERROR event, re-lists, and its cache and events account for every change.
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as k8s from '@kubernetes/client-node';
import { resources, type Connection } from '../../src/client/index.js';
import { eventually } from '../helpers/client.js';
import { type SvcUp, startSvcUp } from '../helpers/svc-up.js';

const NS = 'from-node';
/**
 * A short change history: no watch cache (watches read the store), the store compacted every
 * second, and watches that end after 2 to 4 s (so the informer's stalled one ends while stalled).
 */
const HISTORY_FLAGS = ['--watch-cache=false', '--kvstore-compaction-interval=1s', '--min-request-timeout=2'];
/** Changes made while the informer's watch is stalled. */
const GAP = 120;
let up: SvcUp;
let api: Connection;
let kc: k8s.KubeConfig;
let proxy: StallingProxy;

/** A TCP proxy whose open connections can stop reading from the server (the client sees nothing new; the server's writes back up). */
class StallingProxy {
  private readonly server: Server;
  private readonly upstreams = new Set<{ up: Socket; down: Socket }>();
  port = 0;
  constructor(private readonly target: number) {
    this.server = createServer((down) => {
      const up = tcpConnect(this.target, '127.0.0.1');
      const pair = { up, down };
      this.upstreams.add(pair);
      down.pipe(up);
      up.pipe(down);
      const close = () => {
        this.upstreams.delete(pair);
        up.destroy();
        down.destroy();
      };
      up.on('error', close).on('close', close);
      down.on('error', close).on('close', close);
    });
  }
  async listen(): Promise<void> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }
  stall(): void {
    for (const { up, down } of this.upstreams) {
      up.unpipe(down);
      up.pause();
    }
  }
  resume(): void {
    for (const { up, down } of this.upstreams) up.pipe(down);
  }
  close(): void {
    for (const { up, down } of this.upstreams) {
      up.destroy();
      down.destroy();
    }
    this.server.close();
  }
}

test.before(async () => {
  up = await startSvcUp('client-node', ['--nodes=1', ...HISTORY_FLAGS]);
  api = up.api;
  proxy = new StallingProxy(up.port);
  await proxy.listen();
  // The same client configuration, pointed at the proxy (the server certificate names 127.0.0.1 whatever the port).
  const proxied = join(up.dir, 'proxied.svcconfig');
  writeFileSync(proxied, readFileSync(up.kubeconfig, 'utf8').replace(`127.0.0.1:${up.port}`, `127.0.0.1:${proxy.port}`));
  kc = new k8s.KubeConfig();
  kc.loadFromFile(proxied);
  await api.client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});

test.after(async () => {
  proxy?.close();
  await up?.stop();
});

test('CRUD of a ConfigMap', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const created = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'crud' }, data: { a: '1' } } });
  assert.is(created.metadata?.name, 'crud');
  const read = await core.readNamespacedConfigMap({ name: 'crud', namespace: NS });
  assert.equal(read.data, { a: '1' });
  read.data = { a: '2' };
  const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace: NS, body: read });
  assert.equal(replaced.data, { a: '2' });
  const list = await core.listNamespacedConfigMap({ namespace: NS });
  assert.ok(list.items.some((c) => c.metadata?.name === 'crud'));
  await core.deleteNamespacedConfigMap({ name: 'crud', namespace: NS });
  const gone = await core.readNamespacedConfigMap({ name: 'crud', namespace: NS }).then(
    () => 200,
    (err: unknown) => (err as { code?: number }).code,
  );
  assert.is(gone, 404);
});

test('server-side apply', async () => {
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  const spec = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: NS }, data: { owner: 'node' } };
  const applied = await objects.patch(spec, undefined, undefined, 'client-node', true, k8s.PatchStrategy.ServerSideApply);
  assert.equal((applied as { data?: unknown }).data, { owner: 'node' });
  const stored = await api.client.get(resources.configmaps, NS, 'applied');
  assert.ok(stored.metadata.managedFields?.some((m) => m.manager === 'client-node' && m.operation === 'Apply'));
});

test('an informer sees every change across a server-side 410', async () => {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let lists = 0;
  const informer = k8s.makeInformer(kc, `/api/v1/namespaces/${NS}/configmaps`, () => {
    lists++;
    return core.listNamespacedConfigMap({ namespace: NS });
  });
  const added = new Set<string>();
  const deleted = new Set<string>();
  const errors: unknown[] = [];
  informer.on('add', (o) => added.add(o.metadata?.name ?? ''));
  informer.on('update', (o) => added.add(o.metadata?.name ?? ''));
  informer.on('delete', (o) => deleted.add(o.metadata?.name ?? ''));
  informer.on('error', (e) => errors.push(e));
  await informer.start();
  try {
    await api.client.create(resources.configmaps, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
    await eventually(async () => added.has('before'), 10_000, 'the informer sees a change while connected');

    proxy.stall();
    // Far more bytes than the stalled connection's socket buffers hold (so the server's writes back
    // up and it ends the watch), and far more changes than the window of 20.
    const big = 'x'.repeat(200_000);
    for (let i = 0; i < GAP; i++) await api.client.create(resources.configmaps, NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `gap-${i}` }, data: { big } });
    await api.client.delete(resources.configmaps, NS, 'before');
    // The stalled watch has ended on the server by now and the store has compacted past it.
    await new Promise((r) => setTimeout(r, 5_000));
    proxy.resume();

    await eventually(async () => deleted.has('before') && [...Array(GAP).keys()].every((i) => added.has(`gap-${i}`)), 60_000, `the informer caught up (added ${added.size}, deleted ${[...deleted].join(',')})`);
    const cached = new Set(informer.list().map((o) => o.metadata?.name));
    const server = (await api.client.list(resources.configmaps, { namespace: NS })).items.map((o) => o.metadata.name);
    assert.equal(new Set(server), cached, 'the informer cache is the server state');
    assert.ok(lists >= 2, `the informer re-listed after the 410 (lists: ${lists})`);
  } finally {
    await informer.stop();
  }
});

test.run();
