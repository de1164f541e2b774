/**
 * NodeRestriction (--enable-admission-plugins=NodeRestriction; not in the default list, as
 * established): a node (`system:node:<name>` in `system:nodes`) may change only what is its own.
 * The Node authorizer lets every node write nodes, pods/status, leases ... (it cannot see the
 * object); this plugin sees it, and refuses with 403 what is not the node's:
 *
 * - Node: only its own (create, update, status, delete); no taint changes on update; no
 *   `node-restriction.svc.io/` labels and no `svc.io`/`kubernetes.io` labels beyond the agent's own
 *   (hostname, zone, region, os, arch, instance-type, the `kubelet.` and `node.` prefixes);
 * - Pod: create only mirror pods (`svc.io/config.mirror`) bound to itself, owned by its Node (by
 *   uid) and referencing nothing (no service account, secrets, configmaps, claims); delete only pods
 *   bound to itself; update only the status of pods bound to itself (not their labels, not their
 *   resource claim statuses); evict only pods bound to itself;
 * - PersistentVolumeClaim: only the status, and of it only capacity, conditions and the allocated
 *   resources;
 * - ServiceAccount token: only bound to a pod (by uid) that is bound to itself;
 * - Lease and CSINode: only its own (in svc-node-lease for leases).
 *
 * Runs in the validating phase, when names are final (a generated name is known). Messages are the
 * established ones: `<resource> "<name>" is forbidden: node "n1" ...`.
 */
import { NODE_LEASE_NAMESPACE, nodeIdentity } from '../../api/node-identity.js';
import { forbidden, notFound, type StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { ANNOTATION_MIRROR_POD } from '../../api/well-known-labels.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';

export interface NodeRestrictionLookups {
  /** The pod as the server has it (its watch cache; a moment's lag is fine, as with the established informer). */
  pod(namespace: string, name: string): Promise<SvcObject | undefined>;
  node(name: string): Promise<SvcObject | undefined>;
}

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : {});
const specOf = (o: SvcObject | undefined): Loose => rec(o?.spec);

/** Labels a node agent sets on its own Node (the established kubelet labels, in our spelling and theirs). */
const AGENT_LABELS = new Set([
  'svc.io/hostname', 'svc.io/os', 'svc.io/arch', 'topology.svc.io/zone', 'topology.svc.io/region', 'node.svc.io/instance-type',
  'beta.svc.io/os', 'beta.svc.io/arch', 'beta.svc.io/instance-type', 'failure-domain.beta.svc.io/zone', 'failure-domain.beta.svc.io/region',
  'kubernetes.io/hostname', 'kubernetes.io/os', 'kubernetes.io/arch', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region', 'node.kubernetes.io/instance-type',
  'beta.kubernetes.io/os', 'beta.kubernetes.io/arch', 'beta.kubernetes.io/instance-type', 'failure-domain.beta.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/region',
]);
/** Label prefixes (and their subdomains) a node agent may set. */
const AGENT_LABEL_NAMESPACES = ['kubelet.svc.io', 'node.svc.io', 'kubelet.kubernetes.io', 'node.kubernetes.io'];
/** Reserved for administrators: nodes may never set these (the established node-restriction.kubernetes.io). */
const RESTRICTED_NAMESPACES = ['node-restriction.svc.io', 'node-restriction.kubernetes.io'];
/** The project's own and the established system label domains. */
const SYSTEM_NAMESPACES = ['svc.io', 'kubernetes.io', 'k8s.io'];

const inDomain = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

/** The labels of `next` that are new or changed against `prev` (removals are not changes here, as established). */
function modifiedLabels(next: Record<string, string> | undefined, prev: Record<string, string> | undefined): string[] {
  return Object.entries(next ?? {}).filter(([k, v]) => prev?.[k] !== v).map(([k]) => k);
}

function forbiddenLabels(labels: string[]): string[] {
  return labels
    .filter((label) => {
      const slash = label.indexOf('/');
      const ns = slash < 0 ? '' : label.slice(0, slash);
      if (RESTRICTED_NAMESPACES.some((d) => inDomain(ns, d))) return true;
      if (!SYSTEM_NAMESPACES.some((d) => inDomain(ns, d))) return false;
      return !AGENT_LABELS.has(label) && !AGENT_LABEL_NAMESPACES.some((d) => inDomain(ns, d));
    })
    .sort();
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function nodeRestriction(lookups: NodeRestrictionLookups): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    sideEffects: 'None',
    // Not CONNECT (exec, attach, port-forward): the established plugin handles create, update and delete only.
    handles: (a) => a.operation !== 'CONNECT' && nodeIdentity(a.user).isNode,
    async validate(a) {
      const { name: node } = nodeIdentity(a.user);
      const refuse = (why: string): StatusError => forbidden(`${qualifiedResource(a)} "${a.name}" is forbidden: ${why}`, { group: a.def.group, resource: a.def.plural, name: a.name });
      if (!node) throw refuse(`could not determine node from user "${a.user.username}"`);
      const { group, plural } = a.def;
      if (group === '' && plural === 'pods') return admitPod(node, a, lookups, refuse);
      if (group === '' && plural === 'nodes') return admitNode(node, a, refuse);
      if (group === '' && plural === 'persistentvolumeclaims') return admitClaimStatus(node, a, refuse);
      if (group === '' && plural === 'serviceaccounts') return admitTokenRequest(a, lookups, refuse);
      if (group === 'coordination.svc.io' && plural === 'leases') {
        if (a.namespace !== NODE_LEASE_NAMESPACE) throw refuse(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
        if (a.name !== node) throw refuse('can only access node lease with the same name as the requesting node');
        return;
      }
      if (group === 'storage.svc.io' && plural === 'csinodes') {
        if (a.name !== node) throw refuse('can only access CSINode with the same name as the requesting node');
      }
    },
  };
}

type Refuse = (why: string) => StatusError;

function qualifiedResource(a: AdmissionAttributes): string {
  return a.def.group ? `${a.def.plural}.${a.def.group}` : a.def.plural;
}

async function admitPod(node: string, a: AdmissionAttributes, lookups: NodeRestrictionLookups, refuse: Refuse): Promise<void> {
  switch (a.subresource) {
    case '':
      if (a.operation === 'CREATE') return admitMirrorPod(node, a, lookups, refuse);
      if (a.operation === 'DELETE') {
        const pod = await existingPod(a, a.name, lookups);
        if (specOf(pod)['nodeName'] !== node) throw refuse(`node "${node}" can only delete pods with spec.nodeName set to itself`);
        return;
      }
      throw refuse(`unexpected operation "${a.operation}", node "${node}" can only create and delete mirror pods`);
    case 'status': {
      if (a.operation !== 'UPDATE') throw refuse(`unexpected operation "${a.operation}"`);
      if (specOf(a.oldObject)['nodeName'] !== node) throw refuse(`node "${node}" can only update pod status for pods with spec.nodeName set to itself`);
      if (!sameJson(a.oldObject?.metadata.labels ?? {}, a.object?.metadata.labels ?? {})) throw refuse(`node "${node}" cannot update labels through pod status`);
      if (!sameJson(rec(a.oldObject?.status)['resourceClaimStatuses'], rec(a.object?.status)['resourceClaimStatuses'])) throw refuse(`node "${node}" cannot update resource claim statues`);
      return;
    }
    case 'eviction': {
      if (a.operation !== 'CREATE') throw refuse(`unexpected operation "${a.operation}"`);
      const podName = a.name || (a.object?.metadata.name ?? '');
      if (!podName) throw refuse('could not determine pod from request data');
      const pod = await existingPod(a, podName, lookups);
      if (specOf(pod)['nodeName'] !== node) throw refuse(`node ${node} can only evict pods with spec.nodeName set to itself`);
      return;
    }
    default:
      throw refuse(`unexpected subresource "${a.subresource}", only 'status' and 'eviction' are allowed`);
  }
}

async function existingPod(a: AdmissionAttributes, name: string, lookups: NodeRestrictionLookups): Promise<SvcObject> {
  const pod = await lookups.pod(a.namespace, name);
  if (!pod) throw notFound({ group: '', resource: 'pods', name });
  return pod;
}

async function admitMirrorPod(node: string, a: AdmissionAttributes, lookups: NodeRestrictionLookups, refuse: Refuse): Promise<void> {
  const pod = a.object!;
  if (!(ANNOTATION_MIRROR_POD in (pod.metadata.annotations ?? {}))) {
    throw refuse(`pod does not have "${ANNOTATION_MIRROR_POD}" annotation, node "${node}" can only create mirror pods`);
  }
  const spec = specOf(pod);
  if (spec['nodeName'] !== node) throw refuse(`node "${node}" can only create pods with spec.nodeName set to itself`);
  const owners = pod.metadata.ownerReferences ?? [];
  if (owners.length > 1) throw refuse(`node "${node}" can only create pods with a single owner reference set to itself`);
  const owner = owners[0];
  if (!owner || owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== node) throw refuse(`node "${node}" can only create pods with an owner reference set to itself`);
  if (owner.controller !== true) throw refuse(`node "${node}" can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw refuse(`node "${node}" must not set blockOwnerDeletion on an owner reference`);
  const self = await lookups.node(node);
  if (!self) throw notFound({ group: '', resource: 'nodes', name: node });
  if (owner.uid !== self.metadata.uid) throw refuse(`node ${node} UID mismatch: expected ${self.metadata.uid ?? ''} got ${owner.uid ?? ''}`);
  if (spec['serviceAccountName']) throw refuse(`node "${node}" can not create pods that reference a service account`);
  const refs = podObjectReferences(pod);
  if (refs.secret) throw refuse(`node "${node}" can not create pods that reference secrets`);
  if (refs.configmap) throw refuse(`node "${node}" can not create pods that reference configmaps`);
  if (refs.claim) throw refuse(`node "${node}" can not create pods that reference persistentvolumeclaims`);
  if (Array.isArray(spec['resourceClaims']) && spec['resourceClaims'].length > 0) throw refuse(`node "${node}" can not create pods that reference resourceclaims`);
}

/** Which kinds of objects a pod's spec names (what a mirror pod may not). */
function podObjectReferences(pod: SvcObject): { secret: boolean; configmap: boolean; claim: boolean } {
  const spec = specOf(pod);
  const out = { secret: (spec['imagePullSecrets'] as unknown[] | undefined)?.length ? true : false, configmap: false, claim: false };
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of (spec[list] as unknown[] | undefined) ?? []) {
      for (const from of (rec(c)['envFrom'] as unknown[] | undefined) ?? []) {
        if (rec(from)['secretRef']) out.secret = true;
        if (rec(from)['configMapRef']) out.configmap = true;
      }
      for (const env of (rec(c)['env'] as unknown[] | undefined) ?? []) {
        const vf = rec(rec(env)['valueFrom']);
        if (vf['secretKeyRef']) out.secret = true;
        if (vf['configMapKeyRef']) out.configmap = true;
      }
    }
  }
  for (const raw of (spec['volumes'] as unknown[] | undefined) ?? []) {
    const v = rec(raw);
    if (v['secret'] || rec(v['azureFile'])['secretName'] || rec(v['csi'])['nodePublishSecretRef']) out.secret = true;
    for (const plugin of ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos']) if (rec(v[plugin])['secretRef']) out.secret = true;
    if (v['configMap']) out.configmap = true;
    for (const s of (rec(v['projected'])['sources'] as unknown[] | undefined) ?? []) {
      if (rec(s)['secret']) out.secret = true;
      if (rec(s)['configMap']) out.configmap = true;
    }
    if (v['persistentVolumeClaim'] || v['ephemeral']) out.claim = true;
  }
  return out;
}

function admitNode(node: string, a: AdmissionAttributes, refuse: Refuse): void {
  if (a.name !== node) throw refuse(`node "${node}" is not allowed to modify node "${a.name}"`);
  if (a.operation === 'CREATE') {
    const bad = forbiddenLabels(modifiedLabels(a.object?.metadata.labels, undefined));
    if (bad.length) throw refuse(`node "${node}" is not allowed to set the following labels: ${bad.join(', ')}`);
  }
  if (a.operation === 'UPDATE') {
    if (!sameJson(specOf(a.object)['taints'], specOf(a.oldObject)['taints'])) throw refuse(`node "${node}" is not allowed to modify taints`);
    const bad = forbiddenLabels(modifiedLabels(a.object?.metadata.labels, a.oldObject?.metadata.labels));
    if (bad.length) throw refuse(`is not allowed to modify labels: ${bad.join(', ')}`);
  }
}

function admitClaimStatus(node: string, a: AdmissionAttributes, refuse: Refuse): void {
  if (a.subresource !== 'status') throw refuse('may only update PVC status');
  if (a.operation !== 'UPDATE') throw refuse(`unexpected operation "${a.operation}"`);
  // Only capacity, conditions and the allocated resources may change (nothing in metadata or spec).
  const strip = (o: SvcObject | undefined): unknown => {
    if (!o) return null;
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = o.metadata;
    const { capacity: _c, conditions: _k, allocatedResources: _ar, allocatedResourceStatuses: _as, ...status } = rec(o.status);
    return { ...o, metadata, status };
  };
  if (!sameJson(strip(a.oldObject), strip(a.object))) throw refuse(`node "${node}" is not allowed to update fields other than status.capacity and status.conditions`);
}

async function admitTokenRequest(a: AdmissionAttributes, lookups: NodeRestrictionLookups, refuse: Refuse): Promise<void> {
  if (a.operation !== 'CREATE' || a.subresource !== 'token') return;
  const ref = rec(specOf(a.object)['boundObjectRef']);
  if (ref['apiVersion'] !== 'v1' || ref['kind'] !== 'Pod' || !ref['name']) throw refuse('node requested token not bound to a pod');
  if (!ref['uid']) throw refuse('node requested token with a pod binding without a uid');
  const pod = await existingPod(a, String(ref['name']), lookups);
  if (ref['uid'] !== pod.metadata.uid) {
    throw refuse(`the UID in the bound object reference (${String(ref['uid'])}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  const { name: node } = nodeIdentity(a.user);
  if (specOf(pod)['nodeName'] !== node) throw refuse('node requested token bound to a pod scheduled on a different node');
}
