/**
 * The storage.svc.io/v1 kinds (alias storage.k8s.io/v1): StorageClasses (how volumes are
 * provisioned), CSIDrivers, CSINodes and VolumeAttachments. Stored, defaulted, validated and shown
 * as established, with the established messages; the simulated nodes provision and attach nothing.
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { fieldForbidden, invalidEach, invalidValue, notSupported, required, tooMany } from '../../validation/field-errors.js';
import { isDNS1123Subdomain, isQualifiedName } from '../../validation/names.js';
import { asArray, asRecord, defineKind, section, setDefault } from '../define.js';
import { persistentVolumeDefinition } from '../core/volumes.js';
import { atomicList, bool, int32, int64, mapList, obj, objectSchema, str, stringMap, time } from '../schema-dsl.js';
import { csiDriverColumns, csiNodeColumns, storageClassColumns, volumeAttachmentColumns } from '../columns/networking.js';

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const MAX_PROVISIONER_PARAMETERS = 512;

/** A CSI driver or provisioner name: at most 63 characters of a DNS subdomain (the established rule). */
function validateDriverName(value: unknown, path: string): FieldError[] {
  if (typeof value !== 'string' || value === '') return [required(path)];
  if (value.length > 63) return [{ field: path, type: 'FieldValueTooLong', message: `Too long: may not be more than 63 bytes` }];
  return invalidEach(path, value, isDNS1123Subdomain(value.toLowerCase()));
}

export const storageClassDefinition = defineKind({
  group: 'storage.svc.io',
  version: 'v1',
  kind: 'StorageClass',
  plural: 'storageclasses',
  namespaced: false,
  shortNames: ['sc'],
  tableColumns: storageClassColumns,
  schema: objectSchema({
    provisioner: str(),
    parameters: stringMap(),
    reclaimPolicy: str(),
    mountOptions: atomicList(str()),
    allowVolumeExpansion: bool(),
    volumeBindingMode: str(),
    allowedTopologies: atomicList(obj({ matchLabelExpressions: atomicList(obj({ key: str(), values: atomicList(str()) })) })),
  }),
  defaults(o: SvcObject): void {
    setDefault(o, 'reclaimPolicy', 'Delete');
    setDefault(o, 'volumeBindingMode', 'Immediate');
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const provisioner = o['provisioner'];
    if (typeof provisioner !== 'string' || provisioner === '') errs.push(required('provisioner'));
    else errs.push(...invalidEach('provisioner', provisioner, isQualifiedName(provisioner.toLowerCase())));
    const params = asRecord(o['parameters']);
    if (Object.keys(params).length > MAX_PROVISIONER_PARAMETERS) errs.push(tooMany('parameters', Object.keys(params).length, MAX_PROVISIONER_PARAMETERS));
    for (const k of Object.keys(params)) if (k === '') errs.push(invalidValue('parameters', k, 'field can not be empty.'));
    const reclaim = o['reclaimPolicy'];
    if (reclaim !== undefined && reclaim !== null && !RECLAIM_POLICIES.includes(String(reclaim))) errs.push(notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
    const mode = o['volumeBindingMode'];
    if (mode !== undefined && mode !== null && !BINDING_MODES.includes(String(mode))) errs.push(notSupported('volumeBindingMode', mode, BINDING_MODES));
    if (old) {
      if (JSON.stringify(old['parameters'] ?? {}) !== JSON.stringify(o['parameters'] ?? {})) errs.push(fieldForbidden('parameters', 'updates to parameters are forbidden.'));
      if (old['provisioner'] !== o['provisioner']) errs.push(fieldForbidden('provisioner', 'updates to provisioner are forbidden.'));
      if (old['reclaimPolicy'] !== o['reclaimPolicy']) errs.push(fieldForbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
      if (old['volumeBindingMode'] !== o['volumeBindingMode']) errs.push(fieldForbidden('volumeBindingMode', 'field is immutable'));
    }
    return errs;
  },
});

const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const FS_GROUP_POLICIES = ['ReadWriteOnceWithFSType', 'File', 'None'];

export const csiDriverDefinition = defineKind({
  group: 'storage.svc.io',
  version: 'v1',
  kind: 'CSIDriver',
  plural: 'csidrivers',
  namespaced: false,
  tableColumns: csiDriverColumns,
  schema: objectSchema({
    spec: obj({
      attachRequired: bool(),
      podInfoOnMount: bool(),
      volumeLifecycleModes: atomicList(str()),
      storageCapacity: bool(),
      fsGroupPolicy: str(),
      tokenRequests: atomicList(obj({ audience: str(), expirationSeconds: int64() })),
      requiresRepublish: bool(),
      seLinuxMount: bool(),
    }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    setDefault(spec, 'attachRequired', true);
    setDefault(spec, 'podInfoOnMount', false);
    setDefault(spec, 'storageCapacity', false);
    setDefault(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
    setDefault(spec, 'requiresRepublish', false);
    setDefault(spec, 'seLinuxMount', false);
    if (asArray(spec['volumeLifecycleModes']).length === 0) spec['volumeLifecycleModes'] = ['Persistent'];
  },
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const errs = validateDriverName(o.metadata.name, 'metadata.name');
    const spec = asRecord(o.spec);
    asArray(spec['volumeLifecycleModes']).forEach((m, i) => {
      if (!LIFECYCLE_MODES.includes(String(m))) errs.push(notSupported(`spec.volumeLifecycleModes[${i}]`, m, LIFECYCLE_MODES));
    });
    const policy = spec['fsGroupPolicy'];
    if (policy !== undefined && policy !== null && !FS_GROUP_POLICIES.includes(String(policy))) errs.push(notSupported('spec.fsGroupPolicy', policy, FS_GROUP_POLICIES));
    const audiences = new Set<string>();
    asArray(spec['tokenRequests']).forEach((t, i) => {
      const r = asRecord(t);
      const aud = String(r['audience'] ?? '');
      if (audiences.has(aud)) errs.push({ field: `spec.tokenRequests[${i}].audience`, type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(aud)}` });
      audiences.add(aud);
      const exp = r['expirationSeconds'];
      if (typeof exp === 'number' && exp < 600) errs.push(invalidValue(`spec.tokenRequests[${i}].expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
    });
    if (old) {
      for (const k of ['attachRequired', 'podInfoOnMount', 'volumeLifecycleModes']) {
        if (JSON.stringify(asRecord(old.spec)[k]) !== JSON.stringify(spec[k])) errs.push(invalidValue(`spec.${k}`, spec[k], 'field is immutable'));
      }
    }
    return errs;
  },
});

export const csiNodeDefinition = defineKind({
  group: 'storage.svc.io',
  version: 'v1',
  kind: 'CSINode',
  plural: 'csinodes',
  namespaced: false,
  tableColumns: csiNodeColumns,
  schema: objectSchema({
    spec: obj({
      drivers: mapList(['name'], obj({ name: str(), nodeID: str(), topologyKeys: atomicList(str()), allocatable: obj({ count: int32() }) })),
    }),
  }),
  validate(o: SvcObject): FieldError[] {
    const errs: FieldError[] = [];
    const seen = new Set<string>();
    asArray(asRecord(o.spec)['drivers']).forEach((d, i) => {
      const r = asRecord(d);
      const p = `spec.drivers[${i}]`;
      errs.push(...validateDriverName(r['name'], `${p}.name`));
      if (typeof r['name'] === 'string') {
        if (seen.has(r['name'])) errs.push({ field: `${p}.name`, type: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(r['name'])}` });
        seen.add(r['name']);
      }
      if (!r['nodeID']) errs.push(required(`${p}.nodeID`));
      const count = asRecord(r['allocatable'])['count'];
      if (typeof count === 'number' && count < 0) errs.push(invalidValue(`${p}.allocatable.count`, count, 'must be greater than or equal to 0'));
    });
    return errs;
  },
});

const volumeError = () => obj({ time: time(), message: str() });

export const volumeAttachmentDefinition = defineKind({
  group: 'storage.svc.io',
  version: 'v1',
  kind: 'VolumeAttachment',
  plural: 'volumeattachments',
  namespaced: false,
  subresources: ['status'],
  tableColumns: volumeAttachmentColumns,
  schema: objectSchema({
    spec: obj({ attacher: str(), source: obj({ persistentVolumeName: str(), inlineVolumeSpec: persistentVolumeDefinition.schema.properties!['spec']! }), nodeName: str() }),
    status: obj({ attached: bool(), attachmentMetadata: stringMap(), attachError: volumeError(), detachError: volumeError() }),
  }),
  validate(o: SvcObject, old?: SvcObject): FieldError[] {
    const spec = asRecord(o.spec);
    const errs = validateDriverName(spec['attacher'], 'spec.attacher');
    const source = asRecord(spec['source']);
    const pv = source['persistentVolumeName'];
    const inline = source['inlineVolumeSpec'];
    const hasPv = typeof pv === 'string' && pv !== '';
    const hasInline = inline !== undefined && inline !== null;
    if (!hasPv && !hasInline) errs.push(required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
    else if (hasPv && hasInline) errs.push(fieldForbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
    else if (hasPv) errs.push(...invalidEach('spec.source.persistentVolumeName', pv, isDNS1123Subdomain(pv)));
    const node = spec['nodeName'];
    if (typeof node !== 'string' || node === '') errs.push(required('spec.nodeName'));
    else errs.push(...invalidEach('spec.nodeName', node, isDNS1123Subdomain(node)));
    if (old && JSON.stringify(old.spec) !== JSON.stringify(o.spec)) errs.push(invalidValue('spec', o.spec, 'field is immutable'));
    return errs;
  },
});
