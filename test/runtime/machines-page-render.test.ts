// The machines page's rendering, without a browser: the summary (controllers with queue, back-off
// apart from planned requeues, errors, objects by lifecycle state; nodes by condition; leader
// elections), the static first render (summary, index, folded cards, workers inside their
// controller, finished actors marked), a controller's lifecycle objects table from fabricated
// facts (the shape ControllerActivityFacts.lifecycle has), and escaping of everything the cluster
// controls. The page's script is also compiled, so a syntax slip fails here rather than in a browser.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { debugMachinesPage } from '../../src/runtime/inspection/debug-machines-page.js';
import type { MachinesSnapshot } from '../../src/runtime/inspection/machine-inspector.js';
import {
  countsText, humanMs, nodeCondition, ownChartLit, renderCard, renderLifecycle, renderSide, renderSummary, statePrefixes, type LifecycleFactsView, type PageActor,
} from '../../src/runtime/inspection/machines-page-render.js';

const EVIL = '<img src=x onerror="alert(1)">';

function actor(sessionId: string, over: Partial<PageActor>): PageActor {
  return { sessionId, id: sessionId, children: [], kind: 'machine', status: 'active', activePaths: [], context: {}, transitions: [], startedAt: '2026-01-01T00:00:00.000Z', ...over };
}

const lifecycle: LifecycleFactsView = {
  chart: 'lifecycle/deployment',
  counts: { 'progressing.surging': 1, complete: 2 },
  objects: [
    { key: 'default/web', state: 'progressing.surging', since: '2026-01-01T00:00:00.000Z', forMs: 4_200, holds: 'waiting: 2 of 5 new pods available, maxUnavailable 1',
      transitions: [{ from: 'observing', to: 'progressing.surging', at: '2026-01-01T00:00:00.000Z' }] },
    { key: `default/${EVIL}`, state: 'complete', since: '2026-01-01T00:00:00.000Z', forMs: 90_000, transitions: [] },
  ],
};

function queue(over: Record<string, unknown> = {}) {
  return { depth: 0, inFlight: 0, delayed: 0, backingOff: 0, scheduled: 0, shuttingDown: false, waiting: [], working: [], ...over };
}

const outcomes = (o: Record<string, number> = {}) => ({ done: 0, requeue: 0, requeueAfter: 0, failed: 0, terminal: 0, ...o });

const actors: PageActor[] = [
  actor('x:0', { id: 'deployment', machineId: 'controller', state: 'running.waitingForResync', children: ['x:2', 'x:3'],
    live: { controller: 'deployment', chart: 'controller/deployment', queue: queue({ depth: 3, inFlight: 1, delayed: 1, scheduled: 1 }), outcomes: outcomes({ done: 7 }), recent: [], informers: [], lifecycle } }),
  actor('x:1', { id: 'cronjob', machineId: 'controller', state: 'running.waitingForResync',
    live: { controller: 'cronjob', queue: queue({ delayed: 2, backingOff: 1, scheduled: 1 }), outcomes: outcomes({ failed: 2, terminal: 1 }),
      recent: [{ key: `ns/${EVIL}`, outcome: 'failed', durationMs: 3, retries: 1, at: '2026-01-01T00:00:01.000Z', error: `boom ${EVIL}` }], informers: [] } }),
  actor('x:2', { id: 'worker-0', machineId: 'worker', parentSessionId: 'x:0', state: 'working', context: { stats: { counts: { done: 4, failed: 0 } } } }),
  actor('x:3', { id: 'worker-1', machineId: 'worker', parentSessionId: 'x:0', state: 'working' }),
  actor('x:4', { id: 'job', machineId: 'controller', state: 'waitingForLeader', live: { controller: 'job', queue: queue(), outcomes: outcomes(), recent: [], informers: [] } }),
  actor('x:5', { id: 'leader-election/svc-system/svc-controller-manager', machineId: 'leaderElection', state: 'leader.holding' }),
  actor('x:6', { machineId: 'scheduler', state: 'scheduling.idle', context: { cycles: 5, lastResult: 'scheduled' } }),
  actor('x:7', { id: 'node/a', machineId: 'nodeAgent', state: 'up.condition.ready, up.lease.renewing', activePaths: ['up', 'up.condition', 'up.condition.ready'] }),
  actor('x:8', { id: 'node/b', machineId: 'nodeAgent', state: 'up.condition.notReady', activePaths: ['up', 'up.condition', 'up.condition.notReady'] }),
  actor('x:9', { id: 'node/c', machineId: 'nodeAgent', state: 'registering', activePaths: ['registering'] }),
  actor('x:10', { id: 'feed', kind: 'actor', parentSessionId: 'x:0' }),
  actor('x:11', { id: 'old-scheduler', machineId: 'scheduler', status: 'stopped', state: 'stopped' }),
];

test('the summary: controllers with their phase, queue, back-off apart from planned requeues, errors and objects; nodes by condition; leaders', () => {
  const html = renderSummary(actors);
  const row = (name: string) => new RegExp(`<tr data-controller="${name}"[^>]*>(.*?)</tr>`).exec(html)?.[1] ?? '';
  const cells = (name: string) => [...row(name).matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
  // controller, state, queue, in hand, back-off, planned, errors, done, objects
  assert.equal(cells('deployment'), ['deployment', 'running', '3', '1', '0', '1', '0', '7', 'complete 2 · progressing.surging 1']);
  assert.equal(cells('cronjob'), ['cronjob', 'running', '0', '0', '1', '1', '3', '0', '']);
  assert.equal(cells('job').slice(0, 2), ['job', 'waiting for leader']);
  assert.match(html, /<b data-summary="controllers">3<\/b> controllers \(running 2 · waiting for leader 1\), 2 workers/);
  assert.match(html, /<b data-summary="nodes">3<\/b> by condition: <span data-summary="node-conditions">notReady 1 · ready 1 · registering 1<\/span>/);
  assert.match(html, /leader election <a href="#card-x-5"[^>]*>leader-election\/svc-system\/svc-controller-manager<\/a>: <code data-summary="leader">leader.holding<\/code>/);
  assert.match(html, /scheduler: <a href="#card-x-6"[^>]*>scheduler<\/a> <code>scheduling.idle<\/code> 5 cycles, last: scheduled/, 'the stopped scheduler is not summarised');
  const headline = /<p class="headline">(.*?)<\/p>/.exec(html)![1]!.replace(/<[^>]+>/g, '');
  assert.is(headline, '1 controllers not running · 3 reconcile errors since start · 1 keys backing off · 1 objects on their way (lifecycle) · 2 nodes not ready');
});

test('the static first render: summary, index and folded cards; workers inside their controller; finished actors marked', () => {
  const snapshot: MachinesSnapshot = { generatedAt: '2026-01-01T00:00:02.000Z', actors: actors as MachinesSnapshot['actors'], machines: [] };
  const page = debugMachinesPage('svc · machines', [], false, snapshot);
  assert.match(page, /<section id="summary"><p class="headline">/);
  assert.match(page, /<span id="conn">snapshot of 00:00:02 UTC · connecting…<\/span>/);
  assert.match(page, /<nav id="index"><div class="index-group"><span class="meta">controllers<\/span> <a href="#card-x-1"/);
  const cards = [...page.matchAll(/<details class="card[^"]*" id="(card-[^"]+)"[^>]*data-role="([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.equal(cards, ['card-x-1 controller', 'card-x-0 controller', 'card-x-4 controller', 'card-x-5 leader', 'card-x-11 scheduler', 'card-x-6 scheduler', 'card-x-7 node', 'card-x-8 node', 'card-x-9 node'], 'controllers first, by name; no worker cards');
  assert.not.match(page, /<details class="card[^>]* open/, 'every card folded');
  assert.match(page, /<details class="card ended" id="card-x-11"/);
  assert.match(page, /other actors \(promises, callbacks\): 1/);
  assert.match(page, /deployment<\/span><span class="state">running.waitingForResync<\/span><span class="facts">queue 3 · in hand 1 · planned 1 · 2 workers · objects: complete 2 · progressing.surging 1<\/span>/);
  assert.match(page, /cronjob<\/span><span class="state">running.waitingForResync<\/span><span class="facts">queue 0 · in hand 0 · back-off 1 · planned 1 · errors 3<\/span>/);
  // Self-contained: no external resources.
  assert.not.match(page, /(src|href)="(https?:)?\/\//);
  // The script (render functions and all) compiles.
  const script = /<script>([\s\S]*)<\/script>/.exec(page)![1]!;
  assert.not.throws(() => new Function(script));
});

test('a controller card holds its lifecycle objects table; the selected object is marked; states light by prefix', () => {
  const card = renderCard(actors[0]!, [actors[2]!, actors[3]!]);
  assert.match(card, /<div class="lifecycle" data-chart="lifecycle\/deployment"><div class="chart lc"><\/div>/);
  const html = renderLifecycle(lifecycle, 'default/web');
  assert.match(html, /<tr data-object="default\/web" data-state="progressing.surging" class="selected" tabindex="0"><td>default\/web<\/td><td class="state">progressing.surging<\/td><td>4 s<\/td><td>waiting: 2 of 5 new pods available, maxUnavailable 1<\/td><td class="meta">observing → progressing.surging 00:00:00<\/td><\/tr>/);
  assert.match(html, /<span data-count="complete">complete <b>2<\/b><\/span><span data-count="progressing.surging">progressing.surging <b>1<\/b><\/span>/);
  assert.equal(statePrefixes('progressing.surging'), ['progressing', 'progressing.surging']);
  const side = renderSide(actors[0]!, [actors[2]!, actors[3]!], Date.parse('2026-01-01T00:00:05Z'));
  assert.match(side, /<tr data-worker="worker-0"><td>worker-0<\/td><td>working<\/td><td>active<\/td><\/tr>/);
  assert.match(side, /<b data-live="backingOff">0<\/b>.*<b data-live="scheduled">1<\/b>/);
});

test('a planned requeue lights `scheduled` on the controller chart, a back-off `backoff`; older facts without the split count as back-off', () => {
  assert.equal(ownChartLit({ queue: queue({ delayed: 1, scheduled: 1 }) }), ['scheduled']);
  assert.equal(ownChartLit({ queue: queue({ depth: 1, inFlight: 1, delayed: 2, backingOff: 1, scheduled: 1 }) }), ['queue', 'reconcile', 'backoff', 'scheduled']);
  const { backingOff: _b, scheduled: _s, ...old } = queue({ delayed: 1 });
  assert.equal(ownChartLit({ queue: old }), ['backoff']);
});

test('everything the cluster controls is escaped: object keys, error messages, names', () => {
  const html = [renderSummary(actors), renderLifecycle(lifecycle, undefined), renderSide(actors[1]!, [], Date.now()), renderCard(actors[1]!, [])].join('');
  assert.not.ok(html.includes('<img'), 'no markup from the cluster');
  assert.ok(html.includes('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'));
  const named = renderCard(actor('x:99', { id: `"><script>x</script>`, machineId: 'controller', state: '<b>' }), []);
  assert.not.ok(named.includes('<script>') || named.includes('<b>'), named);
});

test('small helpers: durations, counts, node conditions', () => {
  assert.equal([humanMs(850), humanMs(42_000), humanMs(180_000), humanMs(9_000_000)], ['850 ms', '42 s', '3 min', '3 h']);
  assert.is(countsText({ a: 1, b: 3, c: 0 }), 'b 3 · a 1');
  assert.is(nodeCondition(actors[7]!), 'ready');
  assert.is(nodeCondition(actors[9]!), 'registering');
});

test.run();
