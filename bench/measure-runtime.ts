/**
 * The actor runtime's part of `npm run bench`: informer throughput (over HTTPS and in-process),
 * work-queue overhead of the controller machine against a plain async loop, and the memory of an
 * informer cache. It starts its own apiserver process (a fresh data folder) and then one inside
 * this process, so it can also run alone: `npm run bench -- --only=runtime`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, HttpTransport, type ApiClient } from '../src/client/index.js';
import { connectInProcess } from '../src/cli/in-process-client.js';
import { startInProcessServer } from './in-process-server.js';
import { clientWriter, measureInformerThroughput, poolWriter, type InformerThroughputFigures } from './measure-runtime-informer.js';
import { measureCacheMemory, type CacheMemoryFigures } from './measure-runtime-memory.js';
import { measureQueueOverhead, type QueueOverheadFigures, type WorkKind } from './measure-runtime-queue.js';
import { startApiServer, type ServerProcess } from './server-process.js';

export interface RuntimeSettings {
  informerChanges: number;
  writeConcurrency: number;
  noopWorkers: number;
  queueKeys: number;
  queueRounds: number;
  queueConcurrencies: number[];
  queueWorks: WorkKind[];
  cachePods: number;
  /** The controller's client: content type and client-side rate limit. */
  contentType: string;
}

export const runtimeSettings: RuntimeSettings = {
  informerChanges: 10_000,
  writeConcurrency: 32,
  noopWorkers: 5,
  queueKeys: 20_000,
  queueRounds: 9,
  queueConcurrencies: [1, 5, 20],
  queueWorks: ['no-op', 'small await'],
  cachePods: 10_000,
  contentType: 'application/vnd.svc.protobuf',
};

export interface InformerRun extends InformerThroughputFigures {
  transport: 'HTTPS' | 'in-process';
}

export interface RuntimeFigures {
  settings: RuntimeSettings;
  informer: InformerRun[];
  /** Why a transport is missing from `informer`, when one is. */
  informerNotes: string[];
  queue: QueueOverheadFigures;
  cache: CacheMemoryFigures;
}

/** The project's HTTPS client for `api`, without a client-side rate limit (the informer is measured, not the limiter). */
function httpsClient(api: ServerProcess, contentType: string): { client: ApiClient; close(): Promise<void> } {
  const transport = new HttpTransport({ server: api.url, tls: { ca: api.ca, serverName: 'localhost', insecureSkipVerify: false }, source: 'bench' }, { qps: 0, contentType });
  return { client: createClient(transport), close: () => transport.close() };
}

export async function measureRuntime(parentDir: string, log: (msg: string) => void, s: RuntimeSettings = runtimeSettings): Promise<RuntimeFigures> {
  // The queue step needs no server: run it first, on a quiet process.
  log('runtime: work-queue overhead, controller machine vs plain async loop');
  const queue = await measureQueueOverhead({ keys: s.queueKeys, rounds: s.queueRounds, concurrencies: s.queueConcurrencies, works: s.queueWorks }, log);

  const work = mkdtempSync(join(parentDir, 'svc-bench-runtime-'));
  const api = await startApiServer({ dataDir: join(work, 'data'), certDir: join(work, 'certs') });
  const conn = httpsClient(api, s.contentType);
  let https: InformerThroughputFigures;
  let cache: CacheMemoryFigures;
  try {
    const pool = api.pool(s.writeConcurrency);
    log(`runtime: informer throughput over HTTPS (${s.informerChanges} changes)`);
    https = await measureInformerThroughput({
      client: conn.client,
      writer: poolWriter(pool),
      namespace: 'bench-informer',
      count: s.informerChanges,
      concurrency: s.writeConcurrency,
      workers: s.noopWorkers,
      timeoutMs: 120_000,
    });
    log(`runtime: informer HTTPS backlog ${Math.round(https.backlogPerSecond)}/s, live ${Math.round(https.watchPerSecond)}/s (writes ${Math.round(https.writesPerSecond)}/s, lag ${https.lagMs.toFixed(0)} ms), list ${Math.round(https.listPerSecond)}/s`);
    log(`runtime: informer cache memory (${s.cachePods} pods)`);
    cache = await measureCacheMemory({ client: conn.client, pool, namespace: 'bench-cache', count: s.cachePods, concurrency: s.writeConcurrency });
    log(`runtime: cache ${Math.round(cache.bytesPerObject)} B per pod (JSON ${Math.round(cache.jsonBytesPerObject)} B)`);
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    await conn.close();
    await api.stop();
    rmSync(work, { recursive: true, force: true });
  }

  // In-process: the API server in this process, the controller calling its pipeline directly.
  log(`runtime: informer throughput in-process (${s.informerChanges} changes)`);
  const local = await startInProcessServer(parentDir);
  const controllerConn = connectInProcess(local.server, { user: { username: 'system:svc-controller-manager', groups: ['system:authenticated'] } });
  const writerConn = connectInProcess(local.server);
  let inProcess: InformerThroughputFigures;
  try {
    inProcess = await measureInformerThroughput({
      client: controllerConn.client,
      writer: clientWriter(writerConn.client),
      namespace: 'bench-informer',
      count: s.informerChanges,
      concurrency: s.writeConcurrency,
      workers: s.noopWorkers,
      timeoutMs: 120_000,
    });
  } finally {
    await controllerConn.close();
    await writerConn.close();
    await local.stop();
  }
  log(`runtime: informer in-process backlog ${Math.round(inProcess.backlogPerSecond)}/s, live ${Math.round(inProcess.watchPerSecond)}/s (writes ${Math.round(inProcess.writesPerSecond)}/s), list ${Math.round(inProcess.listPerSecond)}/s`);
  return {
    settings: s,
    informer: [
      { transport: 'HTTPS', ...https },
      { transport: 'in-process', ...inProcess },
    ],
    informerNotes: [
      'In-process: the API server runs in the bench process (as in `svc up`) and the controller calls its request pipeline through the in-process transport (src/apiserver/in-process-transport.ts); the bench writes through a second in-process client, so in the live column the writes share the process (and its one thread) with the informer.',
    ],
    queue,
    cache,
  };
}
