/**
 * Memory under storms (issue 8): a server seeded with `objects` ConfigMaps of about `objectBytes`,
 * then (1) a storm of watches asking for initial state, HTTP/1.1 and HTTP/2, some slow readers,
 * closed once every fast watch has its initial state; (2) an overload of LISTs of the seeded
 * namespace and creates at twice the in-flight limits. VmRSS at baseline (after seeding), the
 * peak of each phase, and `settleMs` after each phase ended; open times of the watches.
 */
import type { Dispatcher } from 'undici';
import { call, runLoad } from './load.js';
import { configMapBody, createNamespace } from './measure-creates.js';
import { type OverloadResult, rssBytes, runOverload, sampleRss, startWatchStorm, type WatchStormResult } from './storm-load.js';
import type { ServerProcess } from './server-process.js';

export interface StormSettings {
  objects: number;
  objectBytes: number;
  http1Watches: number;
  http2Watches: number;
  slowHttp1Watches: number;
  slowHttp2Watches: number;
  streamsPerSession: number;
  /** The server's --max-requests-inflight and --max-mutating-requests-inflight (the overload runs at twice each). */
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  overloadMs: number;
  settleMs: number;
  watchTimeoutMs: number;
}

export interface StormPhase {
  peakBytes: number;
  afterBytes: number;
}

export interface StormFigures {
  settings: StormSettings;
  baselineBytes: number;
  watches: WatchStormResult & StormPhase;
  overload: OverloadResult & StormPhase;
}

export const STORM_NAMESPACE = 'storm';

/** The apiserver flags the storm measurements assume. */
export function stormServerArgs(s: StormSettings): string[] {
  return [`--max-requests-inflight=${s.maxRequestsInflight}`, `--max-mutating-requests-inflight=${s.maxMutatingRequestsInflight}`];
}

/** A ConfigMap whose JSON is about `bytes` long. */
export function sizedConfigMap(namespace: string, name: string, bytes: number): Buffer {
  return Buffer.from(
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'storm' } }, data: { payload: 'x'.repeat(Math.max(0, bytes - 150)) } }),
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureStorms(server: ServerProcess, pool: Dispatcher, s: StormSettings, log: (m: string) => void): Promise<StormFigures> {
  const ns = STORM_NAMESPACE;
  await createNamespace(pool, ns);
  await createNamespace(pool, `${ns}-writes`);
  await runLoad({
    pool,
    concurrency: 16,
    total: s.objects,
    next: (i) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, body: sizedConfigMap(ns, `cm-${String(i).padStart(6, '0')}`, s.objectBytes) }),
    expectStatus: 201,
  });
  await call(pool, 'GET', `/api/v1/namespaces/${ns}/configmaps?limit=1`);
  await sleep(2_000);
  const baselineBytes = rssBytes(server.pid);
  log(`storms: ${s.objects} ConfigMaps of ~${s.objectBytes} B seeded; baseline RSS ${mib(baselineBytes)}`);

  const target = { url: server.url, ca: server.ca };
  let sampler = sampleRss(server.pid);
  const storm = startWatchStorm({
    ...target,
    path: `/api/v1/namespaces/${ns}/configmaps?watch=1`,
    expectInitial: s.objects,
    http1: s.http1Watches,
    http2: s.http2Watches,
    slowHttp1: s.slowHttp1Watches,
    slowHttp2: s.slowHttp2Watches,
    streamsPerSession: s.streamsPerSession,
    timeoutMs: s.watchTimeoutMs,
  });
  const watched = await storm.result;
  await storm.close();
  let peakBytes = sampler.stop();
  log(`storms: ${watched.opened}/${watched.fast} watches open (p50 ${(watched.p50OpenMs / 1000).toFixed(1)} s, all ${(watched.allOpenMs / 1000).toFixed(1)} s); peak RSS ${mib(peakBytes)}${watched.errors.length ? `; errors: ${watched.errors.slice(0, 3).join('; ')}` : ''}`);
  await sleep(s.settleMs);
  const watches = { ...watched, peakBytes, afterBytes: rssBytes(server.pid) };
  log(`storms: RSS ${s.settleMs / 1000} s after the watch storm ${mib(watches.afterBytes)}`);

  sampler = sampleRss(server.pid);
  const overloaded = await runOverload({
    ...target,
    readers: 2 * s.maxRequestsInflight,
    listPath: `/api/v1/namespaces/${ns}/configmaps`,
    writers: 2 * s.maxMutatingRequestsInflight,
    createPath: `/api/v1/namespaces/${ns}-writes/configmaps`,
    createBody: (i) => configMapBody(`${ns}-writes`, `w-${i}`),
    durationMs: s.overloadMs,
  });
  peakBytes = sampler.stop();
  log(`storms: overload ${JSON.stringify(overloaded.byStatus)} (${overloaded.errors} errors${overloaded.errorMessages.length ? `: ${overloaded.errorMessages.join('; ')}` : ''}) in ${overloaded.seconds.toFixed(1)} s; peak RSS ${mib(peakBytes)}`);
  await sleep(s.settleMs);
  const overload = { ...overloaded, peakBytes, afterBytes: rssBytes(server.pid) };
  log(`storms: RSS ${s.settleMs / 1000} s after the overload ${mib(overload.afterBytes)}`);
  return { settings: s, baselineBytes, watches, overload };
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
