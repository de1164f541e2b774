/** Pods (core/v1): the unit of scheduling. +status, +binding. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { defineKind, fieldString, peek, section } from '../define.js';
import { atomicList, conditions, freeform, mapList, obj, openObj, objectSchema, str, time } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { defaultPodSpec, podSpecSchema, qosClass, validatePodSpec, validatePodSpecUpdate } from './pod-spec.js';
import { podColumns } from '../columns/core.js';

export const POD_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;

const podStatusSchema = () =>
  openObj({
    phase: str(),
    conditions: conditions(),
    message: str(),
    reason: str(),
    nominatedNodeName: str(),
    hostIP: str(),
    podIP: str(),
    podIPs: mapList(['ip'], obj({ ip: str() })),
    startTime: time(),
    initContainerStatuses: atomicList(freeform()),
    containerStatuses: atomicList(freeform()),
    ephemeralContainerStatuses: atomicList(freeform()),
    qosClass: str(),
  });

export const podDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  tableColumns: podColumns,
  namespaced: true,
  shortNames: ['po'],
  categories: ['all'],
  subresources: ['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward'],
  watchCacheSize: HEURISTIC_WATCH_CACHE_SIZES.pods,
  schema: objectSchema({ spec: podSpecSchema(), status: podStatusSchema() }),
  fields: (o) => ({
    'spec.nodeName': fieldString(o, 'spec', 'nodeName'),
    'spec.restartPolicy': fieldString(o, 'spec', 'restartPolicy'),
    'spec.schedulerName': fieldString(o, 'spec', 'schedulerName'),
    'spec.serviceAccountName': fieldString(o, 'spec', 'serviceAccountName'),
    'status.phase': fieldString(o, 'status', 'phase'),
    'status.podIP': fieldString(o, 'status', 'podIP'),
    'status.nominatedNodeName': fieldString(o, 'status', 'nominatedNodeName'),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    defaultPodSpec(spec);
    // A new pod starts Pending with its QoS class known (the server sets both on create).
    if (o.status === undefined || o.status === null) o.status = { phase: 'Pending', qosClass: qosClass(spec) };
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs = validatePodSpec(o.spec, 'spec');
    const phase = peek(o, 'status')?.['phase'];
    if (phase !== undefined && phase !== '' && !(POD_PHASES as readonly unknown[]).includes(phase)) {
      errs.push({ field: 'status.phase', type: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(phase)}: supported values: ${POD_PHASES.map((p) => `"${p}"`).join(', ')}` });
    }
    if (old) errs.push(...validatePodSpecUpdate(o.spec, old.spec));
    return errs;
  },
});
