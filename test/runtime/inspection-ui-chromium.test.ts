// /debug/machines/ui in real headless Chromium: a leader-elected copy controller (docs example)
// against the real apiserver; cards are folded, and an opened card draws the leader-election chart
// with `leader` highlighted and the controller's with `running` (and its own chart, live facts and
// its workers as rows), follows transitions and reconciles live, and is screenshotted for the docs
// (UPDATE_DOCS_IMAGES=1 writes docs/images/debug-machines.png; otherwise dist/test-artifacts/). A
// controller reporting lifecycle facts (fabricated here; the built-in ones are checked with svc up
// in access-panel-chromium.test.ts) shows its objects, and selecting one lights its state.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createActor, createMachine } from 'xstate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyController } from '../../docs/examples/runtime/copy-controller.js';
import { runInspected } from '../../docs/examples/inspection/inspected-controller.js';
import { createInformerFactory, resources, type SharedInformerFactory } from '../../src/client/index.js';
import { chartModel, LIVE_FACTS, type LiveFactsValue } from '../../src/runtime/inspection/index.js';
import { LIVE_CHART } from '../../src/runtime/inspection/live-facts.js';
import { ROOT, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { realClient } from '../helpers/real-client.js';
import { capturedLogger } from '../helpers/sim.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let server: ApiServerProcess;
let conn: ReturnType<typeof realClient>;
let informers: SharedInformerFactory;
let running: ReturnType<typeof runInspected>;
let browser: Browser;
let base: string;

test.before(async () => {
  // Never skipped: without Chromium this test fails, in CI and elsewhere.
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`);
  server = await startApiServer();
  conn = realClient(server);
  informers = createInformerFactory(conn.client);
  running = runInspected(copyController, { client: conn.client, informers, logger: capturedLogger().logger });
  if (!running.server.listening) await once(running.server, 'listening');
  base = `http://127.0.0.1:${(running.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
test.after(async () => {
  await browser?.close();
  running?.election.stop();
  await running?.controller.stop();
  running?.server.closeAllConnections();
  running?.server.close();
  informers?.stop();
  await conn?.close();
  await server?.stop();
  server?.cleanup();
});

test('the page highlights `leader` in the leader-election chart and `running` in the controller chart, live', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const external: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(base)) external.push(r.url());
  });
  await page.goto(`${base}/debug/machines/ui`);
  // Folded by default: a card opens on a click on its head.
  assert.is(await page.locator('details.card[data-machine="leaderElection"][open]').count(), 0);
  await page.click('.card[data-machine="leaderElection"] > summary');
  await page.click('.card[data-machine="controller"] > summary');
  const leader = '.card[data-machine="leaderElection"] .chart svg [id="state-leader"]';
  await page.waitForSelector(`${leader}.active`, { timeout: 30_000 });
  await page.waitForSelector('.card[data-machine="controller"] .chart svg [id="state-running"].active', { timeout: 30_000 });
  // Exactly the active states are highlighted: follower is not.
  assert.is(await page.locator('.card[data-machine="leaderElection"] .chart svg [id="state-follower"].active').count(), 0);
  const state = await page.getAttribute('.card[data-machine="leaderElection"]', 'data-state');
  assert.ok(state?.startsWith('leader.'), String(state));
  // Live: a renewal (every 2 s) arrives through the event stream and adds a transition row.
  const rows = () => page.locator('.card[data-machine="leaderElection"] table tr').count();
  const before = await rows();
  for (const deadline = Date.now() + 15_000; (await rows()) <= before; await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > deadline) throw new Error(`no new transition reached the page in 15 s (rows: ${before})`);
  }
  const table = await page.locator('.card[data-machine="leaderElection"] table').innerText();
  assert.match(table, /after retryPeriod/, 'timer events are shown by their delay name');
  assert.match(table, /done: leaderElection\.acquiring/, 'finished actors by their id');
  // The workers the controller spawned are rows inside its card, not cards of their own.
  assert.ok((await page.locator('.card[data-machine="controller"] table.workers tr[data-worker]').count()) >= 2);
  assert.is(await page.locator('.card[data-machine="worker"]').count(), 0);
  // The filter keeps the cards (and index links) whose name, machine or state has every word typed.
  await page.fill('#filter', 'leader holding');
  assert.ok(await page.locator('.card[data-machine="leaderElection"]').isVisible());
  assert.not.ok(await page.locator('.card[data-machine="controller"]').isVisible());
  assert.not.ok(await page.locator('#index a:text-is("configmap-copy")').isVisible());
  await page.fill('#filter', '');
  assert.ok(await page.locator('.card[data-machine="controller"]').isVisible());
  // The summary names the controller, linked to its card.
  assert.match(await page.locator('#summary tr[data-controller="configmap-copy"]').innerText(), /configmap-copy\s+running/);
  assert.equal(external, [], 'the page asks nothing outside the server');
  // Let the renewal settle back into `holding` for a calm picture.
  await page.waitForSelector('.card[data-machine="leaderElection"][data-state="leader.holding"]', { timeout: 10_000 });
  await page.close();
});

test('the live view: the controller card, named after it, shows queue depth, recent reconciles with outcomes and its informers', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${base}/debug/machines/ui`);
  const card = '.card[data-machine="controller"]';
  // A link in the summary opens its card.
  await page.click('#summary a:text-is("configmap-copy")');
  await page.waitForSelector(`${card} .chart svg [id="state-running"].active`, { timeout: 30_000 });
  assert.match(await page.locator(`${card} h2`).innerText(), /^configmap-copy/);
  // Its own chart, drawn from its definition: the watched and owned ConfigMaps feed the queue.
  await page.waitForSelector(`${card} .chart.own[data-chart="controller/configmap-copy"] svg [id="state-queue"]`, { timeout: 10_000 });
  const own = await page.locator(`${card} .chart.own svg`).innerHTML();
  assert.match(own, /watches ConfigMap \(labels copy=yes\)/);
  assert.match(own, /owns ConfigMap/);
  // Three originals get copies (done); one named *-copy is refused with a TerminalError.
  for (const name of ['live-a', 'live-b', 'live-c', 'live-oops-copy']) {
    await conn.client.create(resources.configmaps, 'default', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { copy: 'yes' } }, data: { k: name },
    });
  }
  // The page refreshes live facts about once a second, without a reload.
  const recent = page.locator(`${card} table[data-live="recent"]`);
  for (const deadline = Date.now() + 20_000; ; await new Promise((r) => setTimeout(r, 200))) {
    const text = (await recent.count()) ? await recent.innerText() : '';
    if (/default\/live-oops-copy\s+terminal/.test(text) && ['a', 'b', 'c'].every((n) => new RegExp(`default/live-${n}\\s+done`).test(text))) break;
    if (Date.now() > deadline) throw new Error(`recent reconciles never showed the four keys: ${text}`);
  }
  assert.match(await recent.innerText(), /a copy cannot itself be copied/, 'the terminal error is shown');
  assert.match(await page.locator(`${card} [data-live="depth"]`).innerText(), /^\d+$/);
  assert.ok(Number(await page.locator(`${card} [data-live="outcome-terminal"]`).innerText()) >= 1);
  const informers = await page.locator(`${card} table[data-live="informers"]`).innerText();
  assert.match(informers, /configmaps\s+watches\s+yes\s+\d+\s+(just now|\d+ s ago)/);
  assert.match(informers, /configmaps\s+owns\s+yes/);
  // The JSON says the same.
  const body = (await (await fetch(`${base}/debug/machines`)).json()) as { actors: Array<{ id: string; machineId?: string; status: string; parentSessionId?: string; live?: { recent: Array<{ key: string; outcome: string }> } }> };
  const ctl = body.actors.find((a) => a.machineId === 'controller')!;
  assert.is(ctl.id, 'configmap-copy');
  assert.ok(ctl.live!.recent.some((r) => r.key === 'default/live-oops-copy' && r.outcome === 'terminal'));
  assert.not.ok(body.actors.some((a) => a.parentSessionId !== undefined && a.status !== 'active'), 'no finished children listed');
  // The picture in the docs: the controller after this work.
  const png = await page.screenshot({ fullPage: true });
  assert.ok(png.subarray(1, 4).toString('latin1') === 'PNG' && png.length > 20_000, 'a real screenshot');
  const dir = process.env['UPDATE_DOCS_IMAGES'] === '1' ? join(ROOT, 'docs', 'images') : join(ROOT, 'dist', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'debug-machines.png'), png);
  await page.close();
});

test('a controller with lifecycle facts: its objects by state, and selecting one lights its state on the lifecycle chart', async () => {
  // Fabricated facts in the shape of ControllerActivityFacts.lifecycle, on an actor the inspector watches.
  const lifecycle = createMachine({ id: 'demo-lifecycle', initial: 'observing', states: { observing: {}, progressing: { initial: 'surging', states: { surging: {}, drainingOld: {} } }, complete: {} } });
  const evil = 'default/<img src=x onerror="window.pwned=1">';
  const facts = {
    controller: 'demo', queue: { depth: 0, inFlight: 0, delayed: 0, backingOff: 0, scheduled: 0, shuttingDown: false, waiting: [], working: [] },
    outcomes: { done: 1 }, recent: [], informers: [],
    lifecycle: {
      chart: 'lifecycle/demo', kind: 'Deployment', counts: { 'progressing.surging': 1, complete: 1 }, entered: {},
      objects: [
        { key: 'default/web', state: 'progressing.surging', since: new Date().toISOString(), forMs: 2_000, holds: 'waiting: 2 of 5 new pods available, maxUnavailable 1', transitions: [{ from: 'observing', to: 'progressing.surging', at: new Date().toISOString() }] },
        { key: evil, state: 'complete', since: new Date().toISOString(), forMs: 9_000, transitions: [] },
      ],
    },
  };
  const source = { [LIVE_FACTS]: () => facts as unknown as { [key: string]: LiveFactsValue }, [LIVE_CHART]: () => [{ ...chartModel(lifecycle), machineId: 'lifecycle/demo' }] };
  const host = createActor(createMachine({ id: 'demo-controller', context: { source }, initial: 'running', states: { running: {} } }), { inspect: running.inspector.inspect });
  host.start();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${base}/debug/machines/ui`);
    assert.match(await page.locator('#summary tr[data-controller="demo-controller"]').innerText(), /complete 1 · progressing\.surging 1/);
    const card = '.card[data-machine="demo-controller"]';
    await page.click(`${card} > summary`);
    const chart = `${card} .lifecycle .chart svg`;
    await page.waitForSelector(`${chart} [id="state-progressing.surging"].occupied`, { timeout: 15_000 });
    assert.is(await page.locator(`${chart} g.state.active`).count(), 0, 'nothing selected yet');
    await page.click(`${card} tr[data-object="default/web"]`);
    await page.waitForSelector(`${chart} [id="state-progressing.surging"].active`, { timeout: 10_000 });
    assert.is(await page.getAttribute(`${card} .lifecycle`, 'data-highlighted'), 'progressing progressing.surging');
    assert.match(await page.locator(`${card} tr[data-object="default/web"]`).innerText(), /progressing\.surging\s+2 s\s+waiting: 2 of 5 new pods available, maxUnavailable 1/);
    // The other object: its name is text, never markup.
    await page.click(`${card} tr[data-object="${evil.replace(/"/g, '\\"')}"]`);
    await page.waitForSelector(`${chart} [id="state-complete"].active`, { timeout: 10_000 });
    assert.is(await page.locator(`${chart} [id="state-progressing.surging"].active`).count(), 0);
    assert.is(await page.locator(`${card} img`).count(), 0);
    assert.is(await page.evaluate(() => (globalThis as { pwned?: number }).pwned), undefined, "no script from an object name ran");
    await page.close();
  } finally {
    host.stop();
  }
});

test('docs/inspection.md shows the committed screenshot and the example verbatim', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'inspection.md'), 'utf8');
  const example = readFileSync(join(ROOT, 'docs', 'examples', 'inspection', 'inspected-controller.ts'), 'utf8').trimEnd();
  assert.ok(doc.includes(example), 'docs/examples/inspection/inspected-controller.ts is out of date in docs/inspection.md');
  assert.match(doc, /!\[[^\]]*\]\(images\/debug-machines\.png\)/);
  const png = readFileSync(join(ROOT, 'docs', 'images', 'debug-machines.png'));
  assert.is(png.subarray(1, 4).toString('latin1'), 'PNG');
  // The svc up screenshot (access-panel-chromium.test.ts writes it).
  assert.match(doc, /!\[[^\]]*\]\(images\/machines-page\.png\)/);
  assert.is(readFileSync(join(ROOT, 'docs', 'images', 'machines-page.png')).subarray(1, 4).toString('latin1'), 'PNG');
});

test.run();
