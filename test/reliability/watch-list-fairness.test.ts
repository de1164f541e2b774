// Issue 23, serving initial state fairly: against the real apiserver process over HTTPS, a storm
// of watch-list watches (sendInitialEvents=true) on a namespace of ~1 KB ConfigMaps must give every
// watch all the objects and then the bookmark that ends the initial state, with no connection
// error, while a GET and /readyz probed meanwhile stay answered promptly. The same for watches from
// the cache (resourceVersion=0) and LISTs of the namespace, which stream the same volume.
// Bounded in `npm test` (1,000 objects, 200 watches); SOAK=1 runs the figures (5,000
// objects, 1,000 watches, then a storm of 2,000). Load generator: bench/watch-list-fairness.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { figureLines, runStorm, seedConfigMaps, type StormFigures, type StormKind } from '../../bench/watch-list-fairness.js';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { soak } from '../helpers/soak.js';

const OBJECTS = soak(1_000, 5_000);
const OBJECT_BYTES = 1024;
/** [label, kind, HTTP/1.1 watches, HTTP/2 watches] of each storm, in order. */
const STORMS: [string, StormKind, number, number][] = soak(
  [
    ['watch-list x200', 'watch-list', 150, 50],
    ['watch rv=0 x50', 'watch-rv0', 40, 10],
    ['list x50', 'list', 40, 10],
  ],
  [
    ['watch-list x1000', 'watch-list', 800, 200],
    ['watch-list storm x2000', 'watch-list', 1600, 400],
    ['watch rv=0 x1000', 'watch-rv0', 800, 200],
    ['list x500', 'list', 400, 100],
  ],
);
/**
 * p99 of a GET and of /readyz while a storm opens. The goal is 1 s (the full form); on a loaded
 * 2-core machine the probes share the cores with the server and with the client decrypting the
 * streams, and with under 100 probes a storm the p99 is its slowest probe (589-676 ms seen at load
 * 26-35): the bounded form allows 2 s, still far from the 13 s a GET waited before the fix.
 */
const PROBE_P99_MS = soak(2_000, 1_000);
const STORM_TIMEOUT_MS = soak(120_000, 600_000);

const test = suite('serving initial state fairly (real server)');
let server: ApiServerProcess;

/**
 * Above the largest storm of short requests (500 LISTs) and the probes: what is measured here is
 * how the streams share the server, not admission. With the default 400 read-only slots, 500 LISTs
 * opened at once got 429 whenever the clients connected faster than the first LISTs finished (100
 * of 500, and 4 GET probes, on a fast machine); the overload suite tests the limits.
 */
const READ_ONLY_INFLIGHT = 1_000;

test.before(async () => {
  server = await startApiServer({ args: [`--max-requests-inflight=${READ_ONLY_INFLIGHT}`] });
  const t0 = performance.now();
  await seedConfigMaps({ url: server.url, ca: readFileSync(server.caFile, 'utf8') }, OBJECTS, OBJECT_BYTES);
  console.log(`[figure] watch-list fairness: seeded ${OBJECTS} ConfigMaps of ~${OBJECT_BYTES} B in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

for (const [label, kind, http1, http2] of STORMS) {
  test(`${label}: every stream complete, no connection error, GET and /readyz answered meanwhile`, async () => {
    const figures: StormFigures = await runStorm({
      url: server.url,
      ca: readFileSync(server.caFile, 'utf8'),
      kind,
      expectInitial: OBJECTS,
      http1,
      http2,
      timeoutMs: STORM_TIMEOUT_MS,
    });
    for (const line of figureLines(`watch-list fairness, ${OBJECTS} objects, ${label}`, figures)) console.log(`[figure] ${line}`);
    assert.equal(figures.errorMessages, [], 'connection errors');
    assert.is(figures.errors, 0);
    assert.is(figures.wrong, 0, 'streams whose initial state was not all the objects then the end bookmark');
    assert.is(figures.complete, http1 + http2, 'streams complete');
    assert.is(figures.get.failures, 0, 'GET probes that failed');
    assert.is(figures.readyz.failures, 0, '/readyz probes that failed');
    assert.ok(figures.get.count >= 3, `GET probed ${figures.get.count} times`);
    assert.ok(figures.get.p99 <= PROBE_P99_MS, `GET p99 ${figures.get.p99.toFixed(0)} ms > ${PROBE_P99_MS} ms`);
    assert.ok(figures.readyz.p99 <= PROBE_P99_MS, `/readyz p99 ${figures.readyz.p99.toFixed(0)} ms > ${PROBE_P99_MS} ms`);
    // The server stays up and serves a fresh read after the storm.
    assert.is((await server.request('GET', '/api/v1/namespaces/fair/configmaps/cm-1')).status, 200);
  });
}

test.run();
