/**
 * Making pods for a controller: a pod from a template (generated name, the template's metadata, a
 * controller reference; the template itself never shared with the new object) and the slow-start
 * batches controllers create them in (1, 2, 4 ..., stopping at the first failing batch, so a
 * quota or admission refusal costs one request rather than hundreds).
 */
import type { Pod, PodTemplateSpec } from '../../src/api/generated/kinds.js';
import type { OwnerReference } from '../../src/api/types.js';

/** At most this many creations or deletions per sync (as established), the rest on the next. */
export const BURST_REPLICAS = 500;

export function podFromTemplate(template: PodTemplateSpec | undefined, o: { generateName: string; namespace: string; controllerRef: OwnerReference }): Pod {
  const meta = template?.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: o.generateName,
      namespace: o.namespace,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ...(meta.finalizers ? { finalizers: [...meta.finalizers] } : {}),
      ownerReferences: [o.controllerRef],
    },
    spec: structuredClone(template?.spec ?? { containers: [] }) as NonNullable<Pod['spec']>,
  };
}

/** Slow start: batches of 1, 2, 4 ... that together make `count`. */
export function slowStartBatches(count: number, initial = 1): number[] {
  const out: number[] = [];
  let left = count;
  for (let size = Math.min(initial, left); left > 0; size = Math.min(size * 2, left)) {
    out.push(size);
    left -= size;
  }
  return out;
}
