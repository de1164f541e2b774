/**
 * Creates: small ConfigMaps POSTed at a fixed concurrency. Also the fixtures the other steps share
 * (the ConfigMap body, namespaces), so every step writes the same kind of object.
 */
import type { Dispatcher } from 'undici';
import { call, type LoadResult, runLoad } from './load.js';

/** A small ConfigMap (about 200 bytes of JSON). */
export function configMapBody(namespace: string, name: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, labels: { app: 'bench' } },
      data: { key: 'value-'.padEnd(100, 'v') },
    }),
  );
}

/** `<prefix>-000123`: fixed width, so names sort in creation order. */
export function objectName(prefix: string, i: number): string {
  return `${prefix}-${String(i).padStart(6, '0')}`;
}

export async function createNamespace(pool: Dispatcher, name: string): Promise<void> {
  await call(pool, 'POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, [200, 201, 409]);
}

export interface CreateOptions {
  namespace: string;
  prefix: string;
  count: number;
  concurrency: number;
}

/** POSTs `count` ConfigMaps named `<prefix>-<i>` into `namespace`, `concurrency` at a time. */
export function measureCreates(pool: Dispatcher, opts: CreateOptions): Promise<LoadResult> {
  const path = `/api/v1/namespaces/${opts.namespace}/configmaps`;
  return runLoad({
    pool,
    concurrency: opts.concurrency,
    total: opts.count,
    expectStatus: 201,
    next: (i) => ({ method: 'POST', path, body: configMapBody(opts.namespace, objectName(opts.prefix, i)) }),
  });
}
