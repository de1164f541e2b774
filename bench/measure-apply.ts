/**
 * Server-side apply: Deployments applied by two managers at a fixed concurrency. `alpha` owns the
 * pod template (a new image tag each time), `beta` owns `spec.replicas` and forces, as controllers
 * do; every apply changes the object, so each one is a real merge, ownership update and write.
 */
import type { Dispatcher } from 'undici';
import { type LoadResult, nowMs, quantile } from './load.js';

const APPLY_HEADERS = { 'content-type': 'application/apply-patch+yaml', accept: 'application/json' };

export interface ApplyOptions {
  namespace: string;
  /** Deployments applied to, round robin (enough that workers rarely hit the same one). */
  objects: number;
  concurrency: number;
  durationMs: number;
}

function alphaConfig(name: string, version: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, labels: { app: name } },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: {
            containers: [
              { name: 'web', image: `nginx:1.${version}`, ports: [{ containerPort: 80 }], env: [{ name: 'MODE', value: 'bench' }] },
              { name: 'sidecar', image: 'envoy:1.31', args: ['--config', '/etc/envoy.yaml'] },
            ],
          },
        },
      },
    }),
  );
}

function betaConfig(name: string, replicas: number): Buffer {
  return Buffer.from(JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec: { replicas } }));
}

async function send(pool: Dispatcher, path: string, body: Buffer, expect: number[]): Promise<number> {
  const res = await pool.request({ method: 'PATCH', path, body, headers: APPLY_HEADERS });
  let bytes = 0;
  if (!expect.includes(res.statusCode)) throw new Error(`PATCH ${path}: expected ${expect.join('/')}, got ${res.statusCode}: ${(await res.body.text()).slice(0, 500)}`);
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  return bytes;
}

/** Creates the Deployments by apply, then applies alternately as alpha and beta for `durationMs`. */
export async function measureApplies(pool: Dispatcher, opts: ApplyOptions): Promise<LoadResult> {
  const base = `/apis/apps/v1/namespaces/${opts.namespace}/deployments`;
  const name = (i: number) => `app-${String(i).padStart(4, '0')}`;
  for (let i = 0; i < opts.objects; i++) await send(pool, `${base}/${name(i)}?fieldManager=alpha`, alphaConfig(name(i), 0), [200, 201]);

  const latencies: number[] = [];
  let issued = 0;
  let bytes = 0;
  const start = nowMs();
  const end = start + opts.durationMs;
  const worker = async () => {
    while (nowMs() < end) {
      const i = issued++;
      const n = name(i % opts.objects);
      const round = Math.floor(i / opts.objects);
      // Rounds over all objects alternate between the two managers.
      const beta = round % 2 === 1;
      const path = beta ? `${base}/${n}?fieldManager=beta&force=true` : `${base}/${n}?fieldManager=alpha`;
      const body = beta ? betaConfig(n, 1 + (round % 5)) : alphaConfig(n, round + 1);
      const t0 = nowMs();
      const got = await send(pool, path, body, [200]);
      bytes += got;
      latencies.push(nowMs() - t0);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (nowMs() - start) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: sorted.length,
    seconds,
    perSecond: sorted.length / seconds,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : NaN,
    bytes,
  };
}
