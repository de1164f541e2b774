/**
 * The `/debug/machines/ui` page: one self-contained HTML document (no external scripts, styles or
 * fonts; the handler serves it with a CSP that allows only itself). A newcomer reads it top down:
 *
 * - a summary (`#summary`): the components hosted here (controllers by leader/start-up phase, the
 *   scheduler, nodes by condition, leader elections) and every controller in one table with its
 *   queue depth, keys in hand, keys backing off after failures and keys waiting for a planned
 *   `requeueAfter` (apart: a planned requeue is not a back-off), errors, and its objects by
 *   lifecycle state;
 * - an index (`#index`) and a filter (`#filter`) over every card; finished actors are hidden until
 *   `#show-ended` is ticked;
 * - one folded card per machine (`details.card`, `data-session`, `data-machine`, `data-state`,
 *   `data-role`); a controller's workers are rows inside its card, not cards; actors that are not
 *   machines (promises, callbacks) are counted in `#others`. Opening a card draws its charts
 *   (`/debug/machines/charts/<id>.svg`) with the active states (class `active`), its live facts
 *   (numbers carry `data-live="<name>"`), context and last transitions; a controller with lifecycle
 *   facts also shows its lifecycle chart, the count of objects per state and a table of its objects
 *   (`tr[data-object]`); selecting one lights its state on that chart.
 *
 * The first render is static: the server renders the summary, index and folded cards from the
 * snapshot it has (./machines-page-render.ts, the same functions the script uses), so the page
 * shows content before any script runs; the event stream (`/debug/machines/events`) then keeps it
 * live.
 *
 * With the access panel (./access-panel.ts) the page has `#access` (folded unless the page's query
 * names a question): the viewer, a user and groups (default: the viewer) and a namespace, the
 * access matrix (`table[data-matrix]`, cells `data-resource`, `data-verb`, `data-allowed`
 * yes/no/n-a) and who-can for a verb and resource (`table[data-who-can]`); a refusal shows the
 * server's Status message in `.error`. The query (`?user=&group=&namespace=`) fills the first
 * question, so a link can name it.
 */
import type { MachinesSnapshot } from './machine-inspector.js';
import { actorName, actorRole, esc, PAGE_RENDER_FUNCTIONS, renderCard, renderIndex, renderSummary, type PageActor } from './machines-page-render.js';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #fafafa; color: #222; }
header { padding: 8px 16px; background: #263238; color: #fff; display: flex; gap: 16px; align-items: center; flex-wrap: wrap; position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 16px; margin: 0; }
header input[type=search] { font: 13px system-ui, sans-serif; padding: 3px 6px; width: 28ch; }
header label { font-size: 12px; }
#conn { font-size: 12px; opacity: .8; }
#summary { margin: 10px 16px 0; background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 6px 12px; }
#summary h2 { font-size: 13px; margin: 4px 0; text-transform: uppercase; letter-spacing: .04em; color: #455a64; }
.sum-cols { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; }
.sum-cols > div:first-child { min-width: 280px; flex: 0 1 340px; }
.ctl-table { flex: 1; min-width: 600px; }
p.headline { margin: 4px 0 2px; font-size: 13px; }
p.headline .warn { color: #b71c1c; font-weight: bold; }
p.headline .ok { color: #1b5e20; }
ul.components { margin: 0; padding-left: 18px; font-size: 13px; }
table { border-collapse: collapse; font-size: 12px; }
td, th { padding: 1px 6px; border-bottom: 1px solid #eee; text-align: left; font-family: ui-monospace, monospace; }
th { font-family: system-ui, sans-serif; color: #555; font-weight: 600; }
td.n { text-align: right; }
td.warn { color: #8d6e00; font-weight: bold; }
td.bad { color: #b71c1c; font-weight: bold; }
tr.not-running td:nth-child(2) { color: #8d6e00; }
td.objects { font-size: 11px; color: #37474f; }
a { color: #1565c0; text-decoration: none; }
a:hover { text-decoration: underline; }
#index { margin: 8px 16px 0; font-size: 12px; line-height: 1.7; }
#index a { margin-right: 4px; }
.meta { color: #666; font-size: 12px; }
main { padding: 8px 16px 16px; display: flex; flex-direction: column; gap: 6px; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 4px 12px; }
.card > summary { cursor: pointer; list-style-position: outside; }
.card h2 { font-size: 14px; margin: 0; display: inline-flex; gap: 10px; flex-wrap: wrap; align-items: baseline; }
.card h2 .state { font-family: ui-monospace, monospace; background: #fff3c4; padding: 0 6px; border-radius: 4px; font-size: 12px; }
.card h2 .facts { font-size: 12px; color: #37474f; }
.card h2 .meta { font-size: 11px; color: #999; }
.card[open] { padding-bottom: 10px; }
.card .body { margin-top: 6px; }
.ended { opacity: .55; }
body:not(.show-ended) .ended { display: none; }
.filtered { display: none !important; }
.cols { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.chart { overflow: auto; max-width: 100%; }
.chart:empty { display: none; }
.chart svg { max-width: 100%; height: auto; }
.chart.own { flex: 0 1 45%; }
.side { min-width: 320px; flex: 1 1 400px; }
/* Every controller runs the same start-up machine: its chart comes after the controller's own and its facts, smaller. */
.card[data-role=controller] .chart.machine { order: 2; flex: 0 1 40%; }
pre { background: #f4f4f4; padding: 6px; border-radius: 4px; font-size: 12px; margin: 4px 0; max-height: 180px; overflow: auto; }
#others { font-size: 12px; color: #555; }
.live { margin: 0 0 6px; }
.live .facts { display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; margin: 2px 0 6px; }
.live .facts b { font-family: ui-monospace, monospace; }
td.failed, td.terminal { color: #b71c1c; }
td.requeue { color: #8d6e00; }
td.requeueAfter { color: #1565c0; }
td.done { color: #1b5e20; }
.lifecycle { margin: 4px 0 8px; border-bottom: 1px solid #eee; padding-bottom: 6px; display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
/* A lifecycle chart is large: drawn at its size in a scroller that brings the selected state into view, its objects beside it. */
.lifecycle .chart.lc { flex: 0 1 auto; max-width: 55%; max-height: 640px; overflow: auto; }
.lifecycle .chart.lc svg { max-width: none; }
.lc-side { flex: 1 1 420px; min-width: 0; }
.lifecycle .counts { display: flex; gap: 12px; flex-wrap: wrap; font-size: 12px; font-family: ui-monospace, monospace; margin: 2px 0 6px; }
tr[data-object] { cursor: pointer; }
tr[data-object]:hover { background: #f1f8e9; }
tr[data-object].selected { background: #fff3c4; }
.panel { margin-top: 8px; border-top: 1px solid #eee; padding-top: 6px; }
.panel select { margin: 4px 6px 4px 0; max-width: 60ch; }
.detail table { margin: 4px 0 8px; }
#access-box { margin: 8px 16px 0; }
#access-box > summary { cursor: pointer; font-weight: 600; font-size: 13px; }
#access form { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 4px 0; }
#access input { font: 12px ui-monospace, monospace; padding: 2px 4px; }
#access h2 { font-size: 14px; margin: 4px 0; }
#access td.yes { background: #e8f5e9; color: #1b5e20; }
#access td.no { color: #b71c1c; }
#access td.na { color: #aaa; }
#access .error { color: #b71c1c; font-size: 12px; }
#access .scroll { max-height: 420px; overflow: auto; }
g.state.occupied > path, g.state.occupied > polygon { fill: #e3f2fd !important; }
g.state.active > path, g.state.active > polygon { fill: #ffd54f !important; stroke: #e65100 !important; stroke-width: 2.5px; }
g.state.state-compound.active > path, g.state.state-compound.active > polygon,
g.state.state-parallel.active > path, g.state.state-parallel.active > polygon { fill: #fff8e1 !important; }
`;

/** Runs in the browser after the render functions (machines-page-render.ts); plain ES2020 without imports. */
const SCRIPT = `
const base = new URL('./', location.href);
const actors = new Map();
const charts = new Map();
const selectedObject = new Map();
const main = document.querySelector('main');
const conn = document.getElementById('conn');
const ROLE_ORDER = ['controller', 'leader', 'scheduler', 'node', 'machine'];

function chart(id) {
  if (!charts.has(id)) charts.set(id, fetch(new URL('charts/' + encodeURIComponent(id) + '.svg', base)).then((r) => r.ok ? r.text() : ''));
  return charts.get(id);
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function table(cols, rows, attrs) {
  const t = el('table', attrs);
  const head = el('tr');
  head.append(...cols.map((c) => el('th', {}, c)));
  t.append(head);
  for (const r of rows) {
    const tr = el('tr');
    tr.append(...r.map((c) => (c instanceof Node ? c : el('td', {}, c === undefined || c === null ? '' : String(c)))));
    t.append(tr);
  }
  return t;
}

/** Lights exactly the given state paths in an SVG chart (class cls); returns them. */
function light(svg, paths, cls) {
  if (!svg) return paths;
  for (const g of svg.querySelectorAll('g.state.' + cls)) g.classList.remove(cls);
  for (const p of paths) svg.querySelector('[id="' + CSS.escape('state-' + p) + '"]')?.classList.add(cls);
  return paths;
}

/** Draws a chart into its box once (an SVG document's prologue dropped), then calls done. */
function drawChart(box, id, done) {
  if (!box || box.dataset.loaded) { done(); return; }
  box.dataset.loaded = 'loading';
  chart(id).then((svg) => { box.innerHTML = svg.replace(/^[\\s\\S]*?(<svg)/, '$1'); box.dataset.loaded = 'yes'; done(); });
}

function workersOf(a) {
  return [...actors.values()].filter((w) => w.parentSessionId === a.sessionId && actorRole(w) === 'worker');
}

function highlight(card, a) {
  if (!card.open) return;
  const machine = card.querySelector('.chart.machine svg');
  if (machine) card.dataset.highlighted = light(machine, a.activePaths || [], 'active').join(' ');
  const own = card.querySelector('.chart.own svg');
  if (own) card.dataset.ownHighlighted = light(own, ownChartLit(a.live), 'active').join(' ');
  const lc = a.live && a.live.lifecycle;
  const lcSvg = card.querySelector('.lifecycle .chart svg');
  if (lc && lcSvg) {
    const key = selectedObject.get(a.sessionId);
    const obj = (lc.objects || []).find((o) => o.key === key);
    light(lcSvg, Object.keys(lc.counts || {}).filter((k) => lc.counts[k] > 0).flatMap(statePrefixes), 'occupied');
    const box = card.querySelector('.lifecycle');
    box.dataset.highlighted = light(lcSvg, obj ? statePrefixes(obj.state) : [], 'active').join(' ');
    // Scroll the chart to the selected object's state once per selection (not on every update).
    const g = obj && lcSvg.querySelector('[id="' + CSS.escape('state-' + obj.state) + '"]');
    const scroller = box.querySelector('.chart.lc');
    if (g && box.dataset.scrolledTo !== obj.key + ' ' + obj.state) {
      box.dataset.scrolledTo = obj.key + ' ' + obj.state;
      const at = g.getBoundingClientRect();
      const view = scroller.getBoundingClientRect();
      scroller.scrollLeft += at.left - view.left - scroller.clientWidth / 2 + at.width / 2;
      scroller.scrollTop += at.top - view.top - scroller.clientHeight / 2 + at.height / 2;
    }
  }
}

/** Fills an open card's body: charts once, then side, lifecycle objects and highlights each update. */
function fillBody(card, a) {
  if (!card.open) return;
  const workers = workersOf(a);
  const side = card.querySelector('.side');
  if (side) side.innerHTML = renderSide(a, workers, Date.now());
  const lc = a.live && a.live.lifecycle;
  let box = card.querySelector('.lifecycle');
  if (lc && !box) {
    card.querySelector('.body').insertAdjacentHTML('afterbegin', '<div class="lifecycle" data-chart="' + esc(lc.chart) + '"><div class="chart lc"></div><div class="lc-side"></div></div>');
    box = card.querySelector('.lifecycle');
  }
  if (box && lc) box.querySelector('.lc-side').innerHTML = renderLifecycle(lc, selectedObject.get(a.sessionId));
  const again = () => { const cur = actors.get(a.sessionId); if (cur) highlight(card, cur); };
  drawChart(card.querySelector('.chart.machine'), a.machineId, again);
  if (a.live && a.live.chart) {
    let own = card.querySelector('.chart.own');
    if (!own) { card.querySelector('.cols').insertAdjacentHTML('afterbegin', '<div class="chart own" data-chart="' + esc(a.live.chart) + '"></div>'); own = card.querySelector('.chart.own'); }
    drawChart(own, a.live.chart, again);
  }
  if (box && lc) drawChart(box.querySelector('.chart.lc'), lc.chart, again);
  const panel = PANELS.find((p) => p.machineId === a.machineId && (!p.actorId || p.actorId === a.id));
  if (panel && !card.querySelector('.panel')) card.querySelector('.body').append(panelFor(panel));
  highlight(card, a);
}

/** Brings the summary, index, cards (in order) and the other-actors count up to date. */
function renderAll() {
  const list = [...actors.values()];
  document.getElementById('summary').innerHTML = renderSummary(list);
  document.getElementById('index').innerHTML = renderIndex(list);
  const shown = list.filter((a) => ROLE_ORDER.includes(actorRole(a)))
    .sort((x, y) => ROLE_ORDER.indexOf(actorRole(x)) - ROLE_ORDER.indexOf(actorRole(y)) || actorName(x).localeCompare(actorName(y)));
  const keep = new Set();
  let prev = null;
  for (const a of shown) {
    const id = cardId(a.sessionId);
    keep.add(id);
    let card = document.getElementById(id);
    const workers = workersOf(a);
    if (!card) {
      const t = document.createElement('template');
      t.innerHTML = renderCard(a, workers);
      card = t.content.firstElementChild;
    } else {
      card.querySelector('summary').innerHTML = renderCardHead(a, workers);
      card.dataset.state = a.state || '';
      card.dataset.status = a.status;
      card.dataset.filter = (actorName(a) + ' ' + (a.machineId || '') + ' ' + (a.state || '')).toLowerCase();
      card.classList.toggle('ended', a.status !== 'active');
    }
    card.dataset.queueDepth = a.live && a.live.queue ? String(a.live.queue.depth) : '';
    // Only moved when out of place, so open cards and scroll positions stay put.
    if ((prev ? prev.nextElementSibling : main.firstElementChild) !== card) (prev ? prev.after(card) : main.prepend(card));
    prev = card;
    fillBody(card, a);
  }
  for (const card of [...main.querySelectorAll('details.card[data-session]')]) if (!keep.has(card.id)) card.remove();
  const others = list.filter((a) => actorRole(a) === 'other');
  const box = document.getElementById('others');
  box.querySelector('summary').textContent = 'other actors (promises, callbacks): ' + others.length;
  if (box.open) box.querySelector('.list').replaceChildren(...others.slice(-50).map((a) => el('div', {}, a.id + ' · ' + a.status + (a.parentSessionId ? ' · parent ' + a.parentSessionId : ''))));
  main.append(box);
  applyFilter();
}

let pending;
function schedule() {
  if (pending) return;
  pending = setTimeout(() => { pending = undefined; renderAll(); }, 150);
}

function applyFilter() {
  const words = document.getElementById('filter').value.trim().toLowerCase().split(/\\s+/).filter(Boolean);
  const hit = (e) => words.every((w) => (e.dataset.filter || '').includes(w));
  for (const e of document.querySelectorAll('details.card[data-filter], #index a[data-filter]')) e.classList.toggle('filtered', !hit(e));
}

/**
 * A detail panel under a machine's card (e.g. the scheduler's "why is my pod pending"): a list of
 * keys from panel.listPath (field panel.listField, key panel.keyField), and the chosen item from
 * panel.itemPath + key rendered generically: scalars as rows, lists of objects as tables.
 */
function panelFor(panel) {
  const box = el('div', { class: 'panel', 'data-panel': panel.title });
  const pick = el('select');
  const refresh = el('button', {}, 'refresh');
  const out = el('div', { class: 'detail' });
  box.append(el('div', { class: 'meta' }, panel.title), pick, refresh, out);
  const load = () => fetch(panel.listPath).then((r) => r.json()).then((body) => {
    const keys = (body[panel.listField] || []).map((x) => String(x[panel.keyField]));
    const current = pick.value;
    pick.replaceChildren(el('option', { value: '' }, keys.length + ' item(s): choose one'), ...keys.map((k) => el('option', { value: k }, k)));
    if (keys.includes(current)) pick.value = current;
  }).catch(() => {});
  const show = () => {
    if (!pick.value) { out.replaceChildren(); return; }
    fetch(panel.itemPath + pick.value.split('/').map(encodeURIComponent).join('/')).then((r) => r.json()).then((item) => out.replaceChildren(detail(item))).catch(() => {});
  };
  pick.addEventListener('change', show);
  refresh.addEventListener('click', () => { load(); show(); });
  load();
  return box;
}

function cell(v) {
  if (Array.isArray(v)) return v.length > 8 ? v.slice(0, 8).join(', ') + ', … (' + v.length + ')' : v.join(', ');
  if (v && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function detail(item) {
  const wrap = el('div');
  const rows = el('table');
  for (const [k, v] of Object.entries(item)) {
    if (Array.isArray(v) && v.length > 0 && typeof v[0] === 'object') continue;
    const tr = el('tr');
    tr.append(el('th', {}, k), el('td', {}, cell(v)));
    rows.append(tr);
  }
  wrap.append(rows);
  for (const [k, v] of Object.entries(item)) {
    if (!Array.isArray(v) || v.length === 0 || typeof v[0] !== 'object') continue;
    const cols = [...new Set(v.flatMap((o) => Object.keys(o)))];
    wrap.append(el('div', { class: 'meta' }, k), table(cols, v.map((o) => cols.map((c) => (o[c] === undefined ? '' : cell(o[c])))), { 'data-field': k }));
  }
  return wrap;
}

function applySnapshot(s) {
  actors.clear();
  for (const a of s.actors) actors.set(a.sessionId, a);
  renderAll();
}

function connect() {
  const es = new EventSource(new URL('events', base));
  es.addEventListener('open', () => { conn.textContent = 'live'; });
  es.addEventListener('error', () => { conn.textContent = 'reconnecting…'; });
  es.addEventListener('snapshot', (e) => applySnapshot(JSON.parse(e.data)));
  es.addEventListener('actor', (e) => { const a = JSON.parse(e.data).actor; actors.set(a.sessionId, a); schedule(); });
  es.addEventListener('removed', (e) => { actors.delete(JSON.parse(e.data).sessionId); schedule(); });
  es.addEventListener('live', (e) => {
    const { sessionId, live } = JSON.parse(e.data);
    const a = actors.get(sessionId);
    if (!a) return;
    a.live = live;
    schedule();
  });
}

// Opening a card (or the other actors) fills it; a link in the summary or index opens its card.
main.addEventListener('toggle', (e) => {
  const card = e.target;
  if (card.id === 'others') { renderAll(); return; }
  const a = actors.get(card.dataset.session);
  if (a && card.open) fillBody(card, a);
}, true);
document.addEventListener('click', (e) => {
  const link = e.target.closest && e.target.closest('a[data-open]');
  if (link) { const card = document.getElementById(cardId(link.dataset.open)); if (card) card.open = true; return; }
  const row = e.target.closest && e.target.closest('tr[data-object]');
  if (row) {
    const card = row.closest('details.card');
    const a = card && actors.get(card.dataset.session);
    if (!a) return;
    const key = row.dataset.object;
    if (selectedObject.get(a.sessionId) === key) selectedObject.delete(a.sessionId); else selectedObject.set(a.sessionId, key);
    fillBody(card, a);
  }
});
document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.target.matches && e.target.matches('tr[data-object]')) e.target.click(); });
document.getElementById('filter').addEventListener('input', applyFilter);
document.getElementById('show-ended').addEventListener('change', (e) => document.body.classList.toggle('show-ended', e.target.checked));

/** The access panel: the matrix for a user (default: the viewer) and who-can, asked of the API server by the daemon. */
function accessPanel() {
  const box = document.getElementById('access');
  if (!box) return;
  const accessUrl = (p, params) => { const u = new URL('access/' + p, base); for (const [k, v] of params) u.searchParams.append(k, v); return u; };
  const get = (p, params) => fetch(accessUrl(p, params)).then(async (r) => { const body = await r.json().catch(() => ({})); if (!r.ok) throw new Error(body.message || ('HTTP ' + r.status)); return body; });
  const input = (name, placeholder, size) => el('input', { name, placeholder, size: String(size || 16) });
  const viewerLine = el('div', { class: 'meta', 'data-viewer': '' }, 'viewer: …');
  const user = input('user', 'user', 28), groups = input('groups', 'group1,group2', 40), ns = input('namespace', 'namespace (empty: cluster-wide)', 24);
  const matrixForm = el('form', { 'data-form': 'matrix' });
  matrixForm.append(el('span', {}, 'access of'), user, el('span', {}, 'in groups'), groups, el('span', {}, 'namespace'), ns, el('button', { type: 'submit' }, 'show matrix'));
  const verb = input('verb', 'verb', 10), resource = input('resource', 'resource, e.g. pods', 24), name = input('name', 'name (optional)', 16);
  const whoForm = el('form', { 'data-form': 'who-can' });
  whoForm.append(el('span', {}, 'who can'), verb, resource, name, el('span', {}, 'in the namespace above'), el('button', { type: 'submit' }, 'who can'));
  const err = el('div', { class: 'error' });
  const out = el('div', { class: 'scroll' });
  box.append(el('h2', {}, 'Access (asked of the API server)'), viewerLine, matrixForm, whoForm, err, out);
  // Only the latest question's answer is shown (an earlier, slower one must not overwrite it).
  let asked = 0;
  const ask = (p, params, show) => { const n = ++asked; get(p, params).then((x) => { if (n === asked) show(x); }, (e) => { if (n === asked) fail(e); }); };
  const fail = (e) => { err.textContent = e.message; out.replaceChildren(); box.dataset.state = 'error'; };
  const showMatrix = () => {
    err.textContent = ''; box.dataset.state = 'loading';
    const params = [['user', user.value.trim()], ['namespace', ns.value.trim()], ...groups.value.split(',').map((g) => g.trim()).filter(Boolean).map((g) => ['group', g])];
    ask('matrix', params, (m) => {
      const t = table(['resource', ...m.verbs], m.rows.map((r) => [r.resource, ...m.verbs.map((v) => {
        const a = r.verbs[v]; const word = a === undefined ? 'n/a' : a ? 'yes' : 'no';
        return el('td', { class: a === undefined ? 'na' : word, 'data-resource': r.resource, 'data-verb': v, 'data-allowed': a === undefined ? 'n-a' : word }, word);
      })]), { 'data-matrix': m.user + (m.namespace ? ' in ' + m.namespace : '') });
      out.replaceChildren(el('div', { class: 'meta' }, 'access of ' + (m.user || '(no user)') + (m.groups.length ? ' in ' + m.groups.join(', ') : '') + (m.namespace ? ' · namespace ' + m.namespace : ' · cluster-wide')), t);
      box.dataset.state = 'matrix';
    });
  };
  matrixForm.addEventListener('submit', (e) => { e.preventDefault(); showMatrix(); });
  whoForm.addEventListener('submit', (e) => {
    e.preventDefault(); err.textContent = ''; box.dataset.state = 'loading';
    ask('who-can', [['verb', verb.value.trim()], ['resource', resource.value.trim()], ['namespace', ns.value.trim()], ['name', name.value.trim()]], (w) => {
      out.replaceChildren(el('div', { class: 'meta' }, 'who can ' + w.verb + ' ' + w.resource + (w.name ? ' ' + w.name : '') + (w.namespace ? ' in ' + w.namespace : ' (cluster-wide)') + ': ' + w.subjects.length),
        table(['kind', 'name', 'namespace', 'reason'], w.subjects.map((s) => [s.kind, s.name, s.namespace || '', s.reason]), { 'data-who-can': w.verb + ' ' + w.resource }));
      box.dataset.state = 'who-can';
    });
  });
  get('viewer', []).then((v) => {
    viewerLine.textContent = 'viewer: ' + v.user + ' (' + v.groups.join(', ') + ') · asked by ' + v.identity + (v.mayAskAboutOthers ? '' : ' · you may see only your own access') + (v.mayAskWhoCan ? '' : ' · who-can needs create on subjectaccessreviews and list on bindings');
    box.dataset.viewer = v.user;
    // The page's own query may name the question (?user=&group=&namespace=): links to it work.
    const q = new URLSearchParams(location.search);
    user.value = q.get('user') ?? v.user;
    groups.value = q.has('user') || q.has('group') ? q.getAll('group').join(',') : v.groups.join(',');
    ns.value = q.get('namespace') ?? '';
    showMatrix();
  }).catch(fail);
}


accessPanel();
{
  // The access panel opens by itself when the page's query names a question.
  const q = new URLSearchParams(location.search);
  const box = document.getElementById('access-box');
  if (box && (q.has('user') || q.has('group') || q.has('namespace'))) box.open = true;
}
connect();
`;

/** A detail panel shown under the card of one machine (see `panelFor` in the page script). */
export interface DetailPanel {
  machineId: string;
  /** Only under the card of the actor with this id (e.g. one controller of the many running machine `controller`). */
  actorId?: string;
  title: string;
  /** GET returns an object whose `listField` is a list of objects with a `keyField`. */
  listPath: string;
  listField: string;
  keyField: string;
  /** The item is at itemPath + key (key segments URL-encoded). */
  itemPath: string;
}

/** The cards in page order (controllers, leader elections, scheduler, nodes, other machines), workers inside their controller. */
function staticCards(actors: PageActor[]): string {
  const order = ['controller', 'leader', 'scheduler', 'node', 'machine'];
  return actors
    .filter((a) => order.includes(actorRole(a)))
    .sort((x, y) => order.indexOf(actorRole(x)) - order.indexOf(actorRole(y)) || actorName(x).localeCompare(actorName(y)))
    .map((a) => renderCard(a, actors.filter((w) => w.parentSessionId === a.sessionId && actorRole(w) === 'worker')))
    .join('\n');
}

/**
 * The page; with `snapshot` (the handler passes the inspector's) the summary, index and folded
 * cards are rendered into it, so it is readable before its script runs.
 */
export function debugMachinesPage(title = 'svc · machines', panels: readonly DetailPanel[] = [], access = false, snapshot?: MachinesSnapshot): string {
  const actors: PageActor[] = snapshot?.actors ?? [];
  const others = actors.filter((a) => actorRole(a) === 'other').length;
  const render = PAGE_RENDER_FUNCTIONS.map((f) => f.toString()).join('\n');
  const when = snapshot ? `snapshot of ${snapshot.generatedAt.slice(11, 19)} UTC · connecting…` : 'connecting…';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${esc(title)}</h1><span id="conn">${esc(when)}</span>
<input type="search" id="filter" placeholder="filter cards: name, machine, state" aria-label="filter cards">
<label><input type="checkbox" id="show-ended"> show finished actors</label></header>
<section id="summary">${renderSummary(actors)}</section>
<nav id="index">${renderIndex(actors)}</nav>
${access ? '<details id="access-box" class="card"><summary>Access: who may do what (asked of the API server)</summary><section id="access"></section></details>\n' : ''}<main>
${staticCards(actors)}
<details id="others" class="card"><summary>other actors (promises, callbacks): ${others}</summary><div class="list"></div></details>
</main>
<script>const PANELS = ${JSON.stringify(panels).replace(/</g, '\\u003c')};
${render.replace(/<\/script/gi, '<\\/script')}
${SCRIPT}</script>
</body>
</html>
`;
}
