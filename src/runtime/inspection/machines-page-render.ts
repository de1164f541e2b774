/**
 * What the machines page (/debug/machines/ui) shows, as HTML strings made from the actor tree
 * (MachinesSnapshot's actors): the summary a newcomer reads first, the index, each card's folded
 * head and, once opened, its side (live facts, workers, lifecycle objects, context, transitions).
 *
 * One copy for both ends: the server renders the first screen from the current snapshot (so the
 * page shows content with no script run and no stream open), and the page's script is given these
 * same functions (`PAGE_RENDER_FUNCTIONS`, stringified) to render every update. Hence the rules
 * for this file: plain function declarations only, each using nothing but its arguments, the other
 * functions listed here and browser/Node built-ins (no imports at run time, no module constants).
 *
 * Safety: every string that comes from the cluster or the actors (object keys, names, states,
 * error messages, context values) goes through `esc` before it is put into HTML or an attribute.
 *
 * Contract: pure; `render*` take plain JSON and return HTML text.
 */
import type { InspectedActor } from './machine-inspector.js';

/** A controller's lifecycle facts (ControllerActivityFacts.lifecycle): its objects and their states. */
export interface LifecycleFactsView {
  /** Chart id, served at /debug/machines/charts/<id>.svg (e.g. `lifecycle/deployment`). */
  chart: string;
  /** Objects now in each state path. */
  counts: Record<string, number>;
  /** States where objects rest (done, nothing to do); when absent, states named complete/done/satisfied/... are. */
  resting?: string[];
  objects: Array<{
    key: string;
    state: string;
    since: string;
    forMs: number;
    holds?: string;
    transitions: Array<{ from: string; to: string; at: string }>;
  }>;
}

/** The controller facts the page reads (ControllerActivityFacts; every field optional: older daemons send less). */
export interface ControllerLiveView {
  controller?: string;
  chart?: string;
  queue?: {
    depth: number;
    inFlight: number;
    delayed: number;
    backingOff?: number;
    scheduled?: number;
    waiting: string[];
    working: Array<{ key: string; forMs: number }>;
  };
  outcomes?: Record<string, number>;
  recent?: Array<{ key: string; outcome: string; durationMs: number; retries: number; at: string; error?: string }>;
  informers?: Array<{ resource: string; role: string; synced: boolean; events: number; lastEventAt: string | null }>;
  lifecycle?: LifecycleFactsView;
}

/** An actor as the page holds it (InspectedActor, as JSON). */
export type PageActor = Omit<InspectedActor, 'live'> & { live?: unknown };

/** Escapes text for HTML content and double-quoted attributes. */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** The card element id of an actor (session ids are `x:12`). */
export function cardId(sessionId: string): string {
  return `card-${String(sessionId).replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

/** A duration for people: `850 ms`, `42 s`, `3 min`, `2 h`. */
export function humanMs(ms: number): string {
  const n = Math.max(0, Number(ms) || 0);
  if (n < 1000) return `${Math.round(n)} ms`;
  if (n < 120_000) return `${Math.round(n / 1000)} s`;
  if (n < 7_200_000) return `${Math.round(n / 60_000)} min`;
  return `${Math.round(n / 3_600_000)} h`;
}

/** How an actor is grouped on the page: workers go inside their controller, non-machines into "other actors". */
export function actorRole(a: PageActor): 'controller' | 'worker' | 'leader' | 'scheduler' | 'node' | 'machine' | 'other' {
  if (a.kind !== 'machine') return 'other';
  if (a.machineId === 'worker') return 'worker';
  if (a.machineId === 'leaderElection') return 'leader';
  if (a.machineId === 'scheduler') return 'scheduler';
  if (a.machineId === 'nodeAgent') return 'node';
  const live = a.live as ControllerLiveView | undefined;
  if (a.machineId === 'controller' || (live && live.queue)) return 'controller';
  return 'machine';
}

/** A card's display name: its id when it has one of its own (a controller's name), else its machine. */
export function actorName(a: PageActor): string {
  return a.id !== a.sessionId ? a.id : a.machineId || a.id;
}

/** A controller's place in leader election and start-up, in words. */
export function controllerPhase(state: string | undefined): string {
  const s = String(state || '');
  if (s.startsWith('running')) return 'running';
  if (s === 'waitingForLeader') return 'waiting for leader';
  if (s === 'syncingCaches') return 'syncing caches';
  if (s === 'cacheSyncFailed') return 'cache sync failed';
  return s || 'starting';
}

/** A node agent's condition: `up.condition.ready` reads `ready`; otherwise its top state. */
export function nodeCondition(a: PageActor): string {
  for (const p of a.activePaths || []) {
    const m = /(?:^|\.)condition\.([^.]+)$/.exec(p);
    if (m) return m[1]!;
  }
  return String(a.state || 'starting').split('.')[0]!;
}

/** `progressing.surging 2 · complete 10`, the most populated first. */
export function countsText(counts: Record<string, number> | undefined): string {
  return Object.entries(counts || {})
    .filter(([, n]) => n > 0)
    .sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))
    .map(([k, n]) => `${k} ${n}`)
    .join(' · ');
}

/**
 * The summary at the top: what runs here (components), every controller in one table (leader
 * state, queue, back-off versus planned requeues, errors, objects by lifecycle state), the leader
 * elections, the scheduler and the nodes by condition. Names link to their cards.
 */
export function renderSummary(actors: PageActor[]): string {
  const active = actors.filter((a) => a.status === 'active');
  const controllers = active.filter((a) => actorRole(a) === 'controller').sort((x, y) => actorName(x).localeCompare(actorName(y)));
  const leaders = active.filter((a) => actorRole(a) === 'leader');
  const schedulers = active.filter((a) => actorRole(a) === 'scheduler');
  const nodes = active.filter((a) => actorRole(a) === 'node');
  const link = (a: PageActor) => `<a href="#${esc(cardId(a.sessionId))}" data-open="${esc(a.sessionId)}">${esc(actorName(a))}</a>`;
  const phases: Record<string, number> = {};
  for (const c of controllers) phases[controllerPhase(c.state)] = (phases[controllerPhase(c.state)] || 0) + 1;
  const workers = active.filter((a) => actorRole(a) === 'worker').length;
  const comps: string[] = [];
  comps.push(`<li><b data-summary="controllers">${controllers.length}</b> controllers${controllers.length ? ` (${esc(countsText(phases))})` : ''}, ${workers} workers</li>`);
  const schedulerFacts = (s: PageActor) => {
    const c = s.context || {};
    return [typeof c['cycles'] === 'number' ? `${c['cycles']} cycles` : '', c['lastResult'] ? `last: ${c['lastResult']}` : ''].filter(Boolean).join(', ');
  };
  comps.push(`<li>scheduler: ${schedulers.length ? schedulers.map((s) => `${link(s)} <code>${esc(s.state)}</code> ${esc(schedulerFacts(s))}`).join(', ') : 'not here'}</li>`);
  const conditions: Record<string, number> = {};
  for (const n of nodes) conditions[nodeCondition(n)] = (conditions[nodeCondition(n)] || 0) + 1;
  comps.push(`<li>nodes: <b data-summary="nodes">${nodes.length}</b>${nodes.length ? ` by condition: <span data-summary="node-conditions">${esc(countsText(conditions))}</span>` : ' hosted here'}</li>`);
  for (const l of leaders) comps.push(`<li>leader election ${link(l)}: <code data-summary="leader">${esc(l.state)}</code></li>`);
  const rows = controllers.map((c) => {
    const live = (c.live || {}) as ControllerLiveView;
    const q = live.queue;
    const o = live.outcomes || {};
    const errors = (o['failed'] || 0) + (o['terminal'] || 0);
    const backingOff = q ? (q.backingOff ?? q.delayed) : 0;
    const scheduled = q ? (q.scheduled ?? 0) : 0;
    const cls = [errors ? 'has-errors' : '', backingOff ? 'has-backoff' : '', c.state && !String(c.state).startsWith('running') ? 'not-running' : ''].filter(Boolean).join(' ');
    return `<tr data-controller="${esc(actorName(c))}" class="${cls}"><td>${link(c)}</td><td>${esc(controllerPhase(c.state))}</td>` +
      `<td class="n">${q ? q.depth : ''}</td><td class="n">${q ? q.inFlight : ''}</td><td class="n${backingOff ? ' warn' : ''}">${q ? backingOff : ''}</td>` +
      `<td class="n">${q ? scheduled : ''}</td><td class="n${errors ? ' bad' : ''}">${errors}</td><td class="n">${o['done'] || 0}</td>` +
      `<td class="objects">${live.lifecycle ? esc(countsText(live.lifecycle.counts)) : ''}</td></tr>`;
  });
  // One line that says whether anything needs a look: errors, back-off, objects on their way, nodes not ready.
  let errors = 0;
  let backoff = 0;
  let moving = 0;
  for (const c of controllers) {
    const live = (c.live || {}) as ControllerLiveView;
    errors += ((live.outcomes || {})['failed'] || 0) + ((live.outcomes || {})['terminal'] || 0);
    if (live.queue) backoff += live.queue.backingOff ?? live.queue.delayed;
    const lc = live.lifecycle;
    if (lc) moving += (lc.objects || []).filter((o) => (lc.resting ? !lc.resting.includes(o.state) : !/^(complete|done|satisfied|succeeded|failed|finished|idle)/i.test(o.state))).length;
  }
  const notRunning = controllers.filter((c) => !String(c.state || '').startsWith('running')).length;
  const unready = nodes.filter((n) => nodeCondition(n) !== 'ready').length;
  const flag = (n: number, text: string, name: string) => `<span class="${n ? 'warn' : 'ok'}" data-headline="${name}">${n} ${esc(text)}</span>`;
  const headline = `<p class="headline">${flag(notRunning, 'controllers not running', 'not-running')} · ${flag(errors, 'reconcile errors since start', 'errors')} · ` +
    `${flag(backoff, 'keys backing off', 'backoff')} · <span data-headline="moving">${moving} objects on their way (lifecycle)</span> · ${flag(unready, 'nodes not ready', 'unready')}</p>`;
  return `${headline}<div class="sum-cols"><div><h2>Components</h2><ul class="components">${comps.join('')}</ul></div>` +
    `<div class="ctl-table"><h2>Controllers</h2><table data-summary="controllers"><tr><th>controller</th><th>state</th><th title="keys ready">queue</th><th title="keys being reconciled">in hand</th>` +
    `<th title="keys waiting after a failure">back-off</th><th title="keys waiting for a planned requeueAfter">planned</th><th title="failed and terminal reconciles since start">errors</th><th>done</th><th>objects by state</th></tr>` +
    `${rows.join('')}</table></div></div>`;
}

/** The index: one link per card, grouped as the page is; each carries the text the filter matches. */
export function renderIndex(actors: PageActor[]): string {
  const groups: Array<[string, string[]]> = [['controllers', ['controller']], ['leader elections', ['leader']], ['scheduler', ['scheduler']], ['nodes', ['node']], ['other machines', ['machine']]];
  return groups.map(([title, roles]) => {
    const list = actors.filter((a) => roles.includes(actorRole(a))).sort((x, y) => actorName(x).localeCompare(actorName(y)));
    if (!list.length) return '';
    return `<div class="index-group"><span class="meta">${esc(title)}</span> ${list.map((a) =>
      `<a href="#${esc(cardId(a.sessionId))}" data-open="${esc(a.sessionId)}" data-filter="${esc(`${actorName(a)} ${a.machineId || ''} ${a.state || ''}`.toLowerCase())}"${a.status !== 'active' ? ' class="ended"' : ''}>${esc(actorName(a))}</a>`).join(' ')}</div>`;
  }).join('');
}

/** A card's head line (inside `<summary>`): name, state, the numbers that matter, ids. */
export function renderCardHead(a: PageActor, workers: PageActor[]): string {
  const live = (a.live || {}) as ControllerLiveView;
  const q = live.queue;
  const bits: string[] = [];
  if (q) {
    bits.push(`queue ${q.depth}`, `in hand ${q.inFlight}`);
    const backingOff = q.backingOff ?? q.delayed;
    if (backingOff) bits.push(`back-off ${backingOff}`);
    if (q.scheduled) bits.push(`planned ${q.scheduled}`);
    const o = live.outcomes || {};
    const errors = (o['failed'] || 0) + (o['terminal'] || 0);
    if (errors) bits.push(`errors ${errors}`);
  }
  if (workers.length) bits.push(`${workers.length} worker${workers.length === 1 ? '' : 's'}`);
  if (live.lifecycle) bits.push(`objects: ${countsText(live.lifecycle.counts) || 'none'}`);
  const ids = [a.id !== a.sessionId && a.machineId ? `machine ${a.machineId}` : '', a.systemId ? `systemId ${a.systemId}` : '', `session ${a.sessionId}`, a.parentSessionId ? `parent ${a.parentSessionId}` : '', a.status].filter(Boolean);
  return `<h2><span class="name">${esc(actorName(a))}</span><span class="state">${esc(a.state || '(starting)')}</span>` +
    `<span class="facts">${esc(bits.join(' · '))}</span><span class="meta">${esc(ids.join(' · '))}</span></h2>`;
}

/** A folded card (its body is filled in when opened). */
export function renderCard(a: PageActor, workers: PageActor[]): string {
  const live = (a.live || {}) as ControllerLiveView;
  return `<details class="card${a.status !== 'active' ? ' ended' : ''}" id="${esc(cardId(a.sessionId))}" data-session="${esc(a.sessionId)}" data-machine="${esc(a.machineId || '')}" ` +
    `data-role="${esc(actorRole(a))}" data-state="${esc(a.state || '')}" data-status="${esc(a.status)}" data-filter="${esc(`${actorName(a)} ${a.machineId || ''} ${a.state || ''}`.toLowerCase())}">` +
    `<summary>${renderCardHead(a, workers)}</summary><div class="body">` +
    `${live.lifecycle ? `<div class="lifecycle" data-chart="${esc(live.lifecycle.chart)}"><div class="chart lc"></div><div class="lc-side"></div></div>` : ''}<div class="cols">` +
    `${live.chart ? `<div class="chart own" data-chart="${esc(live.chart)}"></div>` : ''}<div class="chart machine" data-chart="${esc(a.machineId || '')}"></div>` +
    `<div class="side"></div></div></div></details>`;
}

function htmlTable(cols: string[], rows: string[][], attrs: string): string {
  return `<table ${attrs}><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr>${rows.map((r) => `<tr>${r.join('')}</tr>`).join('')}</table>`;
}

/** A table cell with escaped text (and an optional class). */
export function td(v: unknown, cls?: string): string {
  return `<td${cls ? ` class="${esc(cls)}"` : ''}>${esc(v === undefined || v === null ? '' : v)}</td>`;
}

/** How long ago an ISO time was, against `now` (ms). */
export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return 'never';
  const s = Math.max(0, (now - Date.parse(iso)) / 1000);
  return s < 1 ? 'just now' : s < 120 ? `${Math.round(s)} s ago` : `${Math.round(s / 60)} min ago`;
}

/** xstate's internal event names, shortened for people. */
export function eventLabel(type: string): string {
  let m = /^xstate\.after\.([^.]+)\./.exec(type);
  if (m) return `after ${m[1]}`;
  m = /^xstate\.(done|error)\.actor\.(.*)$/.exec(type);
  if (m) return `${m[1]}: ${m[2]!.replace(/^\d+\./, '')}`;
  return type;
}

/** A controller's live facts: queue numbers (`data-live`), keys in hand and waiting, recent reconciles, informers. */
export function renderLive(live: ControllerLiveView, now: number): string {
  const q = live.queue;
  if (!q) return `<div class="live"><div class="meta">live</div><pre>${esc(JSON.stringify(live, null, 1))}</pre></div>`;
  const fact = (label: string, name: string, value: unknown) => `<span>${esc(label)} <b data-live="${esc(name)}">${esc(value)}</b></span>`;
  const facts = [fact('queue depth', 'depth', q.depth), fact('in flight', 'inFlight', q.inFlight), fact('backing off', 'backingOff', q.backingOff ?? q.delayed), fact('planned requeues', 'scheduled', q.scheduled ?? 0)];
  for (const [k, n] of Object.entries(live.outcomes || {})) facts.push(fact(k, `outcome-${k}`, n));
  let out = `<div class="live"><div class="meta">live · ${esc(live.controller)}</div><div class="facts">${facts.join('')}</div>`;
  if (q.working.length) out += `<div class="meta">being reconciled</div>${htmlTable(['key', 'for'], q.working.map((w) => [td(w.key), td(humanMs(w.forMs))]), 'data-live="working"')}`;
  if (q.waiting.length) out += `<div class="meta">waiting (next first)</div>${htmlTable(['key'], q.waiting.map((k) => [td(k)]), 'data-live="waiting"')}`;
  out += `<div class="meta">recent reconciles (newest first)</div>${htmlTable(['key', 'outcome', 'took', 'retries', 'at', 'error'],
    (live.recent || []).map((r) => [td(r.key), td(r.outcome, r.outcome), td(`${r.durationMs} ms`), td(r.retries), td(String(r.at).slice(11, 23)), td(r.error || '')]), 'data-live="recent"')}`;
  out += `<div class="meta">informers</div>${htmlTable(['resource', 'role', 'synced', 'events', 'last event'],
    (live.informers || []).map((i) => [td(i.resource), td(i.role), td(i.synced ? 'yes' : 'no'), td(i.events), td(ago(i.lastEventAt, now))]), 'data-live="informers"')}`;
  return `${out}</div>`;
}

/**
 * The workers of a controller, one row each (not a card each). Only what their state says: a
 * worker's counters change inside one state (machines/worker.ts), so the keys in hand are the
 * controller's live `being reconciled` table, which is refreshed, rather than a stale copy here.
 */
export function renderWorkers(workers: PageActor[]): string {
  if (!workers.length) return '';
  const rows = workers.map((w) => `<tr data-worker="${esc(w.id)}">${td(w.id)}${td(w.state)}${td(w.status)}</tr>`);
  return `<div class="meta">workers</div><table class="workers"><tr><th>worker</th><th>state</th><th>status</th></tr>${rows.join('')}</table>`;
}

/** An actor's side panel: live facts, workers, context and last transitions (newest first). */
export function renderSide(a: PageActor, workers: PageActor[], now: number): string {
  const live = a.live as ControllerLiveView | undefined;
  const transitions = (a.transitions || []).slice().reverse().map((t) => `<tr>${td(String(t.at).slice(11, 23))}<td title="${esc(t.event)}">${esc(eventLabel(t.event))}</td>${td(`${t.from || '·'} → ${t.to}`)}</tr>`);
  return `${live ? renderLive(live, now) : ''}${renderWorkers(workers)}<div class="meta">context</div><pre>${esc(JSON.stringify(a.context, null, 1))}</pre>` +
    `<div class="meta">last transitions</div><table class="transitions">${transitions.join('')}</table>`;
}

/**
 * A controller's objects beside its lifecycle chart: how many are in each state, and a row per
 * object (key, state, for how long, what holds it, its last transitions); a row is `data-object`
 * and, when `selected`, `class="selected"`: the page lights that object's state on the chart.
 */
export function renderLifecycle(lc: LifecycleFactsView, selected: string | undefined): string {
  const counts = Object.entries(lc.counts || {}).sort((x, y) => x[0].localeCompare(y[0]))
    .map(([k, n]) => `<span data-count="${esc(k)}">${esc(k)} <b>${esc(n)}</b></span>`).join('');
  const rows = (lc.objects || []).map((o) => {
    const last = (o.transitions || []).slice(-3).map((t) => `${t.from} → ${t.to} ${String(t.at).slice(11, 19)}`).join('; ');
    return `<tr data-object="${esc(o.key)}" data-state="${esc(o.state)}"${o.key === selected ? ' class="selected"' : ''} tabindex="0">${td(o.key)}${td(o.state, 'state')}${td(humanMs(o.forMs))}${td(o.holds || '')}${td(last, 'meta')}</tr>`;
  });
  return `<div class="meta">objects by lifecycle state (${esc(lc.chart)})</div><div class="counts">${counts || '<span class="meta">none</span>'}</div>` +
    `<div class="meta">objects (select one to light its state on the chart)</div><table data-live="objects"><tr><th>object</th><th>state</th><th>for</th><th>holds</th><th>last transitions</th></tr>${rows.join('')}</table>`;
}

/** Every dotted prefix of a state path (`a.b.c` lights `a`, `a.b` and `a.b.c`). */
export function statePrefixes(path: string): string[] {
  const parts = String(path || '').split('.').filter(Boolean);
  return parts.map((_, i) => parts.slice(0, i + 1).join('.'));
}

/** The states the controller's own chart lights: queue while keys wait, reconcile while in hand, back-off and planned requeues apart. */
export function ownChartLit(live: ControllerLiveView | undefined): string[] {
  const q = live && live.queue;
  if (!q) return [];
  const backingOff = q.backingOff ?? q.delayed;
  return [q.depth > 0 ? 'queue' : '', q.inFlight > 0 ? 'reconcile' : '', backingOff > 0 ? 'backoff' : '', (q.scheduled || 0) > 0 ? 'scheduled' : ''].filter(Boolean);
}

/** The functions the page script gets (stringified), in one place. */
export const PAGE_RENDER_FUNCTIONS: ReadonlyArray<(...args: never[]) => unknown> = [
  esc, cardId, humanMs, actorRole, actorName, controllerPhase, nodeCondition, countsText, renderSummary, renderIndex,
  renderCardHead, renderCard, htmlTable, td, ago, eventLabel, renderLive, renderWorkers, renderSide, renderLifecycle, statePrefixes, ownChartLit,
];
