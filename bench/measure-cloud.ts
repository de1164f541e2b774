/**
 * The service controller against the simulated cloud in `npm run bench` (`--only=cloud`),
 * everything in this process as `svc up` runs it: the API server on its embedded store, 20
 * simulated nodes, a cloudy file in a temporary folder, and N Services of type LoadBalancer
 * created first; then the service controller (an in-process client without a rate limit) is
 * started and timed until every Service has its ingress IP:
 *
 * - at the default --concurrent-service-syncs=1 with the cloud answering at once (latencyMs 0);
 * - at 10 workers, latency 0;
 * - at 10 workers with the cloud taking 50 ms a call (the bound is then workers / latency).
 *
 * Each Service costs one reconcile (the finalizer, then the load balancer, as established), one
 * transaction of the cloud's file (lock, write, rename) and two writes (finalizer, status). Readiness
 * is counted from the controller's own Service cache (fed by its watch), not by listing 500
 * Services ten times a second: that poll cost as much CPU as the controller in this one process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { serviceController } from '../controllers/service/index.js';
import type { Service } from '../src/api/generated/kinds.js';
import { Cloudy } from '../src/cloud/cloudy/index.js';
import { createInformerFactory, resources } from '../src/client/index.js';
import type { ApiClient } from '../src/client/types.js';
import { startTestCluster } from '../src/testing/index.js';

export interface CloudBenchCase {
  workers: number;
  latencyMs: number;
  seconds: number;
  servicesPerSecond: number;
  loadBalancers: number;
  /** The machine's 1-minute load average when the case ended (other work on a shared machine shows here). */
  loadAverage: number;
  /** CPU time of this process (user + system, every thread) per Service while the controller ran: what the rate costs, whatever the load. */
  cpuMsPerService: number;
}

export interface CloudBenchFigures {
  services: number;
  nodes: number;
  cases: CloudBenchCase[];
}

async function poll(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  for (const end = performance.now() + timeoutMs; !(await check()); ) {
    if (performance.now() > end) throw new Error(`cloud bench: ${what} not reached in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function oneCase(client: ApiClient, services: number, workers: number, latencyMs: number, dir: string, log: (m: string) => void): Promise<CloudBenchCase> {
  const ns = `lb-${workers}-${latencyMs}-${services}`;
  await client.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (let i = 0; i < services; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, services - i) }, (_, j) =>
        client.create(resources.services, ns, { apiVersion: 'v1', kind: 'Service', metadata: { name: `lb-${i + j}` }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 80 }] } } as Service),
      ),
    );
  }
  const cloud = new Cloudy({ file: join(dir, `${ns}.json`) });
  await cloud.file.transact((d) => {
    d.latencyMs = latencyMs;
    d.quotas.loadBalancers = services;
  });
  const informers = createInformerFactory(client);
  const def = serviceController({ cloud, clusterName: 'bench', concurrency: workers });
  if ('off' in def) throw new Error(def.off);
  const t = performance.now();
  const cpu = process.cpuUsage();
  const running = def.start({ client, informers, logger: pino({ level: process.env['BENCH_LOG'] ?? 'silent' }) });
  const cache = informers.informer<Service>(resources.services).cache;
  const ready = () => cache.list().filter((s) => s.metadata.namespace === ns && (s.status?.loadBalancer?.ingress ?? []).length > 0).length;
  await poll(async () => ready() >= services, 600_000, `${services} load balancers (${workers} workers, ${latencyMs} ms)`);
  const seconds = (performance.now() - t) / 1000;
  const used = process.cpuUsage(cpu);
  await running.stop();
  informers.stop();
  // The API server's word, once: every Service has its ingress IP there too.
  const listed = (await client.list<Service>(resources.services, { namespace: ns })).items.filter((s) => (s.status?.loadBalancer?.ingress ?? []).length > 0).length;
  if (listed !== services) throw new Error(`cloud bench: the controller's cache saw ${services} ready Services but the API server lists ${listed}`);
  const loadBalancers = Object.keys(cloud.file.read().loadBalancers).length;
  log(`cloud: ${services} LoadBalancer Services ready in ${seconds.toFixed(2)} s (${(services / seconds).toFixed(1)}/s) at ${workers} worker(s), latency ${latencyMs} ms; ${loadBalancers} load balancers; ${((used.user + used.system) / 1000 / services).toFixed(2)} ms CPU per Service`);
  return { workers, latencyMs, seconds, servicesPerSecond: services / seconds, loadBalancers, loadAverage: loadavg()[0]!, cpuMsPerService: (used.user + used.system) / 1000 / services };
}

/** The cases measured: [workers, cloud latency ms]. */
const CASES: readonly (readonly [number, number])[] = [[1, 0], [10, 0], [10, 50]];

export async function measureCloud(services: number, log: (m: string) => void, which = CASES): Promise<CloudBenchFigures> {
  const nodes = 20;
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-cloud-'));
  const cases: CloudBenchCase[] = [];
  try {
    // A cluster per case: a controller reconciles every Service it sees, an earlier case's too.
    // First a warm-up (100 Services, not recorded), so the first case measured does not pay for
    // compiling the code paths every case runs.
    for (const [workers, latencyMs, count] of [[10, 0, 100] as const, ...which.map(([w, l]) => [w, l, services] as const)]) {
      // A /20 of service addresses: the default /24 holds fewer than 500 Services.
      const cluster = await startTestCluster({ nodes, scheduler: false, apiServerArgs: ['--service-cluster-ip-range=10.96.0.0/20'] });
      try {
        await cluster.nodes!.registered(120_000);
        const measured = await oneCase(cluster.client, count, workers, latencyMs, dir, count === services ? log : () => {});
        if (count === services) cases.push(measured);
      } finally {
        await cluster.stop();
      }
    }
    return { services, nodes, cases };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const CLOUD_HEADING = '## Cloud load balancers';

export function renderCloudSection(f: CloudBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const rows = f.cases.map((c) => `| ${c.workers} | ${c.latencyMs} ms | ${c.seconds.toFixed(2)} s | **${c.servicesPerSecond.toFixed(1)}/s** | ${c.loadBalancers === f.services ? 'yes' : `NO (${c.loadBalancers})`} | ${c.cpuMsPerService.toFixed(1)} ms | ${c.loadAverage.toFixed(2)} |`);
  const one = f.cases.find((c) => c.workers === 1 && c.latencyMs === 0);
  const ten = f.cases.find((c) => c.workers === 10 && c.latencyMs === 0);
  const ratio = one && ten ? `At the default single worker the rate is ${((one.servicesPerSecond / ten.servicesPerSecond) * 100).toFixed(0)}% of ten workers' in the same run.\n` : '';
  return `${CLOUD_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-cloud.ts. One process, as \`svc up\` runs it: the API server on its embedded store, ${f.nodes} simulated nodes,
the simulated cloud (cloudy) in a file, and ${f.services.toLocaleString('en-US')} Services of type LoadBalancer created first; then the
service controller is started (in-process client without a rate limit) and timed until every Service has its ingress IP.
A warm-up of 100 Services (not shown) runs first, so that no case pays for compiling the code they all run.
The issue's goal: at least 50/s with the cloud answering at once, and bounded by the workers and the cloud's latency.

| Workers (\`--concurrent-service-syncs\`) | Cloud latency per call | All ${f.services.toLocaleString('en-US')} ready after | Rate | One load balancer each | CPU per Service | Load average after |
|---|---|---|---|---|---|---|
${rows.join('\n')}

${ratio}
Each Service is one reconcile (the finalizer, then the load balancer, as established), one transaction of the cloud's
file (lock file, write, rename: every process using the cloud sees it) and two writes to the API server (finalizer,
status) besides its Events. Readiness is counted from the controller's own Service cache (fed by its watch) and checked
once against a list from the API server at the end. With latency, each worker waits for its calls: the rate is then
bounded by workers / latency (10 / 50 ms = 200/s), and below that bound by the API writes and the cloud's file.
`;
}
