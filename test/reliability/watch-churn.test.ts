// Watch under churn (issue 23): informers built on src/client (reflect: list, watch, resume from
// the last resourceVersion, re-list on 410) follow ConfigMaps that a writer creates, updates and
// deletes across a few namespaces, while the test breaks their connections at random (a TCP
// proxy per watcher resets every connection through it; some cuts also keep the watcher offline
// past the server's history, which is 1-2 s here: `--kvstore-compaction-interval=1s`, so resuming
// from an old version gets 410 and the reflector re-lists). Every change the writer made is
// recorded with its resourceVersion; each watcher must have seen every change after each of its
// lists exactly once, in order (test/helpers/watch-audit.ts), and end with a cache equal to a
// fresh list. Bounded: 20 watchers x 5,000 changes; SOAK=1: 100 x 100,000.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConfigMap } from '../../src/api/generated/kinds.js';
import { reflect, IndexedStore, resources, type Connection, type InformerSelector } from '../../src/client/index.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { clientFor, eventually, writeSvcconfig } from '../helpers/client.js';
import { startCutProxy, type CutProxy } from '../helpers/cut-proxy.js';
import { type RunningEtcd, startEtcd } from '../helpers/etcd.js';
import { connect } from '../../src/client/connect.js';
import { soak } from '../helpers/soak.js';
import { auditWatchers, ChangeLog, CHURN_LABEL as LABEL, churnConfigMaps, KeyTable, WatchRecorder } from '../helpers/watch-audit.js';

const test = suite('watch under churn: no gap, no duplicate, caches equal a fresh list');
const cm = resources.configmaps;
const NAMESPACES = ['churn-a', 'churn-b', 'churn-c'];

interface Scale {
  watchers: number;
  changes: number;
  /** Writers working at once (each owns its own names). */
  lanes: number;
  namesPerLane: number;
  /** A connection cut every this many ms (one watcher at random). */
  cutEveryMs: number;
}

interface Watcher {
  index: number;
  selector: InformerSelector;
  proxy: CutProxy;
  conn: Connection;
  recorder: WatchRecorder;
  store: IndexedStore<ConfigMap>;
  /** Per key, the resourceVersion of the last event the informer emitted (monotonic check). */
  lastEmitted: Map<string, number>;
  regressions: string[];
  stop(): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One run: `server` is fresh; returns the figures (and asserts). */
async function churn(server: ApiServerProcess, scale: Scale, label: string, expect: { expectGone: boolean }): Promise<void> {
  const started = Date.now();
  const direct = clientFor(server);
  const { client } = direct;
  for (const ns of NAMESPACES) await client.create(resources.namespaces, '', { metadata: { name: ns } });
  const keys = new KeyTable();
  const log = new ChangeLog(keys);
  const watchers: Watcher[] = [];
  const compactionMs = 1000;
  try {
    // Watchers: most follow one namespace, every fourth all of them (label-selected).
    for (let i = 0; i < scale.watchers; i++) {
      const proxy = await startCutProxy(server.port);
      const ns = i % 4 === 3 ? undefined : NAMESPACES[i % 3]!;
      const selector: InformerSelector = { labelSelector: `${LABEL}=yes`, ...(ns ? { namespace: ns } : {}) };
      // Through the proxy, verifying the real server's certificate.
      const conn = connect({ svcconfig: writeSvcconfig(server, { serverUrl: `https://127.0.0.1:${proxy.port}`, name: `watcher-${i}.yaml` }), qps: 0 });
      const recorder = new WatchRecorder(conn.client, keys, ns);
      const store = new IndexedStore<ConfigMap>();
      const w: Watcher = { index: i, selector, proxy, conn, recorder, store, lastEmitted: new Map(), regressions: [], stop: () => undefined };
      const sub = reflect<ConfigMap>(recorder.client, cm, selector, store, { backoff: { initialMs: 100, maxMs: 2000 } }).subscribe((ev) => {
        if (ev.type === 'SYNCED') return;
        const m = ev.object.metadata;
        const key = `${m.namespace}/${m.name}`;
        const rv = Number(m.resourceVersion);
        const last = w.lastEmitted.get(key) ?? 0;
        // A re-list's DELETED carries the object as last seen (same version); anything else moves forward.
        if (ev.type === 'DELETED' ? rv < last : rv <= last) w.regressions.push(`${ev.type} ${key} at ${rv} after ${last}`);
        w.lastEmitted.set(key, rv);
      });
      w.stop = () => sub.unsubscribe();
      watchers.push(w);
    }
    await eventually(() => watchers.every((w) => w.recorder.stats.lists > 0), 60_000, 'every watcher listed');

    // Chaos: a cut every cutEveryMs of a watcher at random; every sixth cut (the third, the ninth,
    // ...) keeps the watcher offline 2.5 compaction intervals instead. Counted, not drawn: a run
    // whose writer is quick must still contain outages.
    const outageMs = 2.5 * compactionMs;
    let writing = true;
    let cutsMade = 0;
    let outages = 0;
    let secondOutageEnds = 0;
    const chaos = (async () => {
      while (writing) {
        await sleep(scale.cutEveryMs);
        const w = watchers[Math.floor(Math.random() * watchers.length)]!;
        if (++cutsMade % 6 === 3) {
          if (++outages === 2) secondOutageEnds = Date.now() + outageMs;
          w.proxy.outage(outageMs);
        } else w.proxy.cut();
      }
    })();

    // The writer: lanes of names, each name changed by one lane only, so each key's log is in order.
    const writeStarted = Date.now();
    const lanes = Array.from({ length: scale.lanes }, () => client);
    let changes = await churnConfigMaps({ log, lanes, namespaces: NAMESPACES, namesPerLane: scale.namesPerLane, changes: scale.changes, prefix: '' });
    // Where 410s are the point, history must move on while a watcher is away: keep writing (fresh
    // names per round) until two outages happened and the second has ended with writes after it.
    // In every case, keep writing until the run has cut as many connections as it has watchers: a
    // fast machine writes the planned changes before the chaos has made them.
    const cutsSoFar = () => watchers.reduce((a, w) => a + w.proxy.cuts, 0);
    const moreWanted = () => cutsSoFar() < scale.watchers || (expect.expectGone && (outages < 2 || Date.now() < secondOutageEnds + compactionMs));
    for (let round = 1; moreWanted() && Date.now() - writeStarted < 60_000; round++) {
      changes += await churnConfigMaps({ log, lanes, namespaces: NAMESPACES, namesPerLane: 3, changes: 50, prefix: `r${round}-` });
    }
    const writeMs = Date.now() - writeStarted;
    writing = false;
    await chaos;

    // A last change per namespace with a known version: each watcher is done once it saw its own.
    const markers: Record<string, number> = {};
    for (const ns of NAMESPACES) {
      const out = await client.create(cm, ns, { metadata: { name: 'marker', namespace: ns, labels: { [LABEL]: 'yes' } } });
      log.created(ns, 'marker', out.metadata.resourceVersion!);
      markers[ns] = Number(out.metadata.resourceVersion);
    }
    const target = (w: Watcher) => (w.recorder.namespace ? markers[w.recorder.namespace]! : Math.max(...Object.values(markers)));
    await eventually(() => watchers.every((w) => w.recorder.maxSeen >= target(w)), soak(60_000, 600_000), 'every watcher caught up with the last change');

    // Caches equal to a fresh list (the same selection).
    let unequal = 0;
    const diffs: string[] = [];
    for (const w of watchers) {
      const fresh = await client.list<ConfigMap>(cm, { ...w.selector });
      const want = new Map(fresh.items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
      const got = new Map(w.store.list().map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]));
      const same = want.size === got.size && [...want].every(([k, v]) => got.get(k) === v);
      if (!same) {
        unequal++;
        diffs.push(`watcher ${w.index}: cache ${got.size} objects, list ${want.size}; first difference ${[...want].find(([k, v]) => got.get(k) !== v)?.[0] ?? [...got].find(([k]) => !want.has(k))?.[0]}`);
      }
    }
    for (const w of watchers) w.stop();

    const audit = auditWatchers(log, watchers.map((w) => w.recorder));
    const sum = (f: (w: Watcher) => number) => watchers.reduce((a, w) => a + f(w), 0);
    const disconnects = sum((w) => w.proxy.cuts);
    const gone = sum((w) => w.recorder.stats.gone);
    const relists = sum((w) => w.recorder.stats.lists - 1);
    const regressions = watchers.flatMap((w) => w.regressions.map((r) => `watcher ${w.index}: ${r}`));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`[figure] watch-churn ${label}: changes ${log.count}, watchers ${watchers.length}, writes/s ${Math.round((changes / writeMs) * 1000)}`);
    console.log(`[figure] watch-churn ${label}: disconnects forced ${disconnects} (${outages} outages of ${outageMs} ms), 410s seen ${gone}, re-lists ${relists}, watches opened ${sum((w) => w.recorder.stats.watches)}, events received ${sum((w) => w.recorder.stats.events)}`);
    console.log(`[figure] watch-churn ${label}: gaps ${audit.gaps}, duplicates ${audit.duplicates}, misplaced deletes ${audit.misplacedDeletes}, deletes no watcher saw ${audit.unplacedDeletes}, informer regressions ${regressions.length}, caches unequal to a fresh list ${unequal}, time ${seconds} s`);
    assert.is(audit.gaps, 0, `gaps:\n${audit.problems.join('\n')}`);
    assert.is(audit.duplicates, 0, `duplicates:\n${audit.problems.join('\n')}`);
    assert.is(audit.misplacedDeletes, 0, audit.problems.join('\n'));
    assert.equal(regressions.slice(0, 10), [], 'informer events per object move forward');
    assert.equal(diffs, [], 'every cache equals a fresh list');
    // The run exercised what it claims to.
    assert.ok(disconnects >= scale.watchers, `connections were cut (${disconnects})`);
    if (expect.expectGone) {
      assert.ok(gone > 0, 'some resumes got 410 Gone');
      assert.ok(relists > 0, 'some watchers re-listed');
    }
  } finally {
    for (const w of watchers) {
      w.stop();
      await w.proxy.close();
      await w.conn.close();
    }
    await direct.close();
  }
}

// The writes' durability is not what is tested here: without an fsync per commit the writer goes faster.
const FAST_WRITES = ['--data-dir-fsync=false'];
// Compaction every second keeps one to two seconds of the store's history.
const SHORT_HISTORY = ['--kvstore-compaction-interval=1s'];
// ConfigMaps watched from the store itself rather than from the watch cache, whose history keeps
// the last 75 s of changes (up to 8 MiB of them beyond its size; a resume from further back is
// served by the store and rejoins the cache), so a resume from the cache never gets 410 here.
const NO_CACHE = ['--watch-cache-sizes=configmaps#0'];

test('embedded store, watch cache: watchers through random disconnects resume from the cache and see every change once', async () => {
  const server = await startApiServer({ args: [...FAST_WRITES, ...SHORT_HISTORY] });
  try {
    await churn(server, soak<Scale>({ watchers: 20, changes: 800, lanes: 16, namesPerLane: 12, cutEveryMs: 100 }, { watchers: 100, changes: 100_000, lanes: 16, namesPerLane: 40, cutEveryMs: 20 }), 'embedded, watch cache', { expectGone: false });
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('embedded store, watches from the store: 410 Gone after an outage past the history, re-list, and still every change once', async () => {
  const server = await startApiServer({ args: [...FAST_WRITES, ...SHORT_HISTORY, ...NO_CACHE] });
  try {
    await churn(server, soak<Scale>({ watchers: 10, changes: 500, lanes: 16, namesPerLane: 12, cutEveryMs: 200 }, { watchers: 100, changes: 100_000, lanes: 16, namesPerLane: 40, cutEveryMs: 20 }), 'embedded, store watches', { expectGone: true });
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test('etcd: the same with etcd as the store (its compaction makes the 410s)', async () => {
  let etcd: RunningEtcd | undefined;
  let server: ApiServerProcess | undefined;
  try {
    etcd = await startEtcd();
    server = await startApiServer({ args: [...SHORT_HISTORY, ...NO_CACHE, `--kvstore-servers=${etcd.endpoint}`] });
    await churn(server, soak<Scale>({ watchers: 10, changes: 500, lanes: 16, namesPerLane: 12, cutEveryMs: 200 }, { watchers: 50, changes: 30_000, lanes: 16, namesPerLane: 40, cutEveryMs: 20 }), 'etcd, store watches', { expectGone: true });
  } finally {
    await server?.stop();
    server?.cleanup();
    await etcd?.stop();
  }
});

test.run();
