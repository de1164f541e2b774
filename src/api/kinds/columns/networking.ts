/**
 * Table columns of the networking, storage and node kinds (Ingress, IngressClass, NetworkPolicy,
 * StorageClass, CSIDriver, CSINode, VolumeAttachment, RuntimeClass), as the established server's
 * printers give them.
 */
import type { TableColumns } from '../../types.js';
import { asArray, asRecord } from '../define.js';
import { AGE_COLUMN, age, at, column, formatSelector, NAME_COLUMN, name, text } from './cells.js';

/** The established printer lists at most three hosts. */
function formatHosts(rules: unknown): string {
  const hosts = asArray(rules).map((r) => text(asRecord(r)['host'])).filter((h) => h !== '');
  if (hosts.length === 0) return '*';
  return hosts.length > 3 ? `${hosts.slice(0, 3).join(',')} + ${hosts.length - 3} more...` : hosts.join(',');
}

function loadBalancerAddresses(status: unknown): string {
  return asArray(at(status, 'loadBalancer', 'ingress'))
    .map((i) => text(asRecord(i)['ip']) || text(asRecord(i)['hostname']))
    .filter((a) => a !== '')
    .join(',');
}

export const ingressColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Class', 'string', 'The name of the IngressClass resource that should be used for ingress'),
    column('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
    column('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
    column('Ports', 'string', 'Ports of TLS configurations that open'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const cls = text(at(o, 'spec', 'ingressClassName'));
    return [name(o), cls || '<none>', formatHosts(at(o, 'spec', 'rules')), loadBalancerAddresses(o['status']), asArray(at(o, 'spec', 'tls')).length ? '80, 443' : '80', age(o, now)];
  },
};

export const ingressClassColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Controller', 'string', 'Controller that is responsible for handling this class'),
    column('Parameters', 'string', 'A reference to a resource with additional parameters'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const p = at(o, 'spec', 'parameters');
    let params = '<none>';
    if (p !== undefined && p !== null) {
      const group = text(asRecord(p)['apiGroup']);
      params = `${text(asRecord(p)['kind'])}${group ? `.${group}` : ''}/${text(asRecord(p)['name'])}`;
    }
    return [name(o), text(at(o, 'spec', 'controller')), params, age(o, now)];
  },
};

export const networkPolicyColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Pod-Selector', 'string', 'Label selector for the pods this policy applies to'), AGE_COLUMN],
  cells: (o, now) => [name(o), formatSelector(at(o, 'spec', 'podSelector')) || '<none>', age(o, now)],
};

/** The annotation that marks the default StorageClass (established name, `svc` spelling). */
export const ANNOTATION_DEFAULT_STORAGE_CLASS = 'storageclass.svc.io/is-default-class';

export const storageClassColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', 'Indicates the type of the provisioner.'),
    column('ReclaimPolicy', 'string', 'Dynamically provisioned PersistentVolumes of this storage class are created with this reclaimPolicy.'),
    column('VolumeBindingMode', 'string', 'VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
    column('AllowVolumeExpansion', 'string', 'AllowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const annotations = o.metadata.annotations ?? {};
    const isDefault = annotations[ANNOTATION_DEFAULT_STORAGE_CLASS] === 'true' || annotations['storageclass.kubernetes.io/is-default-class'] === 'true';
    return [
      `${name(o)}${isDefault ? ' (default)' : ''}`,
      text(o['provisioner']),
      text(o['reclaimPolicy']) || 'Delete',
      text(o['volumeBindingMode']) || 'Immediate',
      o['allowVolumeExpansion'] === true ? 'true' : 'false',
      age(o, now),
    ];
  },
};

export const csiDriverColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', 'Indicates this CSI volume driver requires an attach operation.'),
    column('PodInfoOnMount', 'boolean', 'Indicates this CSI volume driver requires additional pod information during mount operations.'),
    column('StorageCapacity', 'boolean', 'Indicates this CSI volume driver wants pod scheduling to consider the storage capacity.'),
    column('TokenRequests', 'string', 'Indicates the CSI driver needs pods service account tokens it is mounting volume for to do necessary authentication.'),
    column('RequiresRepublish', 'boolean', 'Indicates the CSI driver wants `NodePublishVolume` being periodically called.'),
    column('Modes', 'string', 'Indicates volume lifecycle modes supported by this CSI volume driver.'),
    AGE_COLUMN,
  ],
  cells(o, now) {
    const tokens = asArray(at(o, 'spec', 'tokenRequests')).map((t) => text(asRecord(t)['audience']));
    const modes = asArray(at(o, 'spec', 'volumeLifecycleModes')).map(text);
    return [
      name(o),
      at(o, 'spec', 'attachRequired') === true,
      at(o, 'spec', 'podInfoOnMount') === true,
      at(o, 'spec', 'storageCapacity') === true,
      tokens.length ? tokens.join(',') : '<unset>',
      at(o, 'spec', 'requiresRepublish') === true,
      modes.length ? modes.join(',') : '<none>',
      age(o, now),
    ];
  },
};

export const csiNodeColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
  cells: (o, now) => [name(o), asArray(at(o, 'spec', 'drivers')).length, age(o, now)],
};

export const volumeAttachmentColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Attacher', 'string', 'Attacher indicates the name of the volume driver that MUST handle this request.'),
    column('PV', 'string', 'Name of the persistent volume to attach.'),
    column('Node', 'string', 'The node that the volume should be attached to.'),
    column('Attached', 'boolean', 'Indicates the volume is successfully attached.'),
    AGE_COLUMN,
  ],
  cells: (o, now) => [
    name(o),
    text(at(o, 'spec', 'attacher')),
    text(at(o, 'spec', 'source', 'persistentVolumeName')),
    text(at(o, 'spec', 'nodeName')),
    at(o, 'status', 'attached') === true,
    age(o, now),
  ],
};

export const runtimeClassColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Handler', 'string', 'Handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.'), AGE_COLUMN],
  cells: (o, now) => [name(o), text(o['handler']), age(o, now)],
};
