/**
 * Memory of an informer cache holding `count` pods: the bench creates the pods on the server,
 * then one shared informer lists them; heap used (after a full GC) before the informer starts
 * and once it has synced, divided by the pods it holds. The pods' JSON size is given beside it.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { Dispatcher } from 'undici';
import { createInformerFactory, resources, waitForSync, type ApiClient } from '../src/client/index.js';
import { runLoad } from './load.js';
import { createNamespace } from './measure-creates.js';
import { benchPodSpec } from './measure-protobuf.js';

export interface CacheMemoryOptions {
  client: ApiClient;
  pool: Dispatcher;
  namespace: string;
  count: number;
  concurrency: number;
}

export interface CacheMemoryFigures {
  count: number;
  heapBeforeBytes: number;
  heapAfterBytes: number;
  bytesPerObject: number;
  /** Average `JSON.stringify` length of a cached pod. */
  jsonBytesPerObject: number;
  /** Creating the pods (for the record). */
  createsPerSecond: number;
}

/** A full, synchronous GC (exposing `gc` at run time, so the bench needs no node flag). */
function fullGc(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

export async function measureCacheMemory(o: CacheMemoryOptions): Promise<CacheMemoryFigures> {
  if (o.count > 10_000) throw new Error('benchPodSpec names pods with 4 digits: at most 10,000');
  await createNamespace(o.pool, o.namespace);
  const path = `/api/v1/namespaces/${o.namespace}/pods`;
  const creates = await runLoad({
    pool: o.pool,
    concurrency: o.concurrency,
    total: o.count,
    expectStatus: 201,
    next: (i) => ({ method: 'POST', path, body: Buffer.from(JSON.stringify(benchPodSpec(o.namespace, i))) }),
  });

  fullGc();
  const heapBeforeBytes = process.memoryUsage().heapUsed;
  const informers = createInformerFactory(o.client);
  try {
    const informer = informers.informer(resources.pods, { namespace: o.namespace });
    await waitForSync(informer);
    if (informer.cache.size !== o.count) throw new Error(`the cache holds ${informer.cache.size} pods, expected ${o.count}`);
    fullGc();
    const heapAfterBytes = process.memoryUsage().heapUsed;
    const pods = informer.cache.list();
    const jsonBytes = pods.reduce((n, p) => n + JSON.stringify(p).length, 0);
    return {
      count: o.count,
      heapBeforeBytes,
      heapAfterBytes,
      bytesPerObject: (heapAfterBytes - heapBeforeBytes) / o.count,
      jsonBytesPerObject: jsonBytes / o.count,
      createsPerSecond: creates.perSecond,
    };
  } finally {
    informers.stop();
  }
}
