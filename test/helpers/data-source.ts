/**
 * A ControllerSource fed by the test itself: objects in a Map, events pushed by hand. It stands for
 * "some informer" where a test checks the controller machine's own rules (timing, outcomes,
 * concurrency) on a simulated clock; end-to-end tests use the real informers.
 */
import { Subject } from 'rxjs';
import type { SvcObject } from '../../src/api/types.js';
import { objectKey, type IndexedCache, type InformerEvent } from '../../src/client/informer-types.js';
import type { ControllerSource } from '../../machines/controller.js';

export interface DataSource extends ControllerSource {
  put(obj: SvcObject): void;
  markSynced(): void;
  /** Ends the event stream with an error, as an informer that gave up would. */
  fail(error: Error): void;
}

export function dataSource(initial: SvcObject[] = []): DataSource {
  const objects = new Map<string, SvcObject>();
  const events$ = new Subject<InformerEvent>();
  let synced = false;
  for (const o of initial) objects.set(objectKey(o), o);
  const cache: IndexedCache = {
    get: (k) => objects.get(k),
    list: (ns) => [...objects.values()].filter((o) => ns === undefined || o.metadata.namespace === ns),
    byIndex: () => [],
    addIndex: () => {},
    get size() {
      return objects.size;
    },
  };
  return {
    events$,
    cache,
    hasSynced: () => synced,
    keysFor: (o) => [objectKey(o)],
    put(obj) {
      const key = objectKey(obj);
      const old = objects.get(key);
      objects.set(key, obj);
      events$.next(old ? { type: 'MODIFIED', object: obj, oldObject: old } : { type: 'ADDED', object: obj });
    },
    markSynced() {
      synced = true;
      events$.next({ type: 'SYNCED' });
    },
    fail(error) {
      events$.error(error);
    },
  };
}

export function cm(name: string, ns = 'default'): SvcObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } };
}
