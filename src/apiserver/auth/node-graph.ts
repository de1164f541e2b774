/**
 * The Node authorizer's graph: which objects each node may reach through the pods bound to it,
 * kept from the pods' and persistent volumes' stores as they change (./node-authorizer.ts follows
 * them), so a decision is a few map lookups, never a scan of the pods.
 *
 * The established relationships (a pod counts, and is its node's to read, once `spec.nodeName` is set; what it references is
 * fixed from then on, except the generated ResourceClaim names in its status):
 *
 *   pod -> node; secret, configmap, persistentvolumeclaim, serviceaccount, resourceclaim -> pod;
 *   persistentvolume -> persistentvolumeclaim (the volume's `spec.claimRef`).
 *
 * Secrets a pod references: imagePullSecrets; env and envFrom of every container (init and
 * ephemeral too); secret, projected and the volume plugins' secret references (azureFile, cephfs,
 * cinder, flexVolume, iscsi, rbd, scaleIO, storageos, csi nodePublishSecretRef). ConfigMaps: env,
 * envFrom, configMap and projected volumes. Claims: persistentVolumeClaim volumes and the claim an
 * ephemeral volume makes (`<pod>-<volume>`). Secrets named by a PersistentVolume are not followed
 * (no volume plugin here reads them).
 *
 * Counts, not sets: two pods on one node referencing one secret keep the edge until both are gone.
 */
import type { SvcObject } from '../../api/types.js';

export type GraphObjectType = 'pod' | 'secret' | 'configmap' | 'persistentvolumeclaim' | 'persistentvolume' | 'serviceaccount' | 'resourceclaim';

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Loose) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const refKey = (type: GraphObjectType, namespace: string, name: string): string => `${type}\0${namespace}\0${name}`;

interface PodEntry {
  node: string;
  uid: string;
  refs: string[];
}

export class NodeGraph {
  private readonly pods = new Map<string, PodEntry>();
  /** node -> (reference -> number of that node's pods holding it). */
  private readonly edges = new Map<string, Map<string, number>>();
  /** persistent volume -> `namespace\0name` of its claim. */
  private readonly volumeClaims = new Map<string, string>();

  /** Pods currently in the graph (bound to a node). */
  get podCount(): number {
    return this.pods.size;
  }

  /** Does `node` have a pod in the graph (the established "known node")? */
  knowsNode(node: string): boolean {
    return (this.edges.get(node)?.size ?? 0) > 0;
  }

  /** Is `type namespace/name` reachable from `node` through the pods bound to it? */
  hasPath(node: string, type: GraphObjectType, namespace: string, name: string): boolean {
    if (type === 'pod') return this.pods.get(`${namespace}\0${name}`)?.node === node;
    const edges = this.edges.get(node);
    if (!edges) return false;
    if (type === 'persistentvolume') {
      const claim = this.volumeClaims.get(name);
      return claim !== undefined && edges.has(`persistentvolumeclaim\0${claim}`);
    }
    return edges.has(refKey(type, namespace, name));
  }

  // ---- pods

  resetPods(pods: readonly SvcObject[]): void {
    this.pods.clear();
    this.edges.clear();
    for (const p of pods) this.upsertPod(p);
  }

  upsertPod(pod: SvcObject): void {
    const key = podKey(pod);
    const node = str(obj(pod.spec)?.['nodeName']);
    const uid = pod.metadata.uid ?? '';
    const old = this.pods.get(key);
    if (!node) {
      // Unbinding does not happen to a live pod; a pod re-created under the same name may be unbound.
      if (old) this.removePodKey(key);
      return;
    }
    const refs = podReferences(pod);
    if (old && old.node === node && old.uid === uid && sameRefs(old.refs, refs)) return;
    if (old) this.removePodKey(key);
    this.pods.set(key, { node, uid, refs });
    let edges = this.edges.get(node);
    if (!edges) this.edges.set(node, (edges = new Map()));
    for (const r of refs) edges.set(r, (edges.get(r) ?? 0) + 1);
  }

  removePod(pod: SvcObject): void {
    this.removePodKey(podKey(pod));
  }

  private removePodKey(key: string): void {
    const old = this.pods.get(key);
    if (!old) return;
    this.pods.delete(key);
    const edges = this.edges.get(old.node);
    if (!edges) return;
    for (const r of old.refs) {
      const n = (edges.get(r) ?? 0) - 1;
      if (n > 0) edges.set(r, n);
      else edges.delete(r);
    }
    if (edges.size === 0) this.edges.delete(old.node);
  }

  // ---- persistent volumes

  resetVolumes(volumes: readonly SvcObject[]): void {
    this.volumeClaims.clear();
    for (const v of volumes) this.upsertVolume(v);
  }

  upsertVolume(pv: SvcObject): void {
    const name = pv.metadata.name ?? '';
    const claimRef = obj(obj(pv.spec)?.['claimRef']);
    const claimName = str(claimRef?.['name']);
    if (claimRef && claimName) this.volumeClaims.set(name, `${str(claimRef['namespace'])}\0${claimName}`);
    else this.volumeClaims.delete(name);
  }

  removeVolume(pv: SvcObject): void {
    this.volumeClaims.delete(pv.metadata.name ?? '');
  }
}

function podKey(pod: SvcObject): string {
  return `${pod.metadata.namespace ?? ''}\0${pod.metadata.name ?? ''}`;
}

function sameRefs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((r, i) => r === b[i]);
}

/** Secret volume-plugin fields holding a `secretRef` object ({name}). */
const SECRET_REF_PLUGINS = ['cephfs', 'cinder', 'flexVolume', 'iscsi', 'rbd', 'scaleIO', 'storageos'] as const;

/** Every object `pod` references, as sorted, de-duplicated graph keys. */
export function podReferences(pod: SvcObject): string[] {
  const ns = pod.metadata.namespace ?? '';
  const spec = obj(pod.spec) ?? {};
  const out = new Set<string>();
  const add = (type: GraphObjectType, name: string) => {
    if (name) out.add(refKey(type, ns, name));
  };
  add('serviceaccount', str(spec['serviceAccountName']));
  for (const s of arr(spec['imagePullSecrets'])) add('secret', str(obj(s)?.['name']));
  for (const list of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of arr(spec[list])) {
      for (const from of arr(obj(c)?.['envFrom'])) {
        add('secret', str(obj(obj(from)?.['secretRef'])?.['name']));
        add('configmap', str(obj(obj(from)?.['configMapRef'])?.['name']));
      }
      for (const env of arr(obj(c)?.['env'])) {
        const valueFrom = obj(obj(env)?.['valueFrom']);
        add('secret', str(obj(valueFrom?.['secretKeyRef'])?.['name']));
        add('configmap', str(obj(valueFrom?.['configMapKeyRef'])?.['name']));
      }
    }
  }
  for (const raw of arr(spec['volumes'])) {
    const v = obj(raw) ?? {};
    add('secret', str(obj(v['secret'])?.['secretName']));
    add('secret', str(obj(v['azureFile'])?.['secretName']));
    add('secret', str(obj(obj(v['csi'])?.['nodePublishSecretRef'])?.['name']));
    for (const plugin of SECRET_REF_PLUGINS) add('secret', str(obj(obj(v[plugin])?.['secretRef'])?.['name']));
    add('configmap', str(obj(v['configMap'])?.['name']));
    for (const source of arr(obj(v['projected'])?.['sources'])) {
      add('secret', str(obj(obj(source)?.['secret'])?.['name']));
      add('configmap', str(obj(obj(source)?.['configMap'])?.['name']));
    }
    add('persistentvolumeclaim', str(obj(v['persistentVolumeClaim'])?.['claimName']));
    if (v['ephemeral'] !== undefined && v['ephemeral'] !== null) add('persistentvolumeclaim', `${pod.metadata.name ?? ''}-${str(v['name'])}`);
  }
  // ResourceClaims: named directly, or generated from a template (the name is in the status).
  const generated = new Map(arr(obj(pod.status)?.['resourceClaimStatuses']).map((s) => [str(obj(s)?.['name']), str(obj(s)?.['resourceClaimName'])]));
  for (const raw of arr(spec['resourceClaims'])) {
    const c = obj(raw) ?? {};
    add('resourceclaim', str(c['resourceClaimName']) || (str(c['resourceClaimTemplateName']) ? generated.get(str(c['name'])) ?? '' : ''));
  }
  return [...out].sort();
}
