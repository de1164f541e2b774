/**
 * Table columns of the core kinds (and leases), as the established server prints them: pods,
 * nodes, services, endpoints, namespaces, configmaps, secrets, serviceaccounts, events, volumes,
 * certificate signing requests.
 */
import type { SvcObject, TableColumns } from '../../types.js';
import { asArray, asRecord } from '../define.js';
import {
  accessModes, AGE_COLUMN, age, at, column, count, formatLabels, humanDuration, NAME_COLUMN, name, orNone, since, text,
} from './cells.js';

/** The aggregate status of a pod (`Running`, `Init:0/1`, `CrashLoopBackOff`, `Terminating` ...) and its ready/restart counts. */
export function podSummary(pod: SvcObject): { ready: string; status: string; restarts: number } {
  const spec = asRecord(pod.spec);
  const status = asRecord(pod.status);
  const initStatuses = asArray(status['initContainerStatuses']).map(asRecord);
  const statuses = asArray(status['containerStatuses']).map(asRecord);
  let reason = text(status['reason']) || text(status['phase']);
  let restarts = 0;
  let ready = 0;
  let initializing = false;
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i]!;
    restarts += count(c['restartCount']);
    const terminated = at(c, 'state', 'terminated') as Record<string, unknown> | undefined;
    const waiting = at(c, 'state', 'waiting') as Record<string, unknown> | undefined;
    if (terminated && count(terminated['exitCode']) === 0) continue;
    if (terminated) {
      reason = terminated['reason'] ? `Init:${text(terminated['reason'])}` : count(terminated['signal']) ? `Init:Signal:${count(terminated['signal'])}` : `Init:ExitCode:${count(terminated['exitCode'])}`;
    } else if (waiting && text(waiting['reason']) !== '' && waiting['reason'] !== 'PodInitializing') {
      reason = `Init:${text(waiting['reason'])}`;
    } else {
      reason = `Init:${i}/${asArray(spec['initContainers']).length}`;
    }
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    let running = false;
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i]!;
      restarts += count(c['restartCount']);
      const waiting = at(c, 'state', 'waiting') as Record<string, unknown> | undefined;
      const terminated = at(c, 'state', 'terminated') as Record<string, unknown> | undefined;
      if (waiting && text(waiting['reason']) !== '') reason = text(waiting['reason']);
      else if (terminated && text(terminated['reason']) !== '') reason = text(terminated['reason']);
      else if (terminated) reason = count(terminated['signal']) ? `Signal:${count(terminated['signal'])}` : `ExitCode:${count(terminated['exitCode'])}`;
      else if (c['ready'] === true && at(c, 'state', 'running') !== undefined) {
        running = true;
        ready++;
      }
    }
    if (reason === 'Completed' && running) reason = 'Running';
  }
  if (pod.metadata.deletionTimestamp) reason = status['reason'] === 'NodeLost' ? 'Unknown' : 'Terminating';
  return { ready: `${ready}/${asArray(spec['containers']).length}`, status: reason, restarts };
}

function readinessGates(pod: SvcObject): string {
  const gates = asArray(at(pod, 'spec', 'readinessGates')).map(asRecord);
  if (!gates.length) return '<none>';
  const conditions = asArray(at(pod, 'status', 'conditions')).map(asRecord);
  const met = gates.filter((g) => conditions.some((c) => c['type'] === g['conditionType'] && c['status'] === 'True')).length;
  return `${met}/${gates.length}`;
}

export const podColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'string', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'integer', 'The number of times the containers in this pod have been restarted.'),
    AGE_COLUMN,
    column('IP', 'string', 'IP address allocated to the pod. Routable at least within the cluster.', { priority: 1 }),
    column('Node', 'string', 'The node the pod is scheduled onto.', { priority: 1 }),
    column('Nominated Node', 'string', 'The node the scheduler nominated for this pod while it preempts others.', { priority: 1 }),
    column('Readiness Gates', 'string', 'Readiness gates of the pod that are met, out of all.', { priority: 1 }),
  ],
  cells(pod, now) {
    const s = podSummary(pod);
    const ips = asArray(at(pod, 'status', 'podIPs')).map(asRecord);
    const ip = text(ips[0]?.['ip']) || text(at(pod, 'status', 'podIP'));
    return [
      name(pod), s.ready, s.status, s.restarts, age(pod, now),
      orNone(ip), orNone(at(pod, 'spec', 'nodeName')), orNone(at(pod, 'status', 'nominatedNodeName')), readinessGates(pod),
    ];
  },
};

const ROLE_LABEL_PREFIX = 'node-role.svc.io/';
const ROLE_LABEL = 'svc.io/role';

function nodeStatus(node: SvcObject): string {
  const conditions = asArray(at(node, 'status', 'conditions')).map(asRecord);
  const ready = conditions.find((c) => c['type'] === 'Ready');
  const out = [!ready ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : ready['status'] === 'Unknown' ? 'Unknown' : 'NotReady'];
  if (at(node, 'spec', 'unschedulable') === true) out.push('SchedulingDisabled');
  return out.join(',');
}

function nodeRoles(node: SvcObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX) && k.length > ROLE_LABEL_PREFIX.length) roles.add(k.slice(ROLE_LABEL_PREFIX.length));
    else if (k === ROLE_LABEL && v !== '') roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function nodeAddress(node: SvcObject, type: string): string {
  const hit = asArray(at(node, 'status', 'addresses')).map(asRecord).find((a) => a['type'] === type);
  return orNone(hit?.['address']);
}

export const nodeColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The status of the node.'),
    column('Roles', 'string', 'The roles of the node (node-role.svc.io/<role> labels).'),
    AGE_COLUMN,
    column('Version', 'string', 'The node agent version reported by the node.'),
    column('Internal-IP', 'string', 'The internal IP address of the node.', { priority: 1 }),
    column('External-IP', 'string', 'The external IP address of the node.', { priority: 1 }),
    column('OS-Image', 'string', 'The OS image reported by the node.', { priority: 1 }),
    column('Kernel-Version', 'string', 'The kernel version reported by the node.', { priority: 1 }),
    column('Container-Runtime', 'string', 'The container runtime reported by the node.', { priority: 1 }),
  ],
  cells(node, now) {
    const info = asRecord(at(node, 'status', 'nodeInfo'));
    const unknown = (v: unknown) => text(v) || '<unknown>';
    return [
      name(node), nodeStatus(node), nodeRoles(node), age(node, now), text(info['kubeletVersion']),
      nodeAddress(node, 'InternalIP'), nodeAddress(node, 'ExternalIP'),
      unknown(info['osImage']), unknown(info['kernelVersion']), unknown(info['containerRuntimeVersion']),
    ];
  },
};

function serviceExternalIP(svc: SvcObject): string {
  const spec = asRecord(svc.spec);
  const external = asArray(spec['externalIPs']).map(text);
  switch (spec['type']) {
    case 'ExternalName':
      return text(spec['externalName']);
    case 'LoadBalancer': {
      const ingress = asArray(at(svc, 'status', 'loadBalancer', 'ingress')).map(asRecord);
      const all = [...ingress.map((i) => text(i['ip']) || text(i['hostname'])), ...external].filter((s) => s !== '');
      return all.length ? all.join(',') : '<pending>';
    }
    default:
      return external.length ? external.join(',') : '<none>';
  }
}

function servicePorts(svc: SvcObject): string {
  const ports = asArray(at(svc, 'spec', 'ports')).map(asRecord);
  if (!ports.length) return '<none>';
  return ports
    .map((p) => `${text(p['port'])}${p['nodePort'] ? `:${text(p['nodePort'])}` : ''}/${text(p['protocol']) || 'TCP'}`)
    .join(',');
}

export const serviceColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'The type of the service: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'string', 'The IP address of the service within the cluster.'),
    column('External-IP', 'string', 'External addresses of the service.'),
    column('Port(s)', 'string', 'The ports the service exposes.'),
    AGE_COLUMN,
    column('Selector', 'string', 'Route traffic to pods with labels matching this selector.', { priority: 1 }),
  ],
  cells(svc, now) {
    return [
      name(svc), text(at(svc, 'spec', 'type')) || 'ClusterIP', orNone(at(svc, 'spec', 'clusterIP')), serviceExternalIP(svc),
      servicePorts(svc), age(svc, now), formatLabels(at(svc, 'spec', 'selector')),
    ];
  },
};

/** `ip:port` pairs, the first three then `+ N more...`. */
function formatEndpoints(ep: SvcObject): string {
  const all: string[] = [];
  for (const subset of asArray(ep['subsets']).map(asRecord)) {
    const ports = asArray(subset['ports']).map(asRecord);
    for (const addr of asArray(subset['addresses']).map(asRecord)) {
      if (!ports.length) all.push(text(addr['ip']));
      for (const p of ports) all.push(`${text(addr['ip'])}:${text(p['port'])}`);
    }
  }
  if (!all.length) return '<none>';
  return all.length > 3 ? `${all.slice(0, 3).join(',')} + ${all.length - 3} more...` : all.join(',');
}

export const endpointsColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Endpoints', 'string', 'Endpoints of the service (address:port).'), AGE_COLUMN],
  cells: (ep, now) => [name(ep), formatEndpoints(ep), age(ep, now)],
};

export const namespaceColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Status', 'string', 'The status of the namespace (Active or Terminating).'), AGE_COLUMN],
  cells: (ns, now) => [name(ns), text(at(ns, 'status', 'phase')), age(ns, now)],
};

export const configMapColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Data', 'integer', 'Number of keys in data and binaryData.'), AGE_COLUMN],
  cells: (cm, now) => [name(cm), Object.keys(asRecord(cm['data'])).length + Object.keys(asRecord(cm['binaryData'])).length, age(cm, now)],
};

export const secretColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Type', 'string', 'The type of the secret.'), column('Data', 'integer', 'Number of keys in data.'), AGE_COLUMN],
  cells: (s, now) => [name(s), text(s['type']), Object.keys(asRecord(s['data'])).length, age(s, now)],
};

export const serviceAccountColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Secrets', 'integer', 'Number of secrets the service account may use.'), AGE_COLUMN],
  cells: (sa, now) => [name(sa), asArray(sa['secrets']).length, age(sa, now)],
};

export const eventColumns: TableColumns = {
  columns: [
    column('Last Seen', 'string', 'The time the event was last recorded.'),
    column('Type', 'string', 'Type of the event (Normal or Warning).'),
    column('Reason', 'string', 'A short, machine-understandable reason for the event.'),
    column('Object', 'string', 'The object the event is about (kind/name).'),
    column('Subobject', 'string', 'The part of the object the event is about (fieldPath).', { priority: 1 }),
    column('Source', 'string', 'The component (and host) reporting the event.', { priority: 1 }),
    column('Message', 'string', 'A human-readable description of the event.'),
    column('First Seen', 'string', 'The time the event was first recorded.', { priority: 1 }),
    column('Count', 'integer', 'The number of times the event occurred.', { priority: 1 }),
    column('Name', 'string', NAME_COLUMN.description, { priority: 1, format: 'name' }),
  ],
  cells(ev, now) {
    const involved = asRecord(ev['involvedObject']);
    const source = asRecord(ev['source']);
    const last = ev['lastTimestamp'] ?? ev['eventTime'];
    const first = ev['firstTimestamp'] ?? ev['eventTime'];
    return [
      since(last, now), text(ev['type']), text(ev['reason']), `${text(involved['kind']).toLowerCase()}/${text(involved['name'])}`,
      text(involved['fieldPath']), [text(source['component']), text(source['host'])].filter((x) => x !== '').join(', '),
      text(ev['message']).trim(), since(first, now), count(ev['count']) || 1, name(ev),
    ];
  },
};

export const leaseColumns: TableColumns = {
  columns: [NAME_COLUMN, column('Holder', 'string', 'The identity of the current holder of the lease.'), AGE_COLUMN],
  cells: (l, now) => [name(l), text(at(l, 'spec', 'holderIdentity')), age(l, now)],
};

export const priorityClassColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Value', 'integer', 'The priority of pods that name this class.'),
    column('Global-Default', 'boolean', 'Whether this class applies to pods that name none.'),
    AGE_COLUMN,
  ],
  cells: (c, now) => [name(c), count(c['value']), c['globalDefault'] === true, age(c, now)],
};

const VOLUME_MODE_COLUMN = column('VolumeMode', 'string', 'Filesystem or Block.', { priority: 1 });

function volumePhase(obj: SvcObject): string {
  return obj.metadata.deletionTimestamp ? 'Terminating' : text(at(obj, 'status', 'phase'));
}

export const persistentVolumeClaimColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'The phase of the claim (Pending, Bound, Lost).'),
    column('Volume', 'string', 'The volume bound to the claim.'),
    column('Capacity', 'string', 'The storage capacity of the bound volume.'),
    column('Access Modes', 'string', 'The access modes of the bound volume.'),
    column('StorageClass', 'string', 'The storage class the claim asks for.'),
    AGE_COLUMN,
    VOLUME_MODE_COLUMN,
  ],
  cells(pvc, now) {
    const bound = text(at(pvc, 'spec', 'volumeName')) !== '';
    return [
      name(pvc), volumePhase(pvc), text(at(pvc, 'spec', 'volumeName')), bound ? text(at(pvc, 'status', 'capacity', 'storage')) : '',
      bound ? accessModes(at(pvc, 'status', 'accessModes')) : '', text(at(pvc, 'spec', 'storageClassName')), age(pvc, now),
      text(at(pvc, 'spec', 'volumeMode')) || '<unset>',
    ];
  },
};

export const persistentVolumeColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    column('Capacity', 'string', 'The storage capacity of the volume.'),
    column('Access Modes', 'string', 'The ways the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'What happens to the volume when released from its claim.'),
    column('Status', 'string', 'The phase of the volume.'),
    column('Claim', 'string', 'The claim bound to the volume (namespace/name).'),
    column('StorageClass', 'string', 'The storage class of the volume.'),
    column('Reason', 'string', 'Why the volume is in its phase.'),
    AGE_COLUMN,
    VOLUME_MODE_COLUMN,
  ],
  cells(pv, now) {
    const claim = asRecord(at(pv, 'spec', 'claimRef'));
    return [
      name(pv), text(at(pv, 'spec', 'capacity', 'storage')), accessModes(at(pv, 'spec', 'accessModes')),
      text(at(pv, 'spec', 'persistentVolumeReclaimPolicy')), volumePhase(pv),
      claim['name'] ? `${text(claim['namespace'])}/${text(claim['name'])}` : '', text(at(pv, 'spec', 'storageClassName')),
      text(at(pv, 'status', 'reason')), age(pv, now), text(at(pv, 'spec', 'volumeMode')) || '<unset>',
    ];
  },
};

/** CertificateSigningRequests: the established columns (`Condition` lists the condition types, then `Issued`; none: `Pending`). */
export const certificateSigningRequestColumns: TableColumns = {
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column('SignerName', 'string', 'The signer asked to sign the request.'),
    column('Requestor', 'string', 'Who made the request.'),
    column('RequestedDuration', 'string', 'The validity asked for (spec.expirationSeconds).'),
    column('Condition', 'string', 'Approved, Denied, Failed, Issued or Pending.'),
  ],
  cells: (c, now) => {
    const types = asArray(at(c, 'status', 'conditions')).map((x) => text(asRecord(x)['type'])).filter(Boolean);
    if (text(at(c, 'status', 'certificate'))) types.push('Issued');
    const seconds = at(c, 'spec', 'expirationSeconds');
    return [
      name(c),
      age(c, now),
      text(at(c, 'spec', 'signerName')),
      text(at(c, 'spec', 'username')),
      typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>',
      types.length ? types.join(',') : 'Pending',
    ];
  },
};
