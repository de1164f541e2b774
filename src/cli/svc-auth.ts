/**
 * `svc auth who-can` and `svc auth access-matrix`: who may do what, answered by the authorizer in
 * force on the server (SubjectAccessReviews, so RBAC, Node, Webhook and ABAC are all heard), not by
 * re-reading the policy here. The established server has neither; people install kubectl plugins.
 *
 *   svc auth who-can delete pods -n default        subjects allowed, with the reason the server gave
 *   svc auth access-matrix --as jane -n default    every resource x verb for one user
 *
 * who-can asks about every subject any RoleBinding (in the namespace) or ClusterRoleBinding names,
 * plus the groups every request has (system:authenticated, system:unauthenticated) and the
 * superuser group system:masters. The caller needs `create` on subjectaccessreviews and `list` on
 * the bindings.
 */
import { Command } from 'commander';
import type { ApiClient, DiscoveredResource, ResourceRef } from '../client/types.js';
import { connect } from '../client/connect.js';
import type { SvcObject } from '../api/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../api/service-account-token-format.js';
import { AUTHENTICATED_GROUP } from '../apiserver/auth/user.js';

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

interface ReviewUser {
  user: string;
  groups: string[];
}

function reviewUserOf(s: Subject): ReviewUser {
  if (s.kind === 'User') return { user: s.name, groups: [] };
  if (s.kind === 'Group') return { user: '', groups: [s.name] };
  return { user: serviceAccountUsername(s.namespace!, s.name), groups: [...serviceAccountGroups(s.namespace!), AUTHENTICATED_GROUP] };
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

interface ClientFlags {
  svcconfig?: string;
  master?: string;
  context?: string;
}

function clientOf(opts: ClientFlags) {
  return connect({
    ...(opts.svcconfig ? { svcconfig: opts.svcconfig } : { svcconfig: process.env['SVCCONFIG'] ?? '' }),
    ...(opts.master ? { master: opts.master } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    contentType: 'application/json',
    qps: 0,
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]! + 3))).join('').trimEnd()).join('\n') + '\n';
}

async function run(opts: ClientFlags, body: (client: ApiClient) => Promise<string>): Promise<void> {
  let conn: ReturnType<typeof connect> | undefined;
  try {
    conn = clientOf(opts);
    process.stdout.write(await body(conn.client));
  } catch (err) {
    process.stderr.write(`svc auth: error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await conn?.close();
  }
}

const withClientFlags = (c: Command): Command =>
  c
    .option('--svcconfig <file>', 'client configuration file (default $SVCCONFIG)')
    .option('--master <url>', 'API server address; overrides the file')
    .option('--context <name>', 'context of the configuration file to use');

export function authCommand(): Command {
  const cmd = new Command('auth').description('Who may do what, as the server in force decides it.');
  cmd.addCommand(
    withClientFlags(new Command('who-can'))
      .description('Lists the subjects (users, groups, service accounts named in bindings) allowed <verb> on <resource>.')
      .argument('<verb>', 'e.g. get, list, create, delete, impersonate')
      .argument('<resource>', 'e.g. pods, deployments.apps, pods/log')
      .argument('[name]', 'one object by name')
      .option('-n, --namespace <ns>', 'the namespace (default: cluster-wide)', '')
      .action(async (verb: string, resource: string, name: string | undefined, opts: ClientFlags & { namespace: string }) => {
        await run(opts, async (client) => {
          const allowed = await whoCan(client, { verb, resource, namespace: opts.namespace, ...(name ? { name } : {}) });
          if (allowed.length === 0) return `no subject may ${verb} ${resource}${opts.namespace ? ` in ${opts.namespace}` : ''}\n`;
          return table([['KIND', 'NAME', 'NAMESPACE', 'REASON'], ...allowed.map(({ subject, reason }) => [subject.kind, subject.name, subject.namespace ?? '', reason])]);
        });
      }),
  );
  cmd.addCommand(
    withClientFlags(new Command('access-matrix'))
      .description('Every resource x verb, allowed (yes) or not (no) for one user.')
      .requiredOption('--as <user>', 'the user asked about')
      .option('--as-group <group...>', 'groups of that user')
      .option('-n, --namespace <ns>', 'namespaced resources in this namespace (default: every resource, cluster-wide)', '')
      .action(async (opts: ClientFlags & { as: string; asGroup?: string[]; namespace: string }) => {
        await run(opts, async (client) => {
          const rows = await accessMatrix(client, { user: opts.as, groups: opts.asGroup ?? [] }, opts.namespace);
          const mark = (v: boolean | undefined) => (v === undefined ? 'n/a' : v ? 'yes' : 'no');
          return table([['RESOURCE', ...MATRIX_VERBS.map((v) => v.toUpperCase())], ...rows.map((r) => [r.resource, ...MATRIX_VERBS.map((v) => mark(r.verbs[v]))])]);
        });
      }),
  );
  return cmd;
}
