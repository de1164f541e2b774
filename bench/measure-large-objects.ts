/**
 * How long one write of a large object holds up everyone else (issue 8: no request may block the
 * server for more than a second). Against a fresh apiserver process: a ConfigMap with `labels`
 * entries (140,000 by default, short keys and empty values: 1.35 MB sent, 3.1 MB stored with its
 * managedFields, near the 3 MiB limit on a stored object) is created, applied,
 * patched and replaced; meanwhile a second connection asks for /healthz every `pingEveryMs`. Each
 * step reports its own duration and the slowest /healthz answer seen while it ran, next to the
 * slowest /healthz answer of an idle server measured in the same run.
 */
import type { Dispatcher } from 'undici';
import type { ServerProcess } from './server-process.js';

export interface LargeObjectSettings {
  labels: number;
  pingEveryMs: number;
  idleMs: number;
}

export interface LargeObjectStep {
  name: string;
  status: number;
  requestMs: number;
  /** Slowest /healthz answer while the step ran (the ping in flight when it ended included). */
  worstHealthzMs: number;
}

export interface LargeObjectFigures {
  settings: LargeObjectSettings;
  bodyBytes: number;
  /** The object as a GET returns it (with its managedFields). */
  storedBytes: number;
  idleWorstHealthzMs: number;
  steps: LargeObjectStep[];
}

const NS = 'bench-large';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

async function send(pool: Dispatcher, method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await pool.request({ method, path, body, headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }) } });
  return { status: res.statusCode, text: await res.body.text() };
}

/** Pings /healthz in a loop on its own connection; `worst()` gives and resets the slowest answer. */
function startPinger(pool: Dispatcher, everyMs: number): { worst(): Promise<number>; stop(): Promise<void> } {
  let worst = 0;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const loop = (async () => {
    while (!stopped) {
      const t = performance.now();
      inFlight = send(pool, 'GET', '/healthz').then(() => {
        worst = Math.max(worst, performance.now() - t);
      });
      await inFlight;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async worst() {
      await inFlight;
      const w = worst;
      worst = 0;
      return w;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export async function measureLargeObjects(api: ServerProcess, settings: LargeObjectSettings, log: (m: string) => void): Promise<LargeObjectFigures> {
  const pool = api.pool(1);
  const pingPool = api.pool(1);
  try {
    await send(pool, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: NS } }));
    const labels: Record<string, string> = {};
    // Short keys and empty values: the most fields an object within the size limit can hold.
    for (let i = 0; i < settings.labels; i++) labels[i.toString(36)] = '';
    const applyBody = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', labels } });
    const pinger = startPinger(pingPool, settings.pingEveryMs);
    const steps: LargeObjectStep[] = [];
    try {
      await new Promise((r) => setTimeout(r, settings.idleMs));
      const idleWorstHealthzMs = await pinger.worst();
      const step = async (name: string, run: () => Promise<{ status: number; text: string }>) => {
        await pinger.worst();
        const t = performance.now();
        const r = await run();
        const requestMs = performance.now() - t;
        const worstHealthzMs = await pinger.worst();
        if (r.status >= 300) throw new Error(`${name}: ${r.status}: ${r.text.slice(0, 300)}`);
        steps.push({ name, status: r.status, requestMs, worstHealthzMs });
        log(`${name}: ${r.status} in ${requestMs.toFixed(0)} ms, slowest /healthz meanwhile ${worstHealthzMs.toFixed(0)} ms`);
      };
      const apply = (manager: string, force = false) => send(pool, 'PATCH', `${CM}/applied?fieldManager=${manager}${force ? '&force=true' : ''}`, applyBody, 'application/apply-patch+yaml');
      await step('server-side apply (creates it)', () => apply('first'));
      await step('server-side apply again, unchanged', () => apply('first'));
      await step('server-side apply by a second manager (force)', () => apply('second', true));
      await step('POST (create)', () => send(pool, 'POST', CM, JSON.stringify({ metadata: { name: 'posted', labels } })));
      const relabelled = Object.fromEntries(Object.keys(labels).map((k) => [k, 'w']));
      await step('merge patch of every label', () => send(pool, 'PATCH', `${CM}/posted`, JSON.stringify({ metadata: { labels: relabelled } }), 'application/merge-patch+json'));
      const current = JSON.parse((await send(pool, 'GET', `${CM}/posted`)).text) as { metadata: { labels: Record<string, string> } };
      current.metadata.labels['k1'] = 'z';
      await step('PUT (replace) changing one label', () => send(pool, 'PUT', `${CM}/posted`, JSON.stringify(current)));
      let storedBytes = 0;
      await step('GET', async () => {
        const r = await send(pool, 'GET', `${CM}/posted`);
        storedBytes = Buffer.byteLength(r.text);
        return r;
      });
      await step('LIST of the namespace', () => send(pool, 'GET', CM));
      return { settings, bodyBytes: Buffer.byteLength(applyBody), storedBytes, idleWorstHealthzMs, steps };
    } finally {
      await pinger.stop();
    }
  } finally {
    await pool.close();
    await pingPool.close();
  }
}
