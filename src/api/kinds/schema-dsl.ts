/**
 * Short constructors for the OpenAPI schema nodes of built-in kinds, and the shared pieces
 * (ObjectMeta, LabelSelector, ...). Merge markers follow the established system: keyed lists are
 * `x-svc-list-type: map` with their keys, string lists that behave as sets are `set`, the rest atomic.
 */
import type { SchemaNode } from '../types.js';

export const str = (extra: Partial<SchemaNode> = {}): SchemaNode => ({ type: 'string', ...extra });
export const int32 = (extra: Partial<SchemaNode> = {}): SchemaNode => ({ type: 'integer', format: 'int32', ...extra });
export const int64 = (extra: Partial<SchemaNode> = {}): SchemaNode => ({ type: 'integer', format: 'int64', ...extra });
export const num = (): SchemaNode => ({ type: 'number', format: 'double' });
export const bool = (): SchemaNode => ({ type: 'boolean' });
export const time = (): SchemaNode => ({ type: 'string', format: 'date-time' });
export const bytes = (): SchemaNode => ({ type: 'string', format: 'byte' });
export const intOrString = (): SchemaNode => ({ 'x-svc-int-or-string': true });
/** A resource quantity (`500m`, `1Gi`, or a bare number). */
export const quantity = (): SchemaNode => ({ 'x-svc-int-or-string': true, format: 'quantity' });

/** A structural object: unknown fields are dropped. */
export const obj = (properties: Record<string, SchemaNode>, extra: Partial<SchemaNode> = {}): SchemaNode => ({ type: 'object', properties, ...extra });
/** An object whose listed fields are typed but whose other fields are kept (parts not modelled in full). */
export const openObj = (properties: Record<string, SchemaNode> = {}): SchemaNode => ({ type: 'object', properties, 'x-svc-preserve-unknown-fields': true });
/** A free-form object (kept as is). */
export const freeform = (): SchemaNode => ({ type: 'object', 'x-svc-preserve-unknown-fields': true });

/** map[string]V, granular (per-key ownership) by default. */
export const mapOf = (value: SchemaNode, mapType: 'granular' | 'atomic' = 'granular'): SchemaNode => ({ type: 'object', additionalProperties: value, 'x-svc-map-type': mapType });
export const stringMap = (mapType: 'granular' | 'atomic' = 'granular'): SchemaNode => mapOf(str(), mapType);
export const resourceList = (): SchemaNode => mapOf(quantity());

export const atomicList = (items: SchemaNode): SchemaNode => ({ type: 'array', items, 'x-svc-list-type': 'atomic' });
export const setList = (items: SchemaNode = str()): SchemaNode => ({ type: 'array', items, 'x-svc-list-type': 'set' });
export const mapList = (keys: string[], items: SchemaNode): SchemaNode => ({ type: 'array', items, 'x-svc-list-type': 'map', 'x-svc-list-map-keys': keys });

export const ownerReference = (): SchemaNode =>
  obj({ apiVersion: str(), kind: str(), name: str(), uid: str(), controller: bool(), blockOwnerDeletion: bool() }, { 'x-svc-map-type': 'atomic' });

export const objectMeta = (): SchemaNode =>
  obj({
    name: str(),
    generateName: str(),
    namespace: str(),
    selfLink: str(),
    uid: str(),
    resourceVersion: str(),
    generation: int64(),
    creationTimestamp: time(),
    deletionTimestamp: time(),
    deletionGracePeriodSeconds: int64(),
    labels: stringMap(),
    annotations: stringMap(),
    ownerReferences: mapList(['uid'], ownerReference()),
    finalizers: setList(),
    clusterName: str(),
    managedFields: atomicList(
      obj({ manager: str(), operation: str(), apiVersion: str(), time: time(), fieldsType: str(), fieldsV1: freeform(), subresource: str() }),
    ),
  });

export const labelSelector = (): SchemaNode =>
  obj(
    {
      matchLabels: stringMap(),
      matchExpressions: atomicList(obj({ key: str(), operator: str(), values: atomicList(str()) })),
    },
    { 'x-svc-map-type': 'atomic' },
  );

export const condition = (): SchemaNode =>
  openObj({ type: str(), status: str(), reason: str(), message: str(), lastTransitionTime: time(), lastUpdateTime: time(), lastProbeTime: time(), lastHeartbeatTime: time(), observedGeneration: int64() });

/** A conditions list keyed by type. */
export const conditions = (): SchemaNode => mapList(['type'], condition());

/** A node selector (required node affinity, PV node affinity): terms ORed, requirements ANDed. */
export const nodeSelectorRequirement = (): SchemaNode => obj({ key: str(), operator: str(), values: atomicList(str()) });
export const nodeSelectorTerm = (): SchemaNode =>
  obj({ matchExpressions: atomicList(nodeSelectorRequirement()), matchFields: atomicList(nodeSelectorRequirement()) }, { 'x-svc-map-type': 'atomic' });
export const nodeSelector = (): SchemaNode => obj({ nodeSelectorTerms: atomicList(nodeSelectorTerm()) }, { 'x-svc-map-type': 'atomic' });

export const objectReference = (): SchemaNode =>
  obj({ kind: str(), namespace: str(), name: str(), uid: str(), apiVersion: str(), resourceVersion: str(), fieldPath: str() }, { 'x-svc-map-type': 'atomic' });

export const localObjectReference = (): SchemaNode => obj({ name: str() }, { 'x-svc-map-type': 'atomic' });

/** The whole object: type meta, metadata and the kind's own top-level fields. */
export function objectSchema(fields: Record<string, SchemaNode>): SchemaNode {
  return obj({ apiVersion: str(), kind: str(), metadata: objectMeta(), ...fields });
}
