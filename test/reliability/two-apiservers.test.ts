// Two API servers on one etcd (issue 23): a real etcd and two `apiserver` processes on it (their
// own ports, data and certificate folders, the same --kvstore-servers). Writes go through both and
// informers (src/client reflect) through either see every write made through either, exactly once
// and in order (test/helpers/watch-audit.ts); Services created at once through both get distinct
// ClusterIPs (the allocation bitmap is a compare-and-swap on one etcd key); both servers appear in
// the `kubernetes` Endpoints and neither undoes the other's writes. Then one server is killed with
// SIGKILL: writes and watches through the other carry on, and an informer that watched through
// the killed one, re-opened on the survivor, resumes from its last resourceVersion without a
// re-list and without a gap. (That the killed server leaves the Endpoints once its lease runs out
// is test/e2e/apiserver-endpoints.test.ts.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Subscription } from 'rxjs';
import type { ConfigMap, Service } from '../../src/api/generated/kinds.js';
import { IndexedStore, reflect, resources, type ApiClient, type Connection, type InformerSelector, type SvcObject } from '../../src/client/index.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually } from '../helpers/client.js';
import { type RunningEtcd, startEtcd } from '../helpers/etcd.js';
import { soak } from '../helpers/soak.js';
import { auditWatchers, ChangeLog, CHURN_LABEL, churnConfigMaps, KeyTable, WatchRecorder } from '../helpers/watch-audit.js';

const test = suite('two API servers on one etcd');
const NAMESPACES = ['two-a', 'two-b'];
const cm = resources.configmaps;

let etcd: RunningEtcd | undefined;
let a: ApiServerProcess | undefined;
let b: ApiServerProcess | undefined;
const conns: Connection[] = [];
const subs = new Subscription();

function connected(server: ApiServerProcess): ApiClient {
  const c = clientFor(server);
  conns.push(c);
  return c.client;
}

/** Passes every call to `servers()[0]`'s client: the test moves it to the survivor. */
function failoverClient(current: () => ApiClient): ApiClient {
  const handler: ProxyHandler<ApiClient> = { get: (_t, prop) => (current() as unknown as Record<string | symbol, unknown>)[prop] };
  return new Proxy({} as ApiClient, handler);
}

interface Informer {
  name: string;
  recorder: WatchRecorder;
  store: IndexedStore<ConfigMap>;
  selector: InformerSelector;
}

function informer(name: string, client: ApiClient, keys: KeyTable, namespace: string | undefined): Informer {
  const recorder = new WatchRecorder(client, keys, namespace);
  const store = new IndexedStore<ConfigMap>();
  const selector: InformerSelector = { labelSelector: `${CHURN_LABEL}=yes`, ...(namespace ? { namespace } : {}) };
  subs.add(reflect<ConfigMap>(recorder.client, cm, selector, store, { backoff: { initialMs: 100, maxMs: 2000 } }).subscribe());
  return { name, recorder, store, selector };
}

async function endpointPorts(client: ApiClient): Promise<number[]> {
  const ep = await client.get<SvcObject>(resources.endpoints, 'default', 'kubernetes').catch(() => undefined);
  const subsets = (ep?.['subsets'] as { addresses?: { ip: string }[]; ports?: { port: number }[] }[] | undefined) ?? [];
  return subsets.flatMap((s) => (s.addresses ?? []).map(() => s.ports?.[0]?.port ?? 0)).sort((x, y) => x - y);
}

test.before(async () => {
  etcd = await startEtcd();
  const args = [`--kvstore-servers=${etcd.endpoint}`, '--data-dir-fsync=false'];
  // Both at once: the bootstrap (namespaces, the kubernetes Service, range allocations) races too.
  [a, b] = await Promise.all([startApiServer({ args }), startApiServer({ args })]);
});

test.after(async () => {
  subs.unsubscribe();
  for (const c of conns) await c.close().catch(() => undefined);
  for (const s of [a, b]) {
    await s?.stop('SIGKILL');
    s?.cleanup();
  }
  await etcd?.stop();
});

test('writes through both servers; informers through either see every write once, in order; one server killed, the other carries on', async () => {
  const clientA = connected(a!);
  const clientB = connected(b!);
  for (const ns of NAMESPACES) await clientA.create(resources.namespaces, '', { metadata: { name: ns } });
  await eventually(async () => (await clientB.get(resources.namespaces, '', NAMESPACES[1]!).catch(() => undefined)) !== undefined, 20_000, 'B sees the namespace A created');

  // Both servers publish themselves; count later writes to the Endpoints (a fight keeps rewriting them).
  await eventually(async () => (await endpointPorts(clientB)).join() === [a!.port, b!.port].sort((x, y) => x - y).join(), 40_000, 'both servers in the kubernetes Endpoints');
  let endpointWrites = 0;
  const epWatchFrom = (await clientA.get<SvcObject>(resources.endpoints, 'default', 'kubernetes')).metadata.resourceVersion;
  subs.add(clientB.watch(resources.endpoints, { namespace: 'default', fieldSelector: 'metadata.name=kubernetes', resourceVersion: epWatchFrom }).subscribe({ next: () => endpointWrites++, error: () => undefined }));

  const keys = new KeyTable();
  const log = new ChangeLog(keys);
  let onA = true;
  const survivor = failoverClient(() => (onA ? clientA : clientB));
  const informers = [
    informer('A, all namespaces (fails over to B)', survivor, keys, undefined),
    informer('A, two-a', clientA, keys, 'two-a'),
    informer('B, all namespaces', clientB, keys, undefined),
    informer('B, two-b', clientB, keys, 'two-b'),
  ];
  await eventually(() => informers.every((i) => i.recorder.stats.lists > 0), 30_000, 'every informer listed');

  // Phase 1: lanes alternate between the servers.
  const started = Date.now();
  const phase1 = soak(500, 20_000);
  await churnConfigMaps({ log, lanes: [clientA, clientB, clientA, clientB, clientA, clientB, clientA, clientB], namespaces: NAMESPACES, namesPerLane: 10, changes: phase1, prefix: 'p1-' });

  // Services at once through both: every ClusterIP distinct.
  const perServer = soak(30, 100);
  const created = await Promise.all(
    [clientA, clientB].flatMap((client, s) =>
      Array.from({ length: perServer }, (_, i) =>
        client.create<Service>(resources.services, 'two-a', { metadata: { name: `svc-${s}-${i}` }, spec: { ports: [{ port: 80 }] } }),
      ),
    ),
  );
  const ips = created.map((s) => s.spec?.clusterIP ?? '');
  assert.is(new Set(ips).size, ips.length, `distinct ClusterIPs: ${ips.length} Services, ${new Set(ips).size} addresses`);
  assert.ok(ips.every((ip) => /^10\.0\.0\.\d+$/.test(ip)), 'every Service got an address of the range');

  // Phase 2: A's writers stop, A is killed; B's writers go on before, during and after.
  const phase2 = soak(600, 30_000);
  let stopA = false;
  const writing = churnConfigMaps({
    log,
    lanes: [clientA, clientB, clientA, clientB],
    namespaces: NAMESPACES,
    namesPerLane: 10,
    changes: phase2,
    prefix: 'p2-',
    stopLane: (l) => l % 2 === 0 && stopA,
  });
  await new Promise((r) => setTimeout(r, 1000));
  stopA = true;
  await new Promise((r) => setTimeout(r, 200)); // A's lanes finish the change they were making
  onA = false; // the informer's next watch goes to B
  // Counted while both ran: the kill's own removal (once A's lease runs out) is not a fight.
  const endpointWritesWhileBoth = endpointWrites;
  a!.proc.kill('SIGKILL');
  await a!.stop();
  await writing;

  // After the kill: more Services through B, still distinct from the first ones.
  const after = await Promise.all(Array.from({ length: 10 }, (_, i) => clientB.create<Service>(resources.services, 'two-b', { metadata: { name: `after-${i}` }, spec: { ports: [{ port: 80 }] } })));
  const allIps = [...ips, ...after.map((s) => s.spec?.clusterIP ?? '')];
  assert.is(new Set(allIps).size, allIps.length, 'ClusterIPs after the kill are distinct from the earlier ones');

  // A last change per namespace through B; the informers still on the dead A are done when they fail.
  const markers: Record<string, number> = {};
  for (const ns of NAMESPACES) {
    const out = await clientB.create(cm, ns, { metadata: { name: 'marker', namespace: ns, labels: { [CHURN_LABEL]: 'yes' } } });
    log.created(ns, 'marker', out.metadata.resourceVersion!);
    markers[ns] = Number(out.metadata.resourceVersion);
  }
  const alive = informers.filter((i) => i.name !== 'A, two-a');
  const target = (i: Informer) => (i.recorder.namespace ? markers[i.recorder.namespace]! : Math.max(...Object.values(markers)));
  await eventually(() => alive.every((i) => i.recorder.maxSeen >= target(i)), 60_000, 'the informers on B (and the one failed over) caught up');
  subs.unsubscribe();

  const audit = auditWatchers(log, informers.map((i) => i.recorder));
  for (const i of alive) {
    const fresh = await clientB.list<ConfigMap>(cm, { ...i.selector });
    const want = fresh.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    const got = i.store.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    assert.equal(got, want, `${i.name}: its cache equals a fresh list`);
  }
  const failedOver = informers[0]!.recorder.stats;
  const figures = {
    changes: log.count,
    informers: informers.length,
    gaps: audit.gaps,
    duplicates: audit.duplicates,
    failedOverLists: failedOver.lists,
    failedOverWatches: failedOver.watches,
    endpointWrites: endpointWritesWhileBoth,
  };
  console.log(`[figure] two-apiservers: changes ${log.count} through both (${phase1} before the kill, ${phase2} around it), informers ${informers.length}, gaps ${audit.gaps}, duplicates ${audit.duplicates}, time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`[figure] two-apiservers: Services created at once through both ${created.length} (+${after.length} after the kill), distinct ClusterIPs ${new Set(allIps).size}`);
  console.log(`[figure] two-apiservers: informer failed over from the killed server: lists ${failedOver.lists} (1 = no re-list), watches ${failedOver.watches}, 410s ${failedOver.gone}; kubernetes Endpoints writes while both ran ${endpointWritesWhileBoth} (${endpointWrites} to the end)`);
  assert.is(audit.gaps, 0, `gaps:\n${audit.problems.join('\n')}`);
  assert.is(audit.duplicates, 0, `duplicates:\n${audit.problems.join('\n')}`);
  assert.is(audit.misplacedDeletes, 0, audit.problems.join('\n'));
  assert.is(failedOver.lists, 1, `the failed-over informer resumed without a re-list: ${JSON.stringify(figures)}`);
  assert.is(failedOver.gone, 0, 'no 410 on the survivor');
  assert.ok(endpointWritesWhileBoth <= 2, `the two servers do not rewrite each other's Endpoints (${endpointWritesWhileBoth} writes while both ran)`);
});

test.run();
