// Issue 8, memory held after storms: against the real server process, a storm of watches asking
// for initial state (HTTP/1.1 and HTTP/2, some never reading) must all get their initial state
// without growing the process past a bound, and after that plus an overload at twice the
// in-flight limits, RSS must be back within 300 MiB of its baseline 10 s after the load ends.
// A scaled-down bench/measure-storms.ts (same load generator, bench/storm-load.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { configMapBody } from '../../bench/measure-creates.js';
import { sizedConfigMap } from '../../bench/measure-storms.js';
import { STORM_RSS_SLACK_BYTES } from '../../bench/report-storms.js';
import { rssBytes, runOverload, sampleRss, startWatchStorm } from '../../bench/storm-load.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';

const OBJECTS = 1_000;
const INFLIGHT = 50;
const MUTATING_INFLIGHT = 25;
/** What 200 initial-state watches of a 1 MiB namespace may add at their peak (unbounded, they added about 2.5x the data). */
const WATCH_PEAK_SLACK_BYTES = 200 * 2 ** 20;
const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;

const test = suite('memory after storms (real server)');
let server: ApiServerProcess;

test.before(async () => {
  server = await startApiServer({ args: [`--max-requests-inflight=${INFLIGHT}`, `--max-mutating-requests-inflight=${MUTATING_INFLIGHT}`] });
  for (const ns of ['storm', 'storm-writes']) assert.is((await server.request('POST', '/api/v1/namespaces', { metadata: { name: ns } })).status, 201);
  for (let i = 0; i < OBJECTS; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, j) => {
        const r = await server.request('POST', '/api/v1/namespaces/storm/configmaps', sizedConfigMap('storm', `cm-${i + j}`, 1024));
        assert.is(r.status, 201, r.text);
      }),
    );
  }
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('watches with initial state all open within a memory bound; RSS returns near baseline after them and an overload', async () => {
  const pid = server.proc.pid!;
  const target = { url: server.url, ca: readFileSync(server.caFile, 'utf8') };
  await new Promise((r) => setTimeout(r, 1_000));
  const baseline = rssBytes(pid);

  const watchPeak = sampleRss(pid);
  const storm = startWatchStorm({
    ...target,
    path: '/api/v1/namespaces/storm/configmaps?watch=1',
    expectInitial: OBJECTS,
    http1: 80,
    http2: 80,
    slowHttp1: 20,
    slowHttp2: 20,
    streamsPerSession: 40,
    timeoutMs: 40_000,
  });
  const watched = await storm.result;
  const stormPeak = watchPeak.stop();
  assert.equal(watched.errors, [], 'no watch failed');
  assert.is(watched.opened, watched.fast, `${watched.opened} of ${watched.fast} watches got their whole initial state`);
  assert.is(watched.notAdded, 0, 'every initial event is ADDED');
  assert.ok(stormPeak - baseline < WATCH_PEAK_SLACK_BYTES, `the watch storm grew RSS from ${mib(baseline)} to ${mib(stormPeak)}`);

  // The overload runs while the slow watches still hold their streams.
  const overloadPeak = sampleRss(pid);
  const overload = await runOverload({
    ...target,
    readers: 2 * INFLIGHT,
    listPath: '/api/v1/namespaces/storm/configmaps',
    writers: 2 * MUTATING_INFLIGHT,
    createPath: '/api/v1/namespaces/storm-writes/configmaps',
    createBody: (i) => configMapBody('storm-writes', `w-${i}`),
    durationMs: 5_000,
  });
  await storm.close();
  const peak = overloadPeak.stop();
  assert.ok((overload.byStatus['200'] ?? 0) > 0 && (overload.byStatus['201'] ?? 0) > 0, `overload answers ${JSON.stringify(overload.byStatus)}`);

  await new Promise((r) => setTimeout(r, 10_000));
  const after = rssBytes(pid);
  console.log(`RSS baseline ${mib(baseline)}, watch storm peak ${mib(stormPeak)}, overload peak ${mib(peak)}, 10 s after ${mib(after)}; overload ${JSON.stringify(overload.byStatus)}`);
  assert.ok(after - baseline < STORM_RSS_SLACK_BYTES, `RSS ${mib(after)} 10 s after the storms is more than ${mib(STORM_RSS_SLACK_BYTES)} over its baseline ${mib(baseline)}`);
  assert.is((await server.request('GET', '/api/v1/namespaces/storm/configmaps?limit=1')).status, 200, 'the server still serves');
});

test.run();
