/** PersistentVolumes (cluster-scoped) and PersistentVolumeClaims (core/v1). Both +status. */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { notSupported, oneOf, required } from '../../validation/field-errors.js';
import { validateQuantity, validateResourceList } from '../../validation/quantity.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { atomicList, conditions, freeform, labelSelector, nodeSelector, objectReference, obj, objectSchema, openObj, resourceList, str } from '../schema-dsl.js';
import { validateNodeSelector } from './scheduling-constraints.js';
import { persistentVolumeClaimColumns, persistentVolumeColumns } from '../columns/core.js';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce'];

function validateAccessModes(modes: unknown, field: string): FieldError[] {
  const list = asArray(modes);
  if (list.length === 0) return [required(field)];
  const errs: FieldError[] = [];
  list.forEach((m) => {
    if (typeof m !== 'string' || !ACCESS_MODES.includes(m)) errs.push(notSupported(field, m, ACCESS_MODES));
  });
  return errs;
}

export const persistentVolumeDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolume',
  plural: 'persistentvolumes',
  tableColumns: persistentVolumeColumns,
  namespaced: false,
  shortNames: ['pv'],
  subresources: ['status'],
  schema: objectSchema({
    spec: openObj({
      capacity: resourceList(),
      accessModes: atomicList(str()),
      claimRef: objectReference(),
      persistentVolumeReclaimPolicy: str(),
      storageClassName: str(),
      mountOptions: atomicList(str()),
      volumeMode: str(),
      nodeAffinity: obj({ required: nodeSelector() }),
      hostPath: openObj({ path: str(), type: str() }),
      local: openObj({ path: str() }),
      nfs: openObj({ server: str(), path: str() }),
      csi: freeform(),
    }),
    status: openObj({ phase: str(), message: str(), reason: str() }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'persistentVolumeReclaimPolicy', 'Retain');
    setDefault(spec, 'volumeMode', 'Filesystem');
    const status = section(o, 'status');
    setDefault(status, 'phase', 'Pending');
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validateAccessModes(spec['accessModes'], 'spec.accessModes');
    const capacity = asRecord(spec['capacity']);
    if (capacity['storage'] === undefined) errs.push(required('spec.capacity'));
    errs.push(...validateResourceList('spec.capacity', capacity));
    errs.push(...oneOf('spec.persistentVolumeReclaimPolicy', spec['persistentVolumeReclaimPolicy'], ['Delete', 'Recycle', 'Retain']));
    errs.push(...oneOf('spec.volumeMode', spec['volumeMode'], ['Block', 'Filesystem']));
    const nodeAffinity = asRecord(spec['nodeAffinity']);
    if (nodeAffinity['required'] !== undefined && nodeAffinity['required'] !== null) errs.push(...validateNodeSelector(nodeAffinity['required'], 'spec.nodeAffinity.required'));
    errs.push(...oneOf('status.phase', asRecord(o['status'])['phase'], ['Pending', 'Available', 'Bound', 'Released', 'Failed']));
    return errs;
  },
});

export const persistentVolumeClaimDefinition = defineKind({
  group: '',
  version: 'v1',
  kind: 'PersistentVolumeClaim',
  plural: 'persistentvolumeclaims',
  tableColumns: persistentVolumeClaimColumns,
  namespaced: true,
  shortNames: ['pvc'],
  subresources: ['status'],
  schema: objectSchema({
    spec: obj({
      accessModes: atomicList(str()),
      selector: labelSelector(),
      resources: obj({ limits: resourceList(), requests: resourceList() }),
      volumeName: str(),
      storageClassName: str(),
      volumeMode: str(),
      dataSource: freeform(),
    }),
    status: openObj({ phase: str(), accessModes: atomicList(str()), capacity: resourceList(), conditions: conditions() }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'volumeMode', 'Filesystem');
    const status = section(o, 'status');
    setDefault(status, 'phase', 'Pending');
  },
  validate(o: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validateAccessModes(spec['accessModes'], 'spec.accessModes');
    const requests = asRecord(asRecord(spec['resources'])['requests']);
    if (requests['storage'] === undefined) errs.push(required('spec.resources[storage]'));
    else errs.push(...validateQuantity('spec.resources[storage]', requests['storage'], { nonNegative: true }));
    errs.push(...oneOf('spec.volumeMode', spec['volumeMode'], ['Block', 'Filesystem']));
    errs.push(...oneOf('status.phase', asRecord(o['status'])['phase'], ['Pending', 'Bound', 'Lost']));
    return errs;
  },
});
