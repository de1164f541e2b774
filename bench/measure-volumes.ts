/**
 * The volumes benchmark (BENCH_ONLY=volumes): the persistentvolume-binder alone against the API
 * server in one process (the test cluster: RBAC on, the binder as its own service account, the
 * default admission plugins, no scheduler, no nodes), then:
 *
 * 1. static binding: N Available volumes of assorted sizes exist; N claims are created at once
 *    (32 in flight): time from the first create to every claim Bound, i.e. claims bound per second;
 * 2. dynamic provisioning: N claims of the default class (svc.io/simulated): time to every claim
 *    Bound to its provisioned volume;
 * 3. the server's ceiling for this work, in the same run (the machine's load moves; so it is taken
 *    just before the static claims and again after the provisioned ones, and the mean is used):
 *    5 x N updates of the static volumes (an annotation), five in a row per volume and 64 volumes
 *    at a time, as a static bind's create and four writes are; claims/s cannot exceed these
 *    writes/s / 5 however the binder works, and the ratio says how much of the ceiling it reaches.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '../src/api/generated/kinds.js';
import { resources } from '../src/client/index.js';
import type { ApiClient } from '../src/client/types.js';
import { ensureDefaultStorageClass } from '../src/cli/svc-up-storage.js';
import { startTestCluster } from '../src/testing/index.js';

export interface VolumesBenchFigures {
  claims: number;
  staticBindS: number;
  dynamicBindS: number;
  /** The server's rate of volume updates, five in a row per volume, 64 volumes at once (writes/s): before, after, mean. */
  ceilingBeforeWritesPerS: number;
  ceilingAfterWritesPerS: number;
  ceilingWritesPerS: number;
}

const CEILING_WORKERS = 64;
const WRITES_PER_STATIC_BIND = 5;

const IN_FLIGHT = 32;

/** `make(0..n-1)`, IN_FLIGHT at a time. */
export async function inBatches(n: number, make: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < n) await make(next++);
  }));
}

/** The i-th Available static volume: 1-10 Gi, class `manual` (claim `c-i` asks for its size). */
export const staticVolume = (i: number): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: `pv-${i}` },
  spec: { capacity: { storage: `${1 + (i % 10)}Gi` }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: `/tmp/pv-${i}` } },
});

/** Resolves when n claims of the namespace are Bound (a watch, so the measuring costs the server little). */
export function allBound(client: ApiClient, namespace: string, n: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const bound = new Set<string>();
    const timer = setTimeout(() => {
      sub.unsubscribe();
      reject(new Error(`only ${bound.size} of ${n} claims bound in ${timeoutMs} ms`));
    }, timeoutMs);
    const sub = client.watch<PersistentVolumeClaim>(resources.persistentvolumeclaims, { namespace }).subscribe({
      error: (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
      next: (ev) => {
        if (ev.object.status?.phase === 'Bound') bound.add(ev.object.metadata.name ?? '');
        if (bound.size >= n) {
          clearTimeout(timer);
          sub.unsubscribe();
          resolve();
        }
      },
    });
  });
}

/** A ReadWriteOnce claim of `size`, of `storageClassName` when given. */
export const claim = (name: string, size: string, storageClassName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(storageClassName !== undefined ? { storageClassName } : {}) },
});

export async function measureVolumes(n: number, log: (m: string) => void): Promise<VolumesBenchFigures> {
  const cluster = await startTestCluster({ controllers: ['persistentvolume-binder'], scheduler: false, apiServerArgs: ['--data-dir-fsync=false'] });
  try {
    const c = cluster.client;
    for (const ns of ['static', 'dynamic']) await c.create(resources.namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    await inBatches(n, (i) => c.create<PersistentVolume>(resources.persistentvolumes, '', staticVolume(i)));
    log(`volumes: ${n} volumes created`);
    const ceilingBeforeWritesPerS = await measureCeiling(c, n);
    log(`volumes: the server's ceiling before: ${Math.round(ceilingBeforeWritesPerS)} volume updates/s`);
    const staticDone = allBound(c, 'static', n, 300_000);
    const t0 = performance.now();
    await inBatches(n, (i) => c.create(resources.persistentvolumeclaims, 'static', claim(`c-${i}`, `${1 + (i % 10)}Gi`, 'manual')));
    log(`volumes: ${n} claims created in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    await staticDone;
    const staticBindS = (performance.now() - t0) / 1000;
    log(`volumes: ${n} static claims bound in ${staticBindS.toFixed(2)} s`);
    await ensureDefaultStorageClass(c);
    const dynamicDone = allBound(c, 'dynamic', n, 300_000);
    const t1 = performance.now();
    await inBatches(n, (i) => c.create(resources.persistentvolumeclaims, 'dynamic', claim(`d-${i}`, '1Gi')));
    await dynamicDone;
    const dynamicBindS = (performance.now() - t1) / 1000;
    log(`volumes: ${n} provisioned claims bound in ${dynamicBindS.toFixed(2)} s`);
    const ceilingAfterWritesPerS = await measureCeiling(c, n);
    const ceilingWritesPerS = (ceilingBeforeWritesPerS + ceilingAfterWritesPerS) / 2;
    log(`volumes: the server's ceiling after: ${Math.round(ceilingAfterWritesPerS)} volume updates/s; mean ${Math.round(ceilingWritesPerS / WRITES_PER_STATIC_BIND)} claims/s at ${WRITES_PER_STATIC_BIND} writes each`);
    return { claims: n, staticBindS, dynamicBindS, ceilingBeforeWritesPerS, ceilingAfterWritesPerS, ceilingWritesPerS };
  } finally {
    await cluster.stop();
  }
}

/** Updates of the n static volumes, WRITES_PER_STATIC_BIND in a row each, CEILING_WORKERS volumes at a time: writes/s. */
async function measureCeiling(c: ApiClient, n: number): Promise<number> {
  let next = 0;
  const t = performance.now();
  await Promise.all(Array.from({ length: CEILING_WORKERS }, async () => {
    while (next < n) {
      let v = await c.get<PersistentVolume>(resources.persistentvolumes, '', `pv-${next++}`);
      for (let k = 0; k < WRITES_PER_STATIC_BIND; k++) {
        v = await c.update<PersistentVolume>(resources.persistentvolumes, '', { ...v, metadata: { ...v.metadata, annotations: { ...v.metadata.annotations, 'bench.svc.io/write': String(k) } } });
      }
    }
  }));
  return (n * WRITES_PER_STATIC_BIND) / ((performance.now() - t) / 1000);
}
