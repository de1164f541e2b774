/**
 * Services (issue 22): Service create throughput with cluster-IP allocation against a baseline in
 * the same run (headless Services, `clusterIP: None`: the same kind, path and size, no
 * allocation), in alternating rounds at the bench concurrency; then every allocated Service is
 * deleted (releasing its address) and, with the apiserver stopped, the repair loop's check runs
 * over its store: it must find no leaked address and the bitmap must hold only the `kubernetes`
 * Service's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { serviceDefinition } from '../src/api/kinds/core/service.js';
import { ResourceStore } from '../src/apiserver/resource-store.js';
import { ServiceRangeRepair, type RangeReport } from '../src/apiserver/services/repair.js';
import { ServiceAllocations } from '../src/apiserver/services/service-allocation.js';
import { openEmbeddedStore } from '../src/storage/embedded.js';
import { call, type LoadResult, median, runLoad } from './load.js';
import { createNamespace, objectName } from './measure-creates.js';
import { procCpuSeconds, startApiServer } from './server-process.js';

export interface ServicesSettings {
  concurrency: number;
  warmup: number;
  perRound: number;
  rounds: number;
  /** The cluster-IP range the apiserver is given (large enough for every allocated Service at once). */
  range: string;
}

export interface ServicesFigures {
  settings: ServicesSettings;
  allocated: LoadResult[];
  headless: LoadResult[];
  /** Median allocated / median headless creates per second. */
  ratio: number;
  /** The apiserver's CPU milliseconds per create, each round. */
  allocatedCpuMs: number[];
  headlessCpuMs: number[];
  /** Median headless / median allocated CPU per create: the share of the baseline's capacity left with allocation. */
  cpuRatio: number;
  /** Each round's allocated / headless (the two ran back to back). */
  pairRatios: number[];
  allocatedTotal: number;
  deletes: LoadResult;
  /** The repair loop's check over the stopped server's store. */
  repair: RangeReport[];
  /** Addresses the cluster-IP bitmap holds after the releases (the kubernetes Service's: 1). */
  ipsHeldAfter: number;
  /** Store writes of the cluster-IP bitmap, and the allocations and releases they carried (the server's shutdown log). */
  rangeWrites?: { writes: number; operations: number; fromReservation: number };
}

function serviceBody(namespace: string, name: string, headless: boolean): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace, labels: { app: 'bench' } },
      spec: { ...(headless ? { clusterIP: 'None' } : {}), selector: { app: 'bench' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    }),
  );
}

function creates(pool: ReturnType<Awaited<ReturnType<typeof startApiServer>>['pool']>, namespace: string, prefix: string, count: number, concurrency: number, headless: boolean): Promise<LoadResult> {
  const path = `/api/v1/namespaces/${namespace}/services`;
  return runLoad({ pool, concurrency, total: count, expectStatus: 201, next: (i) => ({ method: 'POST', path, body: serviceBody(namespace, objectName(prefix, i), headless) }) });
}

export async function measureServices(parent: string, s: ServicesSettings, log: (m: string) => void): Promise<ServicesFigures> {
  const work = mkdtempSync(join(parent, 'svc-bench-services-'));
  const dataDir = join(work, 'data');
  const api = await startApiServer({ dataDir, certDir: join(work, 'certs'), args: [`--service-cluster-ip-range=${s.range}`] });
  const allocated: LoadResult[] = [];
  const headless: LoadResult[] = [];
  const allocatedCpuMs: number[] = [];
  const headlessCpuMs: number[] = [];
  let deletes: LoadResult;
  let allocatedTotal = 0;
  try {
    const pool = api.pool(s.concurrency);
    await createNamespace(pool, 'bench-ip');
    await createNamespace(pool, 'bench-headless');
    await creates(pool, 'bench-headless', 'warm', s.warmup, s.concurrency, true);
    await creates(pool, 'bench-ip', 'warm', s.warmup, s.concurrency, false);
    allocatedTotal += s.warmup;
    for (let r = 0; r < s.rounds; r++) {
      // Alternate which goes first, so neither always runs on the warmer server.
      const order = r % 2 === 0 ? ['headless', 'allocated'] : ['allocated', 'headless'];
      for (const which of order) {
        const cpuBefore = procCpuSeconds(api.pid);
        const res = await creates(pool, which === 'headless' ? 'bench-headless' : 'bench-ip', `r${r}`, s.perRound, s.concurrency, which === 'headless');
        const cpuMs = ((procCpuSeconds(api.pid) - cpuBefore) * 1000) / s.perRound;
        (which === 'headless' ? headless : allocated).push(res);
        (which === 'headless' ? headlessCpuMs : allocatedCpuMs).push(cpuMs);
        if (which === 'allocated') allocatedTotal += s.perRound;
        log(`services round ${r + 1}: ${which} ${Math.round(res.perSecond)}/s p50 ${res.p50Ms.toFixed(2)} ms p99 ${res.p99Ms.toFixed(2)} ms, apiserver CPU ${cpuMs.toFixed(3)} ms per create`);
      }
    }
    // Release every allocated address: DELETE each Service, at the same concurrency.
    const names: string[] = [];
    for (let i = 0; i < s.warmup; i++) names.push(objectName('warm', i));
    for (let r = 0; r < s.rounds; r++) for (let i = 0; i < s.perRound; i++) names.push(objectName(`r${r}`, i));
    deletes = await runLoad({ pool, concurrency: s.concurrency, total: names.length, expectStatus: 200, next: (i) => ({ method: 'DELETE', path: `/api/v1/namespaces/bench-ip/services/${names[i]!}` }) });
    log(`deleted ${deletes.requests} allocated Services: ${Math.round(deletes.perSecond)}/s`);
    const left = JSON.parse((await call(pool, 'GET', '/api/v1/namespaces/bench-ip/services')).text) as { items: unknown[] };
    if (left.items.length !== 0) throw new Error(`${left.items.length} Services left in bench-ip`);
    await pool.close();
  } catch (err) {
    console.error(api.output().slice(-4000));
    throw err;
  } finally {
    const code = await api.stop();
    log(`apiserver stopped (exit ${code})`);
  }
  let rangeWrites: ServicesFigures['rangeWrites'];
  for (const line of api.output().split('\n')) {
    if (!line.includes('service range: store writes made') || !line.includes('/ranges/serviceips')) continue;
    const rec = JSON.parse(line) as { writes: number; operations: number; fromReservation?: number };
    rangeWrites = { writes: rec.writes, operations: rec.operations, fromReservation: rec.fromReservation ?? 0 };
  }
  // The repair loop's check, over what the stopped server left in its store.
  const logger = pino({ level: 'silent' });
  const kv = openEmbeddedStore({ dir: dataDir, logger });
  let repair: RangeReport[];
  let ipsHeldAfter: number;
  try {
    const allocations = new ServiceAllocations(kv, '/registry', { clusterIPRanges: [s.range], nodePortRange: { base: 30000, size: 2768 } }, logger);
    ipsHeldAfter = await allocations.ipAllocators[0]!.used();
    const services = new ResourceStore({ def: serviceDefinition, kv, storagePrefix: '/registry', continueTokenTtlMs: 60_000, logger });
    repair = await new ServiceRangeRepair({ allocations, services, logger }).runOnce();
  } finally {
    await kv.close();
    rmSync(work, { recursive: true, force: true });
  }
  const ratio = median(allocated.map((r) => r.perSecond)) / median(headless.map((r) => r.perSecond));
  const pairRatios = allocated.map((r, i) => r.perSecond / headless[i]!.perSecond);
  const cpuRatio = median(headlessCpuMs) / median(allocatedCpuMs);
  return { settings: s, allocated, headless, ratio, pairRatios, allocatedCpuMs, headlessCpuMs, cpuRatio, allocatedTotal, deletes: deletes!, repair, ipsHeldAfter, ...(rangeWrites ? { rangeWrites } : {}) };
}
