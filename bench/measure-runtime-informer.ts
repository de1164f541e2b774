/**
 * Informer throughput: 10,000 changes through a shared informer to a no-op controller
 * (defineController, reconcile returns `done()`), with the project's own client.
 *
 * - Watch: the controller runs and has synced an empty namespace; the bench then creates `count`
 *   ConfigMaps there (`concurrency` requests in flight) and times from the first write until
 *   every key was reconciled. The writes' own rate is reported beside it: the informer cannot
 *   deliver faster than the server accepts writes, and the lag after the last write shows
 *   whether it kept up.
 * - Backlog: a controller lists an empty namespace, its watch is held back while the bench writes
 *   `count` ConfigMaps, then released: the watch resumes from the list's resourceVersion and the
 *   server replays every change. Timed from the release to the last reconcile: the informer's own
 *   pace over the watch (transport, decoding, cache, queue), not the server's write rate.
 * - List: a second factory and controller start on the same (now full) namespace and are timed
 *   until every key was reconciled: the chunked list, the cache and the queue, without writes.
 */
import pino from 'pino';
import type { Dispatcher } from 'undici';
import { Observable } from 'rxjs';
import { createInformerFactory, resources, type ApiClient } from '../src/client/index.js';
import { defineController, done } from '../src/runtime/index.js';
import { nowMs } from './load.js';
import { createNamespace, measureCreates } from './measure-creates.js';

/** How the bench makes its changes: over HTTPS with an undici pool, or through another client. */
export interface BenchWriter {
  createNamespace(name: string): Promise<void>;
  /** Creates `count` ConfigMaps in `namespace`, `concurrency` at a time; resolves to creates per second. */
  createConfigMaps(namespace: string, count: number, concurrency: number): Promise<number>;
}

/** Writes through an ApiClient (the in-process one: the writes then share the process with the informer). */
export function clientWriter(client: ApiClient): BenchWriter {
  return {
    async createNamespace(name) {
      await client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    },
    async createConfigMaps(namespace, count, concurrency) {
      const started = nowMs();
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < count; i = next++) {
          const name = `cm-${String(i).padStart(6, '0')}`;
          await client.create(resources.configmaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'bench' } }, data: { key: 'value-'.padEnd(100, 'v') } });
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return count / ((nowMs() - started) / 1000);
    },
  };
}

/** Writes through an undici pool (its own connections, as any other client of the server). */
export function poolWriter(pool: Dispatcher): BenchWriter {
  return {
    createNamespace: (name) => createNamespace(pool, name),
    createConfigMaps: async (namespace, count, concurrency) => (await measureCreates(pool, { namespace, prefix: 'cm', count, concurrency })).perSecond,
  };
}

export interface InformerThroughputOptions {
  /** The controller's client (HTTPS or in-process). */
  client: ApiClient;
  /** How the bench's own writes reach the server. */
  writer: BenchWriter;
  namespace: string;
  count: number;
  concurrency: number;
  /** The no-op controller's workers. */
  workers: number;
  timeoutMs: number;
}

export interface InformerThroughputFigures {
  count: number;
  /** Watch path: events reconciled per second, from the first write to the last reconcile. */
  watchPerSecond: number;
  /** The writes alone, per second. */
  writesPerSecond: number;
  /** Last reconcile after the last write's response. */
  lagMs: number;
  /** Backlog: events reconciled per second once a held watch is released onto `count` changes. */
  backlogPerSecond: number;
  /** List path: keys reconciled per second from a cold start on `count` objects. */
  listPerSecond: number;
  listSeconds: number;
}

const silent = pino({ level: 'silent' });

/** Passes every call through, except that the first watch opens only on `release()`. */
function heldWatchClient(inner: ApiClient): { client: ApiClient; watchAsked: Promise<void>; release(): void; lists(): number } {
  let lists = 0;
  let release!: () => void;
  let asked!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const watchAsked = new Promise<void>((r) => (asked = r));
  let first = true;
  const client: ApiClient = {
    get: (...a) => inner.get(...a),
    list: (...a) => (lists++, inner.list(...a)),
    create: (...a) => inner.create(...a),
    update: (...a) => inner.update(...a),
    updateStatus: (...a) => inner.updateStatus(...a),
    patch: (...a) => inner.patch(...a),
    delete: (...a) => inner.delete(...a),
    subresource: (...a) => inner.subresource(...a),
    deleteCollection: (...a) => inner.deleteCollection(...a),
    discover: () => inner.discover(),
    watch: (ref, opts) => {
      if (!first) return inner.watch(ref, opts);
      first = false;
      asked();
      return new Observable((sub) => {
        let s: { unsubscribe(): void } | undefined;
        let closed = false;
        void gate.then(() => {
          if (!closed) s = inner.watch(ref, opts).subscribe(sub as never);
        });
        return () => {
          closed = true;
          s?.unsubscribe();
        };
      });
    },
  } as ApiClient;
  return { client, watchAsked, release, lists: () => lists };
}

/** A no-op controller counting distinct keys; `all` resolves when `count` were reconciled. */
function noopController(client: ApiClient, namespace: string, count: number, workers: number) {
  const seen = new Set<string>();
  let finish!: () => void;
  const all = new Promise<void>((r) => (finish = r));
  const definition = defineController({
    name: 'bench-noop',
    watches: resources.configmaps,
    selector: { namespace },
    concurrency: workers,
    reconcile(key) {
      seen.add(key);
      if (seen.size === count) finish();
      return done();
    },
  });
  const informers = createInformerFactory(client);
  const running = definition.start({ client, informers, logger: silent });
  return {
    all,
    running,
    async stop() {
      await running.stop();
      informers.stop();
    },
  };
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`informer bench: ${what} not done after ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export async function measureInformerThroughput(o: InformerThroughputOptions): Promise<InformerThroughputFigures> {
  await o.writer.createNamespace(o.namespace);
  const live = noopController(o.client, o.namespace, o.count, o.workers);
  let watch: { perSecond: number; writesPerSecond: number; lagMs: number };
  try {
    await within(
      new Promise<void>((resolve) => {
        const sub = live.running.actor.subscribe((s) => s.matches('running') && (sub.unsubscribe(), resolve()));
        if (live.running.actor.getSnapshot().matches('running')) resolve();
      }),
      o.timeoutMs,
      'cache sync',
    );
    const started = nowMs();
    const writesPerSecond = await o.writer.createConfigMaps(o.namespace, o.count, o.concurrency);
    const written = nowMs();
    await within(live.all, o.timeoutMs, 'watch delivery');
    const ended = nowMs();
    watch = { perSecond: o.count / ((ended - started) / 1000), writesPerSecond, lagMs: ended - written };
  } finally {
    await live.stop();
  }

  // Backlog: a fresh namespace, the watch held while the writes land.
  const backlogNs = `${o.namespace}-backlog`;
  await o.writer.createNamespace(backlogNs);
  const held = heldWatchClient(o.client);
  const replay = noopController(held.client, backlogNs, o.count, o.workers);
  let backlogPerSecond: number;
  try {
    await within(held.watchAsked, o.timeoutMs, 'the first list');
    await o.writer.createConfigMaps(backlogNs, o.count, o.concurrency);
    const started = nowMs();
    held.release();
    await within(replay.all, o.timeoutMs, 'backlog delivery');
    backlogPerSecond = o.count / ((nowMs() - started) / 1000);
    // A 410 on the resumed watch would mean a re-list: then this measured the list path, not the watch.
    if (held.lists() > 1) throw new Error('informer bench: the held watch was too old (410) and the informer re-listed');
  } finally {
    await replay.stop();
  }

  const cold = noopController(o.client, o.namespace, o.count, o.workers);
  try {
    const started = nowMs();
    await within(cold.all, o.timeoutMs, 'list delivery');
    const seconds = (nowMs() - started) / 1000;
    return {
      count: o.count,
      watchPerSecond: watch.perSecond,
      writesPerSecond: watch.writesPerSecond,
      lagMs: watch.lagMs,
      backlogPerSecond,
      listPerSecond: o.count / seconds,
      listSeconds: seconds,
    };
  } finally {
    await cold.stop();
  }
}
