/**
 * The `/debug/machines/ui` page: one self-contained HTML document (no external scripts, styles or
 * fonts). It loads the actor tree from `/debug/machines`, draws each running machine's chart
 * (`/debug/machines/charts/<machineId>.svg`) with its active states highlighted, and follows
 * changes through the event stream at `/debug/machines/events`.
 *
 * Every card has `data-session`, `data-machine` and `data-state`, and highlighted chart elements
 * get the class `active`, so tests and people can see the same thing. An actor with live facts (a
 * controller) gets a `.live` block: queue depth, keys waiting and in hand, recent reconciles with
 * outcome, duration and retries, and its informers; the numbers carry `data-live="<name>"`.
 *
 * With the access panel (./access-panel.ts) the page starts with `#access`: the viewer, a user and
 * groups (default: the viewer) and a namespace, the access matrix (`table[data-matrix]`, cells
 * `data-resource`, `data-verb`, `data-allowed` yes/no/n-a) and who-can for a verb and resource
 * (`table[data-who-can]`); a refusal shows the server's Status message in `.error`. The page's
 * query (`?user=&group=&namespace=`) fills the first question, so a link can name it.
 */

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #fafafa; color: #222; }
header { padding: 10px 16px; background: #263238; color: #fff; display: flex; gap: 16px; align-items: baseline; }
header h1 { font-size: 16px; margin: 0; }
#conn { font-size: 12px; opacity: .8; }
main { padding: 12px 16px; display: flex; flex-direction: column; gap: 12px; }
.card { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 10px 12px; }
.card.ended { opacity: .55; }
.card h2 { font-size: 14px; margin: 0 0 6px; display: flex; gap: 10px; flex-wrap: wrap; align-items: baseline; }
.card h2 .state { font-family: ui-monospace, monospace; background: #fff3c4; padding: 1px 6px; border-radius: 4px; }
.card .meta { color: #666; font-size: 12px; }
.cols { display: flex; gap: 16px; flex-wrap: wrap; align-items: flex-start; }
.chart { overflow: auto; max-width: 100%; }
.chart svg { max-width: 100%; height: auto; }
.chart.own { max-width: 45%; }
.side { min-width: 260px; flex: 1; }
pre { background: #f4f4f4; padding: 6px; border-radius: 4px; font-size: 12px; margin: 4px 0; max-height: 180px; overflow: auto; }
table { border-collapse: collapse; font-size: 12px; }
td, th { padding: 2px 6px; border-bottom: 1px solid #eee; text-align: left; font-family: ui-monospace, monospace; }
.others { font-size: 12px; color: #555; }
.live { margin: 0 0 6px; }
.live .facts { display: flex; gap: 14px; flex-wrap: wrap; font-size: 13px; margin: 2px 0 6px; }
.live .facts b { font-family: ui-monospace, monospace; }
.live td.failed, .live td.terminal { color: #b71c1c; }
.live td.requeue, .live td.requeueAfter { color: #8d6e00; }
.live td.done { color: #1b5e20; }
.panel { margin-top: 8px; border-top: 1px solid #eee; padding-top: 6px; }
.panel select { margin: 4px 6px 4px 0; max-width: 60ch; }
.detail table { margin: 4px 0 8px; }
#access { margin: 12px 16px 0; }
#access form { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 4px 0; }
#access input { font: 12px ui-monospace, monospace; padding: 2px 4px; }
#access td.yes { background: #e8f5e9; color: #1b5e20; }
#access td.no { color: #b71c1c; }
#access td.na { color: #aaa; }
#access .error { color: #b71c1c; font-size: 12px; }
#access .scroll { max-height: 420px; overflow: auto; }
g.state.active > path, g.state.active > polygon { fill: #ffd54f !important; stroke: #e65100 !important; stroke-width: 2.5px; }
g.state.state-compound.active > path, g.state.state-compound.active > polygon,
g.state.state-parallel.active > path, g.state.state-parallel.active > polygon { fill: #fff8e1 !important; }
`;

/** Runs in the browser; kept as plain ES2020 without imports. */
const SCRIPT = `
const base = new URL('./', location.href);
const api = new URL('../machines', location.href);
const actors = new Map();
const charts = new Map();
const main = document.querySelector('main');
const conn = document.getElementById('conn');

function chart(machineId) {
  if (!charts.has(machineId)) {
    charts.set(machineId, fetch(new URL('charts/' + encodeURIComponent(machineId) + '.svg', base)).then((r) => r.ok ? r.text() : ''));
  }
  return charts.get(machineId);
}

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function highlight(card, a) {
  const svg = card.querySelector('.chart:not(.own) svg');
  if (!svg) return;
  for (const g of svg.querySelectorAll('g.state.active')) g.classList.remove('active');
  for (const p of a.activePaths || []) {
    const g = svg.querySelector('[id="' + CSS.escape('state-' + p) + '"]');
    if (g) g.classList.add('active');
  }
  card.dataset.highlighted = (a.activePaths || []).join(' ');
}

function cardFor(a) {
  let card = document.querySelector('.card[data-session="' + CSS.escape(a.sessionId) + '"]');
  if (!card) {
    card = el('section', { class: 'card', 'data-session': a.sessionId, 'data-machine': a.machineId || '' });
    const h = el('h2');
    const cols = el('div', { class: 'cols' });
    const c = el('div', { class: 'chart' });
    const side = el('div', { class: 'side' });
    cols.append(c, side);
    // A controller's own chart (from its definition): its sources, queue, workers and outcomes.
    if (a.live && a.live.chart) {
      const own = el('div', { class: 'chart own', 'data-chart': a.live.chart });
      cols.prepend(own);
      chart(a.live.chart).then((svg) => {
        own.innerHTML = svg.replace(/^[\s\S]*?(<svg)/, '$1');
        const cur = actors.get(a.sessionId);
        if (cur) highlightOwn(card, cur);
      });
    }
    card.append(h, cols);
    const panel = PANELS.find((p) => p.machineId === a.machineId && (!p.actorId || p.actorId === a.id));
    if (panel) card.append(panelFor(panel));
    main.append(card);
    order();
    chart(a.machineId).then((svg) => {
      c.innerHTML = svg.replace(/^[\\s\\S]*?(<svg)/, '$1');
      const cur = actors.get(a.sessionId);
      if (cur) highlight(card, cur);
    });
  }
  return card;
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

/** Cards in tree order (roots by start, each followed by its descendants); other actors last. */
function order() {
  const num = (id) => Number(String(id).replace(/^\\D*/, '')) || 0;
  const list = [...actors.values()].sort((x, y) => num(x.sessionId) - num(y.sessionId));
  const seen = new Set();
  const walk = (a) => {
    if (seen.has(a.sessionId)) return;
    seen.add(a.sessionId);
    const card = document.querySelector('.card[data-session="' + CSS.escape(a.sessionId) + '"]');
    if (card) main.append(card);
    for (const c of list) if (c.parentSessionId === a.sessionId) walk(c);
  };
  for (const a of list) if (!a.parentSessionId || !actors.has(a.parentSessionId)) walk(a);
  const others = document.getElementById('others');
  if (others) main.append(others);
}

/** xstate's internal event names, shortened for people. */
function eventLabel(type) {
  let m = /^xstate\\.after\\.([^.]+)\\./.exec(type);
  if (m) return 'after ' + m[1];
  m = /^xstate\\.(done|error)\\.actor\\.(.*)$/.exec(type);
  if (m) return m[1] + ': ' + m[2].replace(/^\\d+\\./, '');
  return type;
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

function ago(iso) {
  if (!iso) return 'never';
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  return s < 1 ? 'just now' : s < 120 ? Math.round(s) + ' s ago' : Math.round(s / 60) + ' min ago';
}

/** A controller's live facts (queue, keys in hand, recent reconciles, informers); others as JSON. */
function liveBlock(live) {
  const box = el('div', { class: 'live' });
  if (!live.queue) {
    box.append(el('div', { class: 'meta' }, 'live'), el('pre', {}, JSON.stringify(live, null, 1)));
    return box;
  }
  const q = live.queue;
  const fact = (label, name, value) => {
    const s = el('span', {}, label + ' ');
    s.append(el('b', { 'data-live': name }, String(value)));
    return s;
  };
  const facts = el('div', { class: 'facts' });
  facts.append(fact('queue depth', 'depth', q.depth), fact('in flight', 'inFlight', q.inFlight), fact('delayed', 'delayed', q.delayed));
  for (const [k, n] of Object.entries(live.outcomes || {})) facts.append(fact(k, 'outcome-' + k, n));
  box.append(el('div', { class: 'meta' }, 'live · ' + live.controller), facts);
  if (q.working.length) box.append(el('div', { class: 'meta' }, 'being reconciled'),
    table(['key', 'for'], q.working.map((w) => [w.key, w.forMs + ' ms']), { 'data-live': 'working' }));
  if (q.waiting.length) box.append(el('div', { class: 'meta' }, 'waiting (next first)'),
    table(['key'], q.waiting.map((k) => [k]), { 'data-live': 'waiting' }));
  box.append(el('div', { class: 'meta' }, 'recent reconciles (newest first)'), table(['key', 'outcome', 'took', 'retries', 'at', 'error'],
    live.recent.map((r) => [r.key, el('td', { class: r.outcome }, r.outcome), r.durationMs + ' ms', r.retries, r.at.slice(11, 23), r.error || '']),
    { 'data-live': 'recent' }));
  box.append(el('div', { class: 'meta' }, 'informers'), table(['resource', 'role', 'synced', 'events', 'last event'],
    live.informers.map((i) => [i.resource, i.role, i.synced ? 'yes' : 'no', i.events, ago(i.lastEventAt)]), { 'data-live': 'informers' }));
  return box;
}

/** On the controller's own chart: the queue lit while keys wait, reconcile while keys are in hand, back-off while delayed. */
function highlightOwn(card, a) {
  const svg = card.querySelector('.chart.own svg');
  if (!svg || !a.live || !a.live.queue) return;
  const q = a.live.queue;
  const lit = [q.depth > 0 ? 'queue' : '', q.inFlight > 0 ? 'reconcile' : '', q.delayed > 0 ? 'backoff' : ''].filter(Boolean);
  for (const g of svg.querySelectorAll('g.state.active')) g.classList.remove('active');
  for (const p of lit) svg.querySelector('[id="' + CSS.escape('state-' + p) + '"]')?.classList.add('active');
  card.dataset.ownHighlighted = lit.join(' ');
}

function renderLive(card, a) {
  const side = card.querySelector('.side');
  const old = side.querySelector('.live');
  if (!a.live) { old?.remove(); return; }
  const box = liveBlock(a.live);
  if (old) old.replaceWith(box); else side.prepend(box);
  card.dataset.queueDepth = String(a.live.queue ? a.live.queue.depth : '');
  highlightOwn(card, a);
}

function render(a) {
  if (a.kind !== 'machine') return renderOthers();
  const card = cardFor(a);
  card.dataset.state = a.state || '';
  card.dataset.status = a.status;
  card.classList.toggle('ended', a.status !== 'active');
  const h = card.querySelector('h2');
  h.replaceChildren(
    el('span', {}, (a.id !== a.sessionId ? a.id : a.machineId) + (a.id !== a.sessionId && a.id !== a.machineId ? ' (' + a.machineId + ')' : '')),
    el('span', { class: 'state' }, a.state || '(starting)'),
    el('span', { class: 'meta' }, [a.id !== a.sessionId ? 'id ' + a.id : '', a.systemId ? 'systemId ' + a.systemId : '', 'session ' + a.sessionId,
      a.parentSessionId ? 'parent ' + a.parentSessionId : '', a.status].filter(Boolean).join(' · ')),
  );
  const side = card.querySelector('.side');
  const rows = (a.transitions || []).slice().reverse().map((t) => {
    const tr = el('tr');
    tr.append(el('td', {}, t.at.slice(11, 23)), el('td', { title: t.event }, eventLabel(t.event)), el('td', {}, (t.from || '·') + ' → ' + t.to));
    return tr;
  });
  const transitions = el('table', { class: 'transitions' });
  transitions.append(...rows);
  side.replaceChildren(el('div', { class: 'meta' }, 'context'), el('pre', {}, JSON.stringify(a.context, null, 1)), el('div', { class: 'meta' }, 'last transitions'), transitions);
  renderLive(card, a);
  highlight(card, a);
}

function renderOthers() {
  let box = document.getElementById('others');
  if (!box) {
    box = el('section', { id: 'others', class: 'card others' });
    main.append(box);
  }
  const others = [...actors.values()].filter((a) => a.kind !== 'machine');
  box.replaceChildren(el('div', { class: 'meta' }, 'other actors (promises, callbacks): ' + others.length));
  for (const a of others.slice(-30)) box.append(el('div', {}, a.id + ' · ' + a.status + (a.parentSessionId ? ' · parent ' + a.parentSessionId : '')));
}

function remove(sessionId) {
  actors.delete(sessionId);
  document.querySelector('.card[data-session="' + CSS.escape(sessionId) + '"]')?.remove();
  renderOthers();
}

function applySnapshot(s) {
  for (const id of [...actors.keys()]) if (!s.actors.some((a) => a.sessionId === id)) remove(id);
  for (const a of s.actors) { actors.set(a.sessionId, a); render(a); }
}

function connect() {
  const es = new EventSource(new URL('events', base));
  es.addEventListener('open', () => { conn.textContent = 'live'; });
  es.addEventListener('error', () => { conn.textContent = 'reconnecting…'; });
  es.addEventListener('snapshot', (e) => applySnapshot(JSON.parse(e.data)));
  es.addEventListener('actor', (e) => { const a = JSON.parse(e.data).actor; actors.set(a.sessionId, a); render(a); });
  es.addEventListener('removed', (e) => remove(JSON.parse(e.data).sessionId));
  es.addEventListener('live', (e) => {
    const { sessionId, live } = JSON.parse(e.data);
    const a = actors.get(sessionId);
    const card = document.querySelector('.card[data-session="' + CSS.escape(sessionId) + '"]');
    if (!a || !card) return;
    a.live = live;
    renderLive(card, a);
  });
}

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
fetch(api).then((r) => r.json()).then(applySnapshot).catch(() => {}).finally(connect);
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

export function debugMachinesPage(title = 'svc · machines', panels: readonly DetailPanel[] = [], access = false): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${title}</h1><span id="conn">connecting…</span></header>
${access ? '<section id="access" class="card"></section>\n' : ''}<main></main>
<script>const PANELS = ${JSON.stringify(panels).replace(/</g, '\\u003c')};${SCRIPT}</script>
</body>
</html>
`;
}
