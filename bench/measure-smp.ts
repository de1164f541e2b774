/**
 * How long a large strategic merge patch holds the server (issue 23): against a fresh apiserver
 * process, one Deployment with one container is patched with `?dryRun=All`
 *   - by a strategic merge patch giving the container `envs` env entries (2.99 MB at 100,000),
 *   - by a JSON merge patch of the same body (which replaces the container list: the baseline),
 *   - by a strategic merge patch adding `finalizers` finalizers (a set list),
 * while a second connection asks for /readyz every 20 ms. Each step reports its status, its duration
 * and the slowest /readyz answer seen while it ran. A step that answers 504 is reported as such (the
 * request deadline fired), not as a failure.
 *
 *   node dist/bench/measure-smp.js [--envs=100000] [--finalizers=100000] [--request-timeout=60s]
 */
import type { Dispatcher } from 'undici';
import { startApiServer, tempDir } from './server-process.js';

const argv = process.argv.slice(2);
const flag = (name: string, fallback: string): string => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const ENVS = Number(flag('envs', '100000'));
const FINALIZERS = Number(flag('finalizers', '100000'));
const REQUEST_TIMEOUT = flag('request-timeout', '60s');

const DEPLOYMENT = '/apis/apps/v1/namespaces/default/deployments/d1';

async function send(pool: Dispatcher, method: 'GET' | 'POST' | 'PATCH', path: string, body?: string, contentType = 'application/json'): Promise<{ status: number; text: string }> {
  const res = await pool.request({ method, path, body, headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': contentType }) } });
  return { status: res.statusCode, text: await res.body.text() };
}

async function main(): Promise<void> {
  const api = await startApiServer({ dataDir: tempDir('smp-data-'), certDir: tempDir('smp-certs-'), args: [`--request-timeout=${REQUEST_TIMEOUT}`] });
  const pool = api.pool(1);
  const pingPool = api.pool(1);
  let worst = 0;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  const pinger = (async () => {
    while (!stopped) {
      const t = performance.now();
      inFlight = send(pingPool, 'GET', '/readyz').then(() => {
        worst = Math.max(worst, performance.now() - t);
      });
      await inFlight;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const labels = { app: 'd1' };
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd1' },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    };
    const created = await send(pool, 'POST', '/apis/apps/v1/namespaces/default/deployments', JSON.stringify(deployment));
    if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text.slice(0, 300)}`);
    const env = Array.from({ length: ENVS }, (_, i) => ({ name: `E${i}`, value: 'v' }));
    const envBody = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox', env }] } } } });
    const finBody = JSON.stringify({ metadata: { finalizers: Array.from({ length: FINALIZERS }, (_, i) => `example.com/f${i}`) } });
    const rows: string[] = [];
    const step = async (name: string, body: string, contentType: string, counts: 'env' | 'finalizers') => {
      await new Promise((r) => setTimeout(r, 300));
      worst = 0;
      const t = performance.now();
      const r = await send(pool, 'PATCH', `${DEPLOYMENT}?dryRun=All`, body, contentType);
      const ms = performance.now() - t;
      await inFlight;
      const w = worst;
      let check: string;
      if (r.status === 200) {
        const out = JSON.parse(r.text) as { spec: { template: { spec: { containers: { env?: unknown[] }[] } } }; metadata: { finalizers?: unknown[] } };
        check = counts === 'env' ? `${out.spec.template.spec.containers[0]!.env?.length ?? 0} env entries` : `${out.metadata.finalizers?.length ?? 0} finalizers`;
      } else check = (JSON.parse(r.text) as { message?: string }).message?.slice(0, 120) ?? '';
      rows.push(`| ${name} | ${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB | ${r.status} | ${ms.toFixed(0)} ms | ${w.toFixed(0)} ms | ${check} |`);
      console.error(rows[rows.length - 1]);
    };
    await step(`strategic merge patch, ${ENVS} env entries`, envBody, 'application/strategic-merge-patch+json', 'env');
    await step(`merge patch of the same body`, envBody, 'application/merge-patch+json', 'env');
    await step(`strategic merge patch, ${FINALIZERS} finalizers`, finBody, 'application/strategic-merge-patch+json', 'finalizers');
    console.log(`envs=${ENVS} finalizers=${FINALIZERS} request-timeout=${REQUEST_TIMEOUT}`);
    console.log('| Step | Body | Status | Request | Slowest /readyz meanwhile | Result |');
    console.log('|---|---:|---:|---:|---:|---|');
    for (const r of rows) console.log(r);
  } finally {
    stopped = true;
    await pinger.catch(() => {});
    await api.stop();
  }
}

await main();
