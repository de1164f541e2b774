/**
 * API Priority and Fairness through a real apiserver process over HTTPS, with small concurrency
 * limits (--max-requests-inflight=8 --max-mutating-requests-inflight=2: 10 seats shared by the
 * bootstrap levels, one of them global-default's):
 *
 * - one user floods at 5x the server's capacity (50 LISTs in flight at once, each holding its seat
 *   for 3 s by asking for a resourceVersion from the future) while the controller manager reads its
 *   leader-election Lease 10 times a second: the reader's p99 stays within 2x its unloaded p99 and
 *   it gets no 429 (without priority and fairness the flood takes all 8 read slots and every other
 *   read gets 429); the flood's excess waits in its queues and, past the wait limit (a quarter of
 *   --request-timeout=28s: 7 s), gets 429 with Retry-After;
 * - system:masters (the exempt level) answers throughout;
 * - every limited response carries the X-Kubernetes-PF-FlowSchema-UID / PriorityLevel-UID headers
 *   naming the stored objects; the debug dumps show the flood queued; the metrics count it;
 * - kubectl 1.35 lists the bootstrap configuration with the established columns.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Agent, request } from 'undici';
import { type ApiServerProcess, startApiServer } from '../../helpers/apiserver.js';
import { kubeconfigFor, kubectl, KUBECTL_V35 } from '../../helpers/kubectl.js';

/**
 * The bound is 2x the reader's unloaded p99. Unloaded, a lease read takes 3-5 ms here, so
 * 2x is a few milliseconds: on a 2-core machine shared with other test files, the server's event
 * loop also serving the flood's connections (not its requests: those wait in their queues) moves
 * the reader by 5-11 ms with no unfairness at all, and with 50 reads a round the p99 is the slowest
 * one, so one garbage collection or a scheduling hiccup of the test process counts whole. The bound
 * allows 100 ms of such noise on top; a starved reader (queued behind the flood) waits seconds, far
 * beyond it.
 */
const SCHEDULING_NOISE_MS = 100;
const fairBound = (unloadedP99: number) => 2 * unloadedP99 + SCHEDULING_NOISE_MS;

const dir = mkdtempSync(join(tmpdir(), 'svc-apf-'));
const tokens = join(dir, 'tokens.csv');
writeFileSync(tokens, ['admin-token,admin,1,"system:masters"', 'flood-token,flooder,2', 'cm-token,system:svc-controller-manager,3', ''].join('\n'));
let s: ApiServerProcess;
const agents: Agent[] = [];

test.before(async () => {
  const t0 = performance.now();
  s = await startApiServer({
    args: [
      '--feature-gates=APIPriorityAndFairness=true',
      `--token-auth-file=${tokens}`,
      '--max-requests-inflight=8',
      '--max-mutating-requests-inflight=2',
      '--request-timeout=28s',
    ],
  });
  console.log(`apiserver ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

test.after(async () => {
  for (const a of agents) await a.close().catch(() => undefined);
  await s?.stop();
  s?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

interface Hit {
  status: number;
  ms: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function client(token: string): (method: string, path: string, body?: unknown, signal?: AbortSignal) => Promise<Hit> {
  const agent = new Agent({ connect: { ca: readFileSync(s.caFile, 'utf8'), servername: 'localhost' }, keepAliveTimeout: 10_000 });
  agents.push(agent);
  return async (method, path, body, signal) => {
    const started = performance.now();
    const r = await request(`${s.url}${path}`, {
      method: method as 'GET',
      dispatcher: agent,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    const text = await r.body.text();
    return { status: r.statusCode, ms: performance.now() - started, headers: r.headers, text };
  };
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.99) - 1]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` requests at 10 per second (each started on its own tick, whatever the previous one took). */
async function steadyReads(get: () => Promise<Hit>, n: number): Promise<Hit[]> {
  const pending: Promise<Hit>[] = [];
  for (let i = 0; i < n; i++) {
    pending.push(get());
    await sleep(100);
  }
  return Promise.all(pending);
}

test('a flood at 5x capacity leaves another level\'s reader unharmed; the exempt level answers throughout; headers, dumps and metrics tell what happened', async () => {
  const admin = client('admin-token');
  const flooder = client('flood-token');
  const cm = client('cm-token');
  // The controller manager's lock.
  const lease = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'svc-controller-manager', namespace: 'svc-system' }, spec: { holderIdentity: 'cm-1', leaseDurationSeconds: 15 } };
  assert.is((await admin('POST', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases', lease)).status, 201);
  const readLease = () => cm('GET', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/svc-controller-manager');
  for (let i = 0; i < 10; i++) await readLease(); // connections and caches warm

  // The UIDs the headers must name.
  const uid = async (path: string) => (JSON.parse((await admin('GET', path)).text) as { metadata: { uid: string } }).metadata.uid;
  const fcPath = '/apis/flowcontrol.apiserver.k8s.io/v1beta1';
  const want = {
    leaderElectionFs: await uid(`${fcPath}/flowschemas/system-leader-election`),
    leaderElectionPl: await uid(`${fcPath}/prioritylevelconfigurations/leader-election`),
    globalFs: await uid(`${fcPath}/flowschemas/global-default`),
    globalPl: await uid(`${fcPath}/prioritylevelconfigurations/global-default`),
    exemptFs: await uid(`${fcPath}/flowschemas/exempt`),
    exemptPl: await uid(`${fcPath}/prioritylevelconfigurations/exempt`),
  };

  const cpu = async () => Number(/^process_cpu_seconds_total (\S+)/m.exec((await admin('GET', '/metrics')).text)?.[1]);
  const statuses = (hs: Hit[]) => [...new Set(hs.map((h) => h.status))].sort();
  const floodHits: Hit[] = [];
  const adminHits: Hit[] = [];
  const slowList = '/api/v1/namespaces/default/configmaps?resourceVersion=1000000000&resourceVersionMatch=NotOlderThan';
  /** The flood: 50 slow LISTs in flight at all times (the server has 10 seats, global-default 1), until stopped (in-flight ones are abandoned). */
  const flood = () => {
    let on = true;
    const abort = new AbortController();
    setMaxListeners(100, abort.signal);
    const loops = Array.from({ length: 50 }, async () => {
      while (on) {
        const hit = await flooder('GET', slowList, undefined, abort.signal).catch(() => undefined);
        if (hit) floodHits.push(hit);
      }
    });
    const adminLoop = (async () => {
      while (on) {
        adminHits.push(await admin('GET', '/api/v1/namespaces/default'));
        await sleep(200);
      }
    })();
    return async () => {
      on = false;
      abort.abort();
      await Promise.all([...loops, adminLoop]);
    };
  };

  // The p99 of 50 reads at 10/s alone, then under the flood. This machine is shared and loaded:
  // a round whose quiet p99 was itself an outlier is measured again (at most twice); the reader
  // must get no 429 in any round.
  const rounds: string[] = [];
  let within = false;
  for (let round = 0; round < 2 && !within; round++) {
    const c0 = await cpu();
    const unloaded = await steadyReads(readLease, 50);
    const c1 = await cpu();
    assert.equal(statuses(unloaded), [200], 'unloaded reads succeed');
    assert.is(unloaded[0]!.headers['x-kubernetes-pf-flowschema-uid'], want.leaderElectionFs);
    assert.is(unloaded[0]!.headers['x-kubernetes-pf-prioritylevel-uid'], want.leaderElectionPl);
    const stop = flood();
    let loaded: Hit[] = [];
    let c2 = 0;
    let c3 = 0;
    try {
      // The dumps, mid-flood: global-default holds the flood in its queues (once its 50
      // connections are up: a loaded machine takes a while for 50 TLS handshakes).
      let levels = '';
      let globalRow = '';
      for (let i = 0; i < 100; i++) {
        levels = (await admin('GET', '/debug/api_priority_and_fairness/dump_priority_levels')).text;
        globalRow = levels.split('\n').find((l) => l.startsWith('global-default,'))!;
        if (Number(globalRow.split(',')[4]) >= 45) break;
        await sleep(100);
      }
      if (round === 0) {
        const [, activeQueues, , , waiting, executing] = globalRow.split(',').map((c) => c.trim());
        assert.ok(Number(waiting) >= 45 && Number(executing) === 1 && Number(activeQueues) >= 1, `global-default queues the flood: ${globalRow}`);
        assert.match(levels, /^exempt, +<none>, +<none>, +<none>, +<none>, +<none>$/m);
        const requests = (await admin('GET', '/debug/api_priority_and_fairness/dump_requests?includeRequestDetails=1')).text;
        assert.match(requests.split('\n')[0]!, /^PriorityLevelName, +FlowSchemaName, +QueueIndex, +RequestIndexInQueue, +FlowDistingsher, +ArriveTime, +UserName, +Verb, +APIPath/);
        assert.match(requests, /^global-default, +global-default, +\d+, +\d+, +flooder, +\S+Z, +flooder, +list, +\/api\/v1\/namespaces\/default\/configmaps/m);
        assert.match((await admin('GET', '/debug/api_priority_and_fairness/dump_queues')).text, /^global-default, +\d+, +[1-9]\d*, +/m);
      }
      c2 = await cpu();
      loaded = await steadyReads(readLease, 50);
      c3 = await cpu();
      assert.equal(statuses(loaded), [200], 'the reader gets no 429 during the flood');
      const last = round === 1;
      if (last || p99(loaded.map((h) => h.ms)) <= fairBound(p99(unloaded.map((h) => h.ms)))) {
        // The queued excess reaches its wait limit (7 s) and gets 429.
        for (let i = 0; i < 150 && !floodHits.some((h) => h.status === 429); i++) await sleep(100);
      }
    } finally {
      await stop();
    }
    const before = p99(unloaded.map((h) => h.ms));
    const during = p99(loaded.map((h) => h.ms));
    rounds.push(`unloaded p99 ${before.toFixed(1)} ms, during the flood ${during.toFixed(1)} ms (server CPU ${(c1 - c0).toFixed(2)} s, ${(c3 - c2).toFixed(2)} s)`);
    within = during <= fairBound(before);
  }
  console.log(`lease reads: ${rounds.join('; ')}; flood requests ${floodHits.length}, admin requests ${adminHits.length}`);
  assert.ok(within, `p99 during the flood within 2x the unloaded p99 (+${SCHEDULING_NOISE_MS} ms): ${rounds.join('; ')}`);

  assert.ok(adminHits.length >= 10 && adminHits.every((h) => h.status === 200), `system:masters answered throughout: ${statuses(adminHits).join(',')}`);
  assert.is(adminHits[0]!.headers['x-kubernetes-pf-flowschema-uid'], want.exemptFs);
  assert.is(adminHits[0]!.headers['x-kubernetes-pf-prioritylevel-uid'], want.exemptPl);

  // The flood: one seat's worth executed (504 after waiting for the future version), the excess
  // waited its 7 s and got the established 429.
  const rejected = floodHits.filter((h) => h.status === 429);
  assert.ok(rejected.length > 0 && floodHits.some((h) => h.status === 504), `flood statuses ${statuses(floodHits).join(',')}`);
  assert.is(rejected[0]!.headers['retry-after'], '1');
  assert.is((JSON.parse(rejected[0]!.text) as { message: string }).message, 'Too many requests, please try again later.');
  assert.is(rejected[0]!.headers['x-kubernetes-pf-flowschema-uid'], want.globalFs);
  assert.is(rejected[0]!.headers['x-kubernetes-pf-prioritylevel-uid'], want.globalPl);

  const metrics = (await admin('GET', '/metrics')).text;
  const value = (re: RegExp) => Number(re.exec(metrics)?.[1] ?? 0);
  assert.ok(value(/^apiserver_flowcontrol_rejected_requests_total\{flow_schema="global-default",priority_level="global-default",reason="time-out"\} (\d+)/m) >= rejected.length);
  assert.ok(value(/^apiserver_flowcontrol_dispatched_requests_total\{flow_schema="system-leader-election",priority_level="leader-election"\} (\d+)/m) >= 110);
  assert.is(value(/^apiserver_flowcontrol_request_concurrency_limit\{priority_level="global-default"\} (\d+)/m), 1);
});

test('kubectl 1.35 lists the bootstrap configuration with the established columns, schemas in matching order; a schema naming no level is Dangling', async () => {
  const kc = kubeconfigFor(s);
  const admin = client('admin-token');
  const mine = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1',
    kind: 'FlowSchema',
    metadata: { name: 'mine' },
    spec: { priorityLevelConfiguration: { name: 'no-such-level' }, rules: [{ subjects: [{ kind: 'User', user: { name: 'flooder' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }] },
  };
  const created = await admin('POST', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas', mine);
  assert.is(created.status, 201, created.text);
  assert.is((JSON.parse(created.text) as { spec: { matchingPrecedence: number } }).spec.matchingPrecedence, 1000, 'defaulted');
  let condition: Record<string, string> | undefined;
  for (let i = 0; i < 100 && !condition; i++) {
    const got = JSON.parse((await admin('GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/mine')).text) as { status?: { conditions?: Record<string, string>[] } };
    condition = got.status?.conditions?.find((c) => c['type'] === 'Dangling');
    if (!condition) await sleep(100);
  }
  assert.equal({ ...condition, lastTransitionTime: undefined }, {
    type: 'Dangling', status: 'True', reason: 'NotFound', lastTransitionTime: undefined,
    message: 'This FlowSchema references the PriorityLevelConfiguration object named "no-such-level" but there is no such object',
  });
  // Skipped: the flooder's requests still go to global-default.
  const flooderGet = await client('flood-token')('GET', '/version');
  const globalFs = (JSON.parse((await admin('GET', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/flowschemas/global-default')).text) as { metadata: { uid: string } }).metadata.uid;
  assert.is(flooderGet.headers['x-kubernetes-pf-flowschema-uid'], globalFs);
  const invalid = await admin('POST', '/apis/flowcontrol.apiserver.k8s.io/v1beta1/prioritylevelconfigurations', { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', kind: 'PriorityLevelConfiguration', metadata: { name: 'bad' }, spec: { type: 'Exempt' } });
  assert.is(invalid.status, 422);
  assert.match(invalid.text, /type must be 'Exempt' if and only if name is 'exempt'/);
  const [fs, pl] = await Promise.all([
    kubectl(kc, ['--token=admin-token', 'get', 'flowschemas'], 30_000, { bin: KUBECTL_V35 }),
    kubectl(kc, ['--token=admin-token', 'get', 'prioritylevelconfigurations'], 30_000, { bin: KUBECTL_V35 }),
  ]);
  assert.is(fs.code, 0, fs.stderr);
  const lines = fs.stdout.trim().split('\n');
  assert.match(lines[0]!, /^NAME +PRIORITYLEVEL +MATCHINGPRECEDENCE +DISTINGUISHERMETHOD +AGE +MISSINGPL$/);
  assert.equal(lines.slice(1).map((l) => l.split(/ +/)[0]), [
    'exempt', 'probes', 'system-leader-election', 'endpoint-controller', 'workload-leader-election', 'system-node-high', 'system-nodes',
    'svc-controller-manager', 'svc-scheduler', 'svc-system-service-accounts', 'mine', 'service-accounts', 'global-default', 'catch-all',
  ]);
  assert.match(fs.stdout, /^mine +no-such-level +1000 +<none> +\S+ +True$/m);
  assert.match(fs.stdout, /^catch-all +catch-all +10000 +ByUser +\S+ +False$/m);
  assert.is(pl.code, 0, pl.stderr);
  assert.match(pl.stdout, /^NAME +TYPE +ASSUREDCONCURRENCYSHARES +QUEUES +HANDSIZE +QUEUELENGTHLIMIT +AGE$/m);
  assert.match(pl.stdout, /^exempt +Exempt +<none> +<none> +<none> +<none> +\S+$/m);
  assert.match(pl.stdout, /^leader-election +Limited +10 +16 +4 +50 +\S+$/m);
});

test.run();
