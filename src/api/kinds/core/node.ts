/** Nodes (core/v1, cluster-scoped): machines pods run on. +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidEach, invalidValue, oneOf, required } from '../../validation/field-errors.js';
import { isQualifiedName, isValidLabelValue } from '../../validation/names.js';
import { validateResourceList } from '../../validation/quantity.js';
import { asArray, asRecord, defineKind, fieldString, peek } from '../define.js';
import { atomicList, bool, conditions, freeform, int64, mapList, obj, objectSchema, openObj, resourceList, setList, str, time } from '../schema-dsl.js';
import { HEURISTIC_WATCH_CACHE_SIZES } from '../watch-cache-sizes.js';
import { nodeColumns } from '../columns/core.js';

export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export const nodeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  tableColumns: nodeColumns,
  namespaced: false,
  shortNames: ['no'],
  subresources: ['status'],
  // Established: "Nodes allow *all* fields, including status, to be set on create."
  statusSetOnCreate: true,
  watchCacheSize: HEURISTIC_WATCH_CACHE_SIZES.nodes,
  schema: objectSchema({
    spec: obj({
      podCIDR: str(),
      podCIDRs: setList(),
      providerID: str(),
      unschedulable: bool(),
      taints: atomicList(obj({ key: str(), value: str(), effect: str(), timeAdded: time() })),
      configSource: freeform(),
      externalID: str(),
    }),
    status: openObj({
      capacity: resourceList(),
      allocatable: resourceList(),
      phase: str(),
      conditions: conditions(),
      addresses: mapList(['type'], obj({ type: str(), address: str() })),
      daemonEndpoints: freeform(),
      nodeInfo: freeform(),
      images: atomicList(obj({ names: atomicList(str()), sizeBytes: int64() })),
      volumesInUse: atomicList(str()),
      volumesAttached: atomicList(freeform()),
      config: freeform(),
    }),
  }),
  fields: (o) => ({ 'spec.unschedulable': String(peek(o, 'spec')?.['unschedulable'] === true) }),
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    asArray(peek(o, 'spec')?.['taints']).forEach((raw, i) => {
      const t = asRecord(raw);
      const p = `spec.taints[${i}]`;
      if (typeof t['key'] !== 'string' || t['key'] === '') errs.push(required(`${p}.key`));
      else errs.push(...invalidEach(`${p}.key`, t['key'], isQualifiedName(t['key'])));
      if (typeof t['value'] === 'string') errs.push(...invalidEach(`${p}.value`, t['value'], isValidLabelValue(t['value'])));
      if (t['effect'] === undefined || t['effect'] === '') errs.push(required(`${p}.effect`));
      else errs.push(...oneOf(`${p}.effect`, t['effect'], TAINT_EFFECTS));
    });
    const status = peek(o, 'status');
    errs.push(...validateResourceList('status.capacity', status?.['capacity']));
    errs.push(...validateResourceList('status.allocatable', status?.['allocatable']));
    const cidr = peek(o, 'spec')?.['podCIDR'];
    if (typeof cidr === 'string' && cidr !== '' && !/^[0-9a-fA-F:.]+\/\d{1,3}$/.test(cidr)) errs.push(invalidValue('spec.podCIDR', cidr, 'must be a valid CIDR'));
    return errs;
  },
});
