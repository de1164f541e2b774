/**
 * The shared informer factory: one `SharedIndexInformer` (so one list + watch) per (resource,
 * selector), however many controllers ask for it. Informers start on their first subscription
 * and stop together with the factory.
 */
import type { SvcObject } from '../api/types.js';
import type { InformerFactory, InformerSelector, SharedInformer } from './informer-types.js';
import type { ReflectorOptions } from './reflector.js';
import { SharedIndexInformer } from './shared-informer.js';
import type { ApiClient, ResourceRef } from './types.js';

/** The identity of an informer: group/version/resource plus the normalised selector. */
export function informerKey(ref: ResourceRef, selector: InformerSelector = {}): string {
  const q = new URLSearchParams();
  if (selector.namespace) q.set('namespace', selector.namespace);
  if (selector.labelSelector) q.set('labelSelector', selector.labelSelector);
  if (selector.fieldSelector) q.set('fieldSelector', selector.fieldSelector);
  return `${ref.group}/${ref.version}/${ref.resource}?${q.toString()}`;
}

export class SharedInformerFactory implements InformerFactory {
  private readonly informers = new Map<string, SharedIndexInformer>();
  private stopped = false;

  /** `opts` apply to every informer's reflector (clock, page size, back-off, logger). */
  constructor(
    private readonly client: ApiClient,
    private readonly opts: ReflectorOptions = {},
  ) {}

  informer<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, selector: InformerSelector = {}): SharedInformer<T> {
    if (this.stopped) throw new Error('the informer factory was stopped');
    const key = informerKey(ref, selector);
    let inf = this.informers.get(key);
    if (!inf) {
      // Normalise empty selector fields so they do not differ from absent ones.
      const sel: InformerSelector = {};
      if (selector.namespace) sel.namespace = selector.namespace;
      if (selector.labelSelector) sel.labelSelector = selector.labelSelector;
      if (selector.fieldSelector) sel.fieldSelector = selector.fieldSelector;
      inf = new SharedIndexInformer(this.client, ref, sel, this.opts);
      this.informers.set(key, inf);
    }
    return inf as unknown as SharedInformer<T>;
  }

  /** Every informer made so far. */
  all(): SharedInformer[] {
    return [...this.informers.values()];
  }

  /** Whether every informer made so far has synced. */
  hasSynced(): boolean {
    return this.all().every((i) => i.hasSynced());
  }

  stop(): void {
    this.stopped = true;
    for (const inf of this.informers.values()) inf.stop();
  }
}

export function createInformerFactory(client: ApiClient, opts: ReflectorOptions = {}): SharedInformerFactory {
  return new SharedInformerFactory(client, opts);
}
