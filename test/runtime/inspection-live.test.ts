// /debug/machines with a real leader-election machine against the real apiserver: the JSON shows
// the actor tree, the current state, a safe context summary and the transitions; the event stream
// delivers transitions as they happen; charts are served for the machines seen.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { inspectedElection, snapshotWhere, type InspectedElection } from '../helpers/inspection.js';
import { realClient } from '../helpers/real-client.js';
import type { InspectedActor, MachinesSnapshot } from '../../src/runtime/index.js';

let server: ApiServerProcess;
let conn: ReturnType<typeof realClient>;
let live: InspectedElection;
test.before(async () => {
  server = await startApiServer();
  conn = realClient(server);
  live = await inspectedElection(conn.client, 'inspected');
});
test.after(async () => {
  await live?.close();
  await conn?.close();
  await server?.stop();
  server?.cleanup();
});

const electionActor = (s: MachinesSnapshot) => s.actors.find((a) => a.machineId === 'leaderElection');

test('GET /debug/machines: the leader-election actor, its state, context summary and transitions', async () => {
  await snapshotWhere(live.inspector, (s) => electionActor(s)?.activePaths.includes('leader') === true);
  const res = await fetch(`${live.url}/debug/machines`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = (await res.json()) as MachinesSnapshot;
  assert.ok(!Number.isNaN(Date.parse(body.generatedAt)));
  assert.ok(body.machines.includes('leaderElection'));
  const le = electionActor(body)!;
  assert.ok(le, JSON.stringify(body));
  assert.is(le.kind, 'machine');
  assert.is(le.status, 'active');
  assert.is(le.parentSessionId, undefined, 'the election actor is a root');
  assert.ok(le.state?.startsWith('leader.'), le.state);
  assert.ok(le.activePaths.includes('leader'));
  // Context: the observed leader and failure count; no logger, lock, keeper or callbacks.
  assert.is(le.context['leader'], 'inspected-host_1');
  assert.is(le.context['failures'], 0);
  assert.not.ok('keeper' in le.context);
  const input = le.context['input'] as Record<string, unknown> | undefined;
  assert.ok(input === undefined || !('lock' in input || 'logger' in input || 'onStartedLeading' in input), JSON.stringify(input));
  // Transitions: init into acquiring, then acquired into leader.holding.
  assert.equal(le.transitions[0], { event: 'xstate.init', from: null, to: 'acquiring', at: le.transitions[0]!.at });
  const acquired = le.transitions.find((t) => t.from === 'acquiring');
  assert.is(acquired?.to, 'leader.holding');
  assert.match(acquired!.event, /^xstate\.done\.actor\./);
  // The tree: finished attempt promises are not listed; one in flight is, under the election.
  assert.is(le.id, 'leader-election/svc-system/inspected', 'a root actor is named after what it is');
  const children = body.actors.filter((a: InspectedActor) => a.parentSessionId === le.sessionId);
  assert.ok(children.every((c) => c.status === 'active' && le.children.includes(c.sessionId)), JSON.stringify(children));
  assert.not.ok(body.actors.some((a: InspectedActor) => a.parentSessionId !== undefined && a.status !== 'active'), 'ended children are not listed');
  const at = body.actors.indexOf(le);
  assert.ok(children.every((c) => body.actors.indexOf(c) > at), 'children come after their parent');
});

test('the transition list is capped at maxTransitions, newest last', async () => {
  const full = await snapshotWhere(live.inspector, (x) => (electionActor(x)?.transitions.length ?? 0) >= 10, 15_000);
  const first = electionActor(full)!.transitions[0]!;
  // More transitions arrive (renewals every 200 ms); the oldest fall off the front.
  const later = await snapshotWhere(live.inspector, (x) => electionActor(x)!.transitions[0]!.at !== first.at || electionActor(x)!.transitions[0]!.to !== first.to, 15_000);
  const t = electionActor(later)!.transitions;
  assert.is(t.length, 10);
  assert.ok(t.every((x, i) => i === 0 || Date.parse(x.at) >= Date.parse(t[i - 1]!.at)));
  assert.ok(!t.some((x) => x.event === 'xstate.init'), 'the oldest transition (init) was dropped');
});

/** Reads server-sent events from `url` until `until` returns true for one; returns all read. */
async function readEvents(url: string, until: (ev: { event: string; data: unknown }) => boolean, ms = 10_000) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), ms);
  const res = await fetch(url, { signal: ac.signal });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  const events: Array<{ event: string; data: unknown }> = [];
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (!event || data === undefined) continue;
        const ev = { event, data: JSON.parse(data) as unknown };
        events.push(ev);
        if (until(ev)) return events;
      }
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  throw new Error(`event stream ended: ${JSON.stringify(events).slice(0, 2000)}`);
}

test('GET /debug/machines/events: a snapshot first, then each transition as it happens', async () => {
  const events = await readEvents(`${live.url}/debug/machines/events`, (ev) => {
    const a = (ev.data as { actor?: InspectedActor }).actor;
    return ev.event === 'actor' && a?.machineId === 'leaderElection' && a.transitions.at(-1)?.to === 'leader.renewing.attempt';
  });
  assert.is(events[0]!.event, 'snapshot');
  assert.ok(electionActor(events[0]!.data as MachinesSnapshot), 'the first event is the whole snapshot');
  const last = (events.at(-1)!.data as { actor: InspectedActor }).actor;
  assert.equal(last.activePaths.sort(), ['leader', 'leader.renewing', 'leader.renewing.attempt']);
  assert.is(last.transitions.at(-1)!.from, 'leader.holding');
  assert.match(last.transitions.at(-1)!.event, /^xstate\.after\.retryPeriod\./);
});

test('GET /debug/machines/charts/<id>.svg: the chart of a machine seen, with state ids; 404 for others', async () => {
  const res = await fetch(`${live.url}/debug/machines/charts/leaderElection.svg`);
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /image\/svg\+xml/);
  const svg = await res.text();
  assert.match(svg, /<svg[\s>]/);
  for (const id of ['leader', 'follower', 'acquiring', 'leader.holding', 'leader.renewing.attempt']) {
    assert.match(svg, new RegExp(`id="state&#45;${id.replace(/\./g, '\\.')}"`), id);
  }
  const missing = await fetch(`${live.url}/debug/machines/charts/nope.svg`);
  assert.is(missing.status, 404);
  assert.match(((await missing.json()) as { message: string }).message, /no machine "nope"/);
});

test('the handler takes only its own paths, and only GET', async () => {
  assert.is((await fetch(`${live.url}/healthz`)).status, 404);
  assert.is(await (await fetch(`${live.url}/healthz`)).text(), 'not found\n', 'other paths fall through to the host');
  const post = await fetch(`${live.url}/debug/machines`, { method: 'POST' });
  assert.is(post.status, 405);
  const ui = await fetch(`${live.url}/debug/machines/ui`);
  assert.is(ui.status, 200);
  const html = await ui.text();
  assert.match(html, /<!doctype html>/);
  assert.not.match(html, /<script[^>]+src=|<link[^>]+href=|https?:\/\//, 'self-contained: no external resources');
  assert.match(ui.headers.get('content-security-policy') ?? '', /default-src 'none'/);
});

test('a stopped election is marked ended, then removed after the retention time', async () => {
  const { MachineInspector, startLeaderElection } = await import('../../src/runtime/index.js');
  const { capturedLogger } = await import('../helpers/sim.js');
  let now = Date.now();
  const inspector = new MachineInspector({ stoppedRetentionMs: 5_000, clock: { now: () => now } });
  const election = startLeaderElection({
    client: conn.client,
    config: { resourceName: 'short-lived', identity: 'short_1' },
    logger: capturedLogger().logger,
    inspect: inspector.inspect,
  });
  await snapshotWhere(inspector, (s) => electionActor(s)?.activePaths.includes('leader') === true);
  election.stop();
  const ended = await snapshotWhere(inspector, (s) => electionActor(s)?.status === 'done');
  const le = electionActor(ended)!;
  assert.is(le.state, 'stopped');
  assert.ok(le.endedAt);
  now += 4_000;
  assert.ok(electionActor(inspector.snapshot()), 'still shown within the retention time');
  now += 1_000;
  assert.is(electionActor(inspector.snapshot()), undefined, 'forgotten after it');
});

test.run();
