/**
 * Who may do what, asked of the authorizer in force on the server: SubjectAccessReviews (so RBAC,
 * Node, Webhook and ABAC are all heard), never a re-reading of the policy on the client side. One
 * home for `svc auth who-can` / `svc auth access-matrix` (src/cli/svc-auth.ts) and the access panel
 * of the /debug/machines page (src/runtime/inspection/access-panel.ts).
 *
 * - `review`: one SubjectAccessReview for a user (name, groups, uid, extra) and a resource question.
 * - `accessMatrix`: every resource the server serves (from discovery; subresources left out) x the
 *   matrix verbs it supports, for one user, in a namespace or cluster-wide.
 * - `whoCan`: every subject any RoleBinding (in the namespace) or ClusterRoleBinding names, plus the
 *   groups every request has (system:authenticated, system:unauthenticated) and the superuser group
 *   system:masters, each asked about; the allowed ones with the server's reason. The caller needs
 *   `create` on subjectaccessreviews and `list` on the bindings.
 * Reviews run at most 32 at once.
 */
import type { SvcObject } from '../api/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../api/service-account-token-format.js';
import type { ApiClient, DiscoveredResource, ResourceRef } from './types.js';

const SUBJECT_ACCESS_REVIEWS: ResourceRef = { group: 'authorization.svc.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
const CLUSTER_ROLE_BINDINGS: ResourceRef = { group: 'rbac.authorization.svc.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false };
const ROLE_BINDINGS: ResourceRef = { group: 'rbac.authorization.svc.io', version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true };
/** The verbs the matrix shows, in the established order. */
export const MATRIX_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] as const;
/** Reviews in flight at once. */
const PARALLEL = 32;

export interface Subject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  namespace?: string;
}

export interface ResourceQuestion {
  verb: string;
  /** `pods`, `deployments.apps`, `pods/log`. */
  resource: string;
  namespace: string;
  name?: string;
}

/** Who a review asks about: the user name (empty: only groups), groups, and optionally uid and extra. */
export interface ReviewUser {
  user: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

export function reviewUserOf(s: Subject): ReviewUser {
  if (s.kind === 'User') return { user: s.name, groups: [] };
  if (s.kind === 'Group') return { user: '', groups: [s.name] };
  return { user: serviceAccountUsername(s.namespace!, s.name), groups: [...serviceAccountGroups(s.namespace!), 'system:authenticated'] };
}

/** `deployments.apps/scale` -> group apps, resource deployments, subresource scale. */
export function splitResource(resource: string): { group: string; resource: string; subresource: string } {
  const [main = '', subresource = ''] = resource.split('/', 2);
  const dot = main.indexOf('.');
  return dot < 0 ? { group: '', resource: main, subresource } : { group: main.slice(dot + 1), resource: main.slice(0, dot), subresource };
}

/** One SubjectAccessReview: allowed, and the server's reason. */
export async function review(client: ApiClient, who: ReviewUser, q: ResourceQuestion): Promise<{ allowed: boolean; reason: string }> {
  const r = splitResource(q.resource);
  const sar = {
    apiVersion: 'authorization.svc.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      ...(who.user ? { user: who.user } : {}),
      ...(who.groups.length ? { groups: who.groups } : {}),
      ...(who.uid ? { uid: who.uid } : {}),
      ...(who.extra && Object.keys(who.extra).length ? { extra: who.extra } : {}),
      resourceAttributes: { verb: q.verb, group: r.group, resource: r.resource, subresource: r.subresource, namespace: q.namespace, ...(q.name ? { name: q.name } : {}) },
    },
  } as unknown as SvcObject;
  const answer = (await client.create(SUBJECT_ACCESS_REVIEWS, '', sar)) as unknown as { status?: { allowed?: boolean; reason?: string } };
  return { allowed: answer.status?.allowed === true, reason: answer.status?.reason ?? '' };
}

/** Every subject a binding names (in `namespace`, and cluster-wide), plus the groups every request is in. */
export async function candidateSubjects(client: ApiClient, namespace: string): Promise<Subject[]> {
  const bindings = [...(await client.list(CLUSTER_ROLE_BINDINGS)).items, ...(namespace ? (await client.list(ROLE_BINDINGS, { namespace })).items : [])];
  const seen = new Map<string, Subject>();
  const add = (s: Subject) => seen.set(`${s.kind}/${s.namespace ?? ''}/${s.name}`, s);
  for (const g of ['system:masters', 'system:authenticated', 'system:unauthenticated']) add({ kind: 'Group', name: g });
  for (const b of bindings) {
    for (const s of ((b as { subjects?: { kind?: string; name?: string; namespace?: string }[] }).subjects ?? [])) {
      if (!s.name || (s.kind !== 'User' && s.kind !== 'Group' && s.kind !== 'ServiceAccount')) continue;
      add({ kind: s.kind, name: s.name, ...(s.kind === 'ServiceAccount' ? { namespace: s.namespace ?? b.metadata.namespace ?? '' } : {}) });
    }
  }
  return [...seen.values()].sort((a, b) => a.kind.localeCompare(b.kind) || (a.namespace ?? '').localeCompare(b.namespace ?? '') || a.name.localeCompare(b.name));
}

/** The subjects allowed `q`, each with the server's reason. */
export async function whoCan(client: ApiClient, q: ResourceQuestion): Promise<{ subject: Subject; reason: string }[]> {
  const subjects = await candidateSubjects(client, q.namespace);
  const answers = await inBatches(subjects, (s) => review(client, reviewUserOf(s), q));
  return subjects.flatMap((subject, i) => (answers[i]!.allowed ? [{ subject, reason: answers[i]!.reason }] : []));
}

/** For each resource the server serves (not subresources) and each matrix verb it supports: allowed or not. */
export async function accessMatrix(client: ApiClient, who: ReviewUser, namespace: string): Promise<{ resource: string; verbs: Record<string, boolean | undefined> }[]> {
  const discovered = (await client.discover()).filter((r) => !r.resource.includes('/') && (namespace === '' || r.namespaced));
  discovered.sort((a, b) => label(a).localeCompare(label(b)));
  const questions = discovered.flatMap((r) => MATRIX_VERBS.filter((v) => r.verbs.includes(v)).map((verb) => ({ r, verb })));
  const answers = await inBatches(questions, ({ r, verb }) => review(client, who, { verb, resource: label(r), namespace }));
  const rows = new Map<string, Record<string, boolean | undefined>>();
  questions.forEach(({ r, verb }, i) => {
    const row = rows.get(label(r)) ?? {};
    row[verb] = answers[i]!.allowed;
    rows.set(label(r), row);
  });
  return discovered.map((r) => ({ resource: label(r), verbs: rows.get(label(r)) ?? {} }));
}

const label = (r: DiscoveredResource): string => (r.group ? `${r.resource}.${r.group}` : r.resource);

async function inBatches<T, R>(items: readonly T[], fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  return out;
}
