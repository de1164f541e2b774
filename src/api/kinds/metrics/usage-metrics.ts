/**
 * Resource usage (metrics.svc.io/v1beta1): PodMetrics (per container) and NodeMetrics, in the
 * shape the established metrics API serves, so the autoscaler and `top`-style tools read usage
 * where they expect it. Here they are ordinary stored objects: the simulated nodes (src/nodes)
 * write them; a pod's PodMetrics has the pod's name, namespace and labels (so a scale target's
 * selector finds them), a node's NodeMetrics the node's name.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, required } from '../../validation/field-errors.js';
import { validateResourceList } from '../../validation/quantity.js';
import { defineKind } from '../define.js';
import { mapList, obj, objectSchema, resourceList, str, time } from '../schema-dsl.js';

export const METRICS_GROUP = 'metrics.svc.io';

/** A window is a duration such as `30s` or `1m0s`. */
const WINDOW_RE = /^(\d+h)?(\d+m)?(\d+(\.\d+)?s)?$/;

function validateSample(o: SvcObject): FieldError[] {
  const errs: FieldError[] = [];
  const w = o['window'];
  if (w !== undefined && (typeof w !== 'string' || w === '' || !WINDOW_RE.test(w))) errs.push(invalidValue('window', w, 'must be a duration such as 30s or 1m0s'));
  return errs;
}

export const podMetricsDefinition = defineKind({
  group: METRICS_GROUP,
  version: 'v1beta1',
  kind: 'PodMetrics',
  plural: 'pods',
  namespaced: true,
  schema: objectSchema({
    timestamp: time(),
    window: str(),
    containers: mapList(['name'], obj({ name: str(), usage: resourceList() })),
  }),
  validate(o: SvcObject): FieldError[] {
    const errs = validateSample(o);
    const containers = o['containers'];
    if (Array.isArray(containers)) {
      containers.forEach((c: unknown, i) => {
        const rec = (c ?? {}) as Record<string, unknown>;
        if (!rec['name']) errs.push(required(`containers[${i}].name`));
        errs.push(...validateResourceList(`containers[${i}].usage`, rec['usage']));
      });
    }
    return errs;
  },
});

export const nodeMetricsDefinition = defineKind({
  group: METRICS_GROUP,
  version: 'v1beta1',
  kind: 'NodeMetrics',
  plural: 'nodes',
  namespaced: false,
  schema: objectSchema({
    timestamp: time(),
    window: str(),
    usage: resourceList(),
  }),
  validate(o: SvcObject): FieldError[] {
    return [...validateSample(o), ...validateResourceList('usage', o['usage'])];
  },
});
