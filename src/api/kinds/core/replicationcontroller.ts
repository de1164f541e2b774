/** ReplicationControllers (core/v1): the original replica keeper, with a map selector. +status, +scale. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, nonNegative, required } from '../../validation/field-errors.js';
import { validateLabels } from '../../validation/object-meta.js';
import { labelSelectorFromMap } from '../../labels.js';
import { asRecord, defineKind, fieldString, section, setDefault } from '../define.js';
import { conditions, int32, int64, obj, objectMeta, objectSchema, openObj, stringMap } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { defaultPodTemplate, podSpecSchema, validatePodTemplate } from './pod-spec.js';

export const replicationControllerDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'ReplicationController',
  plural: 'replicationcontrollers',
  namespaced: true,
  shortNames: ['rc'],
  categories: ['all'],
  subresources: ['status', 'scale'],
  scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'spec.selector' },
  tracksGeneration: true,
  watchCacheSize: HEURISTIC_WATCH_CACHE_SIZES.replicationcontrollers,
  schema: objectSchema({
    spec: obj({
      replicas: int32(),
      minReadySeconds: int32(),
      selector: stringMap('atomic'),
      template: obj({ metadata: objectMeta(), spec: podSpecSchema() }),
    }),
    status: openObj({
      replicas: int32(),
      fullyLabeledReplicas: int32(),
      readyReplicas: int32(),
      availableReplicas: int32(),
      observedGeneration: int64(),
      conditions: conditions(),
    }),
  }),
  fields: (o) => ({ 'status.replicas': fieldString(o, 'status', 'replicas') || '0' }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'replicas', 1);
    // The selector and the object's labels default to the template's labels.
    const tmplLabels = asRecord(asRecord(asRecord(spec['template'])['metadata'])['labels']);
    if (Object.keys(tmplLabels).length) {
      if (!spec['selector'] || Object.keys(asRecord(spec['selector'])).length === 0) spec['selector'] = { ...tmplLabels };
      if (!o.metadata.labels || Object.keys(o.metadata.labels).length === 0) o.metadata.labels = { ...(tmplLabels as Record<string, string>) };
    }
    defaultPodTemplate(spec['template']);
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = nonNegative('spec.replicas', spec['replicas']);
    errs.push(...nonNegative('spec.minReadySeconds', spec['minReadySeconds']));
    const selector = asRecord(spec['selector']);
    if (Object.keys(selector).length === 0) errs.push(required('spec.selector'));
    else errs.push(...validateLabels(selector, 'spec.selector'));
    if (spec['template'] === undefined || spec['template'] === null) {
      errs.push(required('spec.template'));
      return errs;
    }
    const labels = asRecord(asRecord(asRecord(spec['template'])['metadata'])['labels']) as Record<string, string>;
    if (Object.keys(selector).length && !labelSelectorFromMap(selector as Record<string, string>).matches(labels)) {
      errs.push(invalidValue('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
    errs.push(...validatePodTemplate(spec['template'], 'spec.template', { restartPolicies: ['Always'] }));
    return errs;
  },
});
