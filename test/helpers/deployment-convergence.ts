/**
 * Has a namespace's workload converged on what its Deployments ask for? Read from the API (lists
 * of Deployments, ReplicaSets and Pods), for tests that disturb the controllers (kill -9, restarts):
 * - each Deployment has exactly one ReplicaSet whose template is its current one (by the
 *   `crash/rev`-style annotation the caller names), with the desired replicas, all available;
 * - its other ReplicaSets are scaled to 0 with no pods left (or are gone);
 * - its pods are exactly the desired count, all of the current ReplicaSet, none terminating;
 * - the Deployment's status agrees (observed generation, replicas, updated, available);
 * - no pod in the namespace belongs to none of them.
 * Two ReplicaSets of one Deployment for one template (same annotation or same pod-template-hash)
 * are never right, converged or not: `duplicates` lists them separately so the caller can fail
 * at once rather than wait.
 */
import type { ApiHttp } from './api-http.js';

export interface WorkloadState {
  /** What still differs from converged ('' when converged). */
  pending: string;
  /** ReplicaSets duplicated for one template (a bug, not a state to wait out). */
  duplicates: string[];
  pods: number;
}

interface Meta {
  name: string;
  uid: string;
  generation?: number;
  labels?: Record<string, string>;
  deletionTimestamp?: string;
  ownerReferences?: { uid: string; controller?: boolean }[];
}
interface Obj {
  metadata: Meta;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
}

async function list(http: ApiHttp, path: string): Promise<Obj[]> {
  const r = await http.call('GET', path);
  if (r.status !== 200) throw new Error(`list ${path}: ${r.status} ${r.text.slice(0, 200)}`);
  return r.json.items as Obj[];
}

const ownedBy = (o: Obj, uid: string) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.controller);

export async function workloadState(http: ApiHttp, namespace: string, templateAnnotation: string): Promise<WorkloadState> {
  const [deploys, rss, pods] = await Promise.all([
    list(http, `/apis/apps/v1/namespaces/${namespace}/deployments`),
    list(http, `/apis/apps/v1/namespaces/${namespace}/replicasets`),
    list(http, `/api/v1/namespaces/${namespace}/pods`),
  ]);
  const pending: string[] = [];
  const duplicates: string[] = [];
  const accounted = new Set<string>();
  for (const d of deploys) {
    const name = d.metadata.name;
    const want = Number(d.spec.replicas);
    const rev = d.spec.template?.metadata?.annotations?.[templateAnnotation];
    const owned = rss.filter((rs) => ownedBy(rs, d.metadata.uid));
    for (const [key, of] of [
      ['template', (rs: Obj) => String(rs.spec.template?.metadata?.annotations?.[templateAnnotation])],
      ['pod-template-hash', (rs: Obj) => String(rs.metadata.labels?.['pod-template-hash'])],
    ] as const) {
      const by = new Map<string, string[]>();
      for (const rs of owned) by.set(of(rs), [...(by.get(of(rs)) ?? []), rs.metadata.name]);
      for (const [k, names] of by) if (names.length > 1) duplicates.push(`${name}: ReplicaSets ${names.join(', ')} share ${key} ${k}`);
    }
    const current = owned.filter((rs) => rs.spec.template?.metadata?.annotations?.[templateAnnotation] === rev);
    const mine = pods.filter((p) => owned.some((rs) => ownedBy(p, rs.metadata.uid)));
    for (const p of mine) accounted.add(p.metadata.uid);
    if (current.length !== 1) {
      pending.push(`${name}: ${current.length} ReplicaSets at template ${rev}`);
      continue;
    }
    const cur = current[0]!;
    const rsStatus = cur.status ?? {};
    if (cur.spec.replicas !== want || (rsStatus.replicas ?? 0) !== want || (rsStatus.availableReplicas ?? 0) !== want) {
      pending.push(`${name}: ReplicaSet ${cur.metadata.name} spec ${cur.spec.replicas} status ${rsStatus.replicas ?? 0} available ${rsStatus.availableReplicas ?? 0}, want ${want}`);
    }
    for (const old of owned) {
      if (old === cur) continue;
      if (old.spec.replicas !== 0 || (old.status?.replicas ?? 0) !== 0) pending.push(`${name}: old ReplicaSet ${old.metadata.name} at ${old.spec.replicas}/${old.status?.replicas ?? 0}`);
    }
    const live = mine.filter((p) => !p.metadata.deletionTimestamp);
    if (mine.length !== want || live.some((p) => !ownedBy(p, cur.metadata.uid))) {
      pending.push(`${name}: ${mine.length} pods (${mine.length - live.length} terminating, ${live.filter((p) => !ownedBy(p, cur.metadata.uid)).length} of old ReplicaSets), want ${want}`);
    }
    const s = d.status ?? {};
    if ((s.observedGeneration ?? 0) < (d.metadata.generation ?? 0) || s.replicas !== want || s.updatedReplicas !== want || s.availableReplicas !== want) {
      pending.push(`${name}: status observed ${s.observedGeneration}/${d.metadata.generation} replicas ${s.replicas} updated ${s.updatedReplicas} available ${s.availableReplicas}, want ${want}`);
    }
  }
  const strays = pods.filter((p) => !accounted.has(p.metadata.uid));
  if (strays.length) pending.push(`pods of no Deployment: ${strays.map((p) => p.metadata.name).join(', ')}`);
  return { pending: pending.join('; '), duplicates, pods: pods.length };
}
