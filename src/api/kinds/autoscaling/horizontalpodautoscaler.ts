/**
 * HorizontalPodAutoscalers: scale a target by metrics. +status. Stored as autoscaling/v2 (the
 * established preferred version since 1.23, with `metrics` and `behavior`); autoscaling/v2beta2
 * serves the same fields, and autoscaling/v1 (the spec's version) a CPU target only, converted as
 * established: `targetCPUUtilizationPercentage` is the Resource cpu Utilization metric, and what v1
 * cannot say rides in the `autoscaling.alpha.svc.io/*` annotations so a v1 round trip keeps it.
 */
import type { FieldError } from '../../status.js';
import type { SchemaNode, SvcObject } from '../../types.js';
import { invalidEach, invalidValue, oneOf, positive, required } from '../../validation/field-errors.js';
import { isValidPathSegmentName } from '../../validation/names.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, conditions, int32, int64, labelSelector, obj, objectSchema, quantity, str, time } from '../schema-dsl.js';
import { servedVersion } from '../../versions.js';
import { horizontalPodAutoscalerColumns } from '../columns/scaling.js';

/** Annotations carrying what autoscaling/v1 has no field for (the established names, `svc` spelling). */
export const HPA_METRICS_ANNOTATION = 'autoscaling.alpha.svc.io/metrics';
export const HPA_CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.svc.io/current-metrics';
export const HPA_BEHAVIOR_ANNOTATION = 'autoscaling.alpha.svc.io/behavior';
export const HPA_CONDITIONS_ANNOTATION = 'autoscaling.alpha.svc.io/conditions';

/** The target used when no metric is given (established DefaultCPUUtilization). */
export const DEFAULT_CPU_UTILIZATION = 80;

const crossVersionObjectReference = (): SchemaNode => obj({ kind: str(), name: str(), apiVersion: str() });
const metricIdentifier = (): SchemaNode => obj({ name: str(), selector: labelSelector() });
const metricTarget = (): SchemaNode => obj({ type: str(), value: quantity(), averageValue: quantity(), averageUtilization: int32() });
const metricValueStatus = (): SchemaNode => obj({ value: quantity(), averageValue: quantity(), averageUtilization: int32() });
const scalingRules = (): SchemaNode =>
  obj({ stabilizationWindowSeconds: int32(), selectPolicy: str(), policies: atomicList(obj({ type: str(), value: int32(), periodSeconds: int32() })) });

const METRIC_SOURCES: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource', External: 'external' };

function validateScaleTarget(spec: Record<string, unknown>, errs: FieldError[]): void {
  const ref = asRecord(spec['scaleTargetRef']);
  for (const k of ['kind', 'name']) {
    const v = ref[k];
    if (!v) errs.push(required(`spec.scaleTargetRef.${k}`));
    else if (typeof v === 'string') errs.push(...invalidEach(`spec.scaleTargetRef.${k}`, v, isValidPathSegmentName(v)));
  }
  const min = spec['minReplicas'];
  const max = spec['maxReplicas'];
  errs.push(...positive('spec.minReplicas', min));
  if (max === undefined || max === null) errs.push(required('spec.maxReplicas'));
  else if (typeof max === 'number') {
    if (max < 1) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than 0'));
    else if (typeof min === 'number' && max < min) errs.push(invalidValue('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  }
}

export const horizontalPodAutoscalerDefinition = defineKind({
  group: 'autoscaling',
  version: 'v2',
  kind: 'HorizontalPodAutoscaler',
  plural: 'horizontalpodautoscalers',
  namespaced: true,
  shortNames: ['hpa'],
  tableColumns: horizontalPodAutoscalerColumns,
  categories: ['all'],
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({
      scaleTargetRef: crossVersionObjectReference(),
      minReplicas: int32(),
      maxReplicas: int32(),
      metrics: atomicList(
        obj({
          type: str(),
          object: obj({ describedObject: crossVersionObjectReference(), target: metricTarget(), metric: metricIdentifier() }),
          pods: obj({ metric: metricIdentifier(), target: metricTarget() }),
          resource: obj({ name: str(), target: metricTarget() }),
          containerResource: obj({ name: str(), target: metricTarget(), container: str() }),
          external: obj({ metric: metricIdentifier(), target: metricTarget() }),
        }),
      ),
      behavior: obj({ scaleUp: scalingRules(), scaleDown: scalingRules() }),
    }),
    status: obj({
      observedGeneration: int64(),
      lastScaleTime: time(),
      currentReplicas: int32(),
      desiredReplicas: int32(),
      currentMetrics: atomicList(
        obj({
          type: str(),
          object: obj({ metric: metricIdentifier(), current: metricValueStatus(), describedObject: crossVersionObjectReference() }),
          pods: obj({ metric: metricIdentifier(), current: metricValueStatus() }),
          resource: obj({ name: str(), current: metricValueStatus() }),
          containerResource: obj({ name: str(), current: metricValueStatus(), container: str() }),
          external: obj({ metric: metricIdentifier(), current: metricValueStatus() }),
        }),
      ),
      conditions: conditions(),
    }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'minReplicas', 1);
    if (asArray(spec['metrics']).length === 0) {
      spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: DEFAULT_CPU_UTILIZATION } } }];
    }
    // A behavior given is filled with the established rules for what it leaves out.
    if (spec['behavior'] !== undefined && spec['behavior'] !== null) {
      const behavior = asRecord(spec['behavior']);
      const up = (behavior['scaleUp'] = asRecord(behavior['scaleUp'] ?? {}));
      setDefault(up, 'stabilizationWindowSeconds', 0);
      setDefault(up, 'selectPolicy', 'Max');
      setDefault(up, 'policies', [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]);
      const down = (behavior['scaleDown'] = asRecord(behavior['scaleDown'] ?? {}));
      setDefault(down, 'stabilizationWindowSeconds', 300);
      setDefault(down, 'selectPolicy', 'Max');
      setDefault(down, 'policies', [{ type: 'Percent', value: 100, periodSeconds: 15 }]);
    }
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    validateScaleTarget(spec, errs);
    asArray(spec['metrics']).forEach((raw, i) => {
      const m = asRecord(raw);
      const p = `spec.metrics[${i}]`;
      const type = m['type'];
      if (!type) return errs.push(required(`${p}.type`, 'must specify a metric source type'));
      const own = METRIC_SOURCES[String(type)];
      if (!own) return errs.push(...oneOf(`${p}.type`, type, Object.keys(METRIC_SOURCES)));
      const given = Object.values(METRIC_SOURCES).filter((k) => m[k] !== undefined && m[k] !== null);
      if (given.length > 1) errs.push(invalidValue(`${p}.type`, type, 'must populate the given metric source only'));
      if (!given.includes(own)) return errs.push(required(`${p}.${own}`, 'must populate information for the given metric source'));
      const target = asRecord(asRecord(m[own])['target']);
      const t = target['type'];
      if (!t) errs.push(required(`${p}.${own}.target.type`, 'must specify a metric target type'));
      else errs.push(...oneOf(`${p}.${own}.target.type`, t, ['Utilization', 'Value', 'AverageValue']));
      const u = target['averageUtilization'];
      if (typeof u === 'number' && u < 1) errs.push(invalidValue(`${p}.${own}.target.averageUtilization`, u, 'must be greater than 0'));
      return undefined;
    });
    return errs;
  },
});

/** autoscaling/v2beta2: the same fields as v2. */
export const horizontalPodAutoscalerV2beta2Definition = servedVersion(horizontalPodAutoscalerDefinition, { version: 'v2beta2' });

function isCpuUtilization(m: unknown): boolean {
  const r = asRecord(asRecord(m)['resource']);
  return asRecord(m)['type'] === 'Resource' && r['name'] === 'cpu' && typeof asRecord(r['target'])['averageUtilization'] === 'number';
}

function isCpuUtilizationStatus(m: unknown): boolean {
  const r = asRecord(asRecord(m)['resource']);
  return asRecord(m)['type'] === 'Resource' && r['name'] === 'cpu' && typeof asRecord(r['current'])['averageUtilization'] === 'number';
}

function takeAnnotation(o: SvcObject, key: string): unknown {
  const a = o.metadata.annotations;
  const raw = a?.[key];
  if (raw === undefined) return undefined;
  delete a![key];
  if (Object.keys(a!).length === 0) delete o.metadata.annotations;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function putAnnotation(o: SvcObject, key: string, value: unknown): void {
  o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [key]: JSON.stringify(value) };
}

/** v2 (stored) -> v1: the CPU utilization target as the field, the rest in annotations. */
function hpaToV1(o: SvcObject): void {
  const spec = asRecord(o.spec);
  const metrics = asArray(spec['metrics']);
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  delete spec['metrics'];
  if (cpu) spec['targetCPUUtilizationPercentage'] = asRecord(asRecord(asRecord(cpu)['resource'])['target'])['averageUtilization'];
  if (others.length) putAnnotation(o, HPA_METRICS_ANNOTATION, others);
  if (spec['behavior'] !== undefined && spec['behavior'] !== null) putAnnotation(o, HPA_BEHAVIOR_ANNOTATION, spec['behavior']);
  delete spec['behavior'];
  const status = o['status'] === undefined ? undefined : asRecord(o['status']);
  if (!status) return;
  const current = asArray(status['currentMetrics']);
  delete status['currentMetrics'];
  const cpuNow = current.find(isCpuUtilizationStatus);
  if (cpuNow) status['currentCPUUtilizationPercentage'] = asRecord(asRecord(asRecord(cpuNow)['resource'])['current'])['averageUtilization'];
  // The whole list is kept: the CPU entry's value quantity has no v1 field either.
  if (current.length) putAnnotation(o, HPA_CURRENT_METRICS_ANNOTATION, current);
  const conds = asArray(status['conditions']);
  delete status['conditions'];
  if (conds.length) putAnnotation(o, HPA_CONDITIONS_ANNOTATION, conds);
}

/** v1 -> v2 (stored): the converse of hpaToV1. */
function hpaFromV1(o: SvcObject): void {
  const spec = asRecord(o.spec);
  const target = spec['targetCPUUtilizationPercentage'];
  delete spec['targetCPUUtilizationPercentage'];
  const others = asArray(takeAnnotation(o, HPA_METRICS_ANNOTATION));
  const metrics = typeof target === 'number'
    ? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: target } } }, ...others]
    : others;
  if (metrics.length) spec['metrics'] = metrics;
  const behavior = takeAnnotation(o, HPA_BEHAVIOR_ANNOTATION);
  if (behavior !== undefined) spec['behavior'] = behavior;
  const current = asArray(takeAnnotation(o, HPA_CURRENT_METRICS_ANNOTATION));
  const conds = asArray(takeAnnotation(o, HPA_CONDITIONS_ANNOTATION));
  if (o['status'] === undefined || o['status'] === null) return;
  const status = asRecord(o['status']);
  const cpuNow = status['currentCPUUtilizationPercentage'];
  delete status['currentCPUUtilizationPercentage'];
  const kept = current.filter((m) => !isCpuUtilizationStatus(m));
  const cpuKept = current.find(isCpuUtilizationStatus);
  const cpuEntry = typeof cpuNow === 'number'
    ? { type: 'Resource', resource: { name: 'cpu', current: { ...asRecord(asRecord(asRecord(cpuKept)['resource'])['current']), averageUtilization: cpuNow } } }
    : undefined;
  const all = cpuEntry ? [cpuEntry, ...kept] : kept;
  if (all.length) status['currentMetrics'] = all;
  if (conds.length) status['conditions'] = conds;
}

/** autoscaling/v1, the spec's version: a CPU utilization target. */
export const horizontalPodAutoscalerV1Definition = servedVersion(horizontalPodAutoscalerDefinition, {
  version: 'v1',
  schema: objectSchema({
    spec: obj({
      scaleTargetRef: crossVersionObjectReference(),
      minReplicas: int32(),
      maxReplicas: int32(),
      targetCPUUtilizationPercentage: int32(),
    }),
    status: obj({ observedGeneration: int64(), lastScaleTime: time(), currentReplicas: int32(), desiredReplicas: int32(), currentCPUUtilizationPercentage: int32() }),
  }),
  defaults(o: SvcObject): void {
    setDefault(section(o), 'minReplicas', 1);
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs: FieldError[] = [];
    validateScaleTarget(spec, errs);
    const t = spec['targetCPUUtilizationPercentage'];
    if (typeof t === 'number' && t < 1) errs.push(invalidValue('spec.targetCPUUtilizationPercentage', t, 'must be greater than 0'));
    return errs;
  },
  toStorage: hpaFromV1,
  fromStorage: hpaToV1,
});
