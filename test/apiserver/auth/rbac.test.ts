// RBAC end to end: a real API server with --authorization-mode=RBAC (in process, so tests can call
// it as any user through the in-process transport), its default policy reconciled at start, and
// the clusterrole-aggregation controller filling admin/edit/view. An authorization matrix of
// users in cluster-admin, admin, edit, view (bound in one namespace), a service account and
// anonymous, every verb on a representative set of resources, against what the established roles
// grant; per-namespace lists and watches; escalation attempts; the access reviews; the 403s.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClusterRole } from '../../../src/api/generated/kinds.js';
import type { SvcObject } from '../../../src/api/types.js';
import { connectInProcess } from '../../../src/cli/in-process-client.js';
import { accessMatrix, whoCan } from '../../../src/client/access-review.js';
import { resources, type ResourceRef } from '../../../src/client/index.js';
import { ApiError, type ApiClient } from '../../../src/client/types.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../../helpers/client.js';
import { namespace } from '../../helpers/objects.js';

const RBAC = 'rbac.authorization.svc.io';
const AUTHZ = 'authorization.svc.io';
const SAR: ResourceRef = { group: AUTHZ, version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };
const LSAR: ResourceRef = { group: AUTHZ, version: 'v1', resource: 'localsubjectaccessreviews', kind: 'LocalSubjectAccessReview', namespaced: true };
const SSRR: ResourceRef = { group: AUTHZ, version: 'v1', resource: 'selfsubjectrulesreviews', kind: 'SelfSubjectRulesReview', namespaced: false };

interface User {
  username: string;
  groups: string[];
}
const authed = (username: string, ...groups: string[]): User => ({ username, groups: [...groups, 'system:authenticated'] });
const USERS: Record<string, User> = {
  root: authed('dana'), // ClusterRoleBinding to cluster-admin
  admin: authed('alice'), // RoleBinding to admin in "team"
  edit: authed('bob', 'editors'), // RoleBinding of the group to edit in "team"
  view: authed('carol'), // RoleBinding to view in "team"
  robot: authed('system:serviceaccount:team:robot', 'system:serviceaccounts', 'system:serviceaccounts:team'), // Role pod-reader via a ServiceAccount subject
  anonymous: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
};

let cluster: TestCluster;
const clients = new Map<string, ApiClient>();
const as = (who: keyof typeof USERS | User): ApiClient => {
  const user = typeof who === 'string' ? USERS[who]! : who;
  let c = clients.get(user.username);
  if (!c) clients.set(user.username, (c = connectInProcess(cluster.apiServer, { user }).client));
  return c;
};

const binding = (kind: 'RoleBinding' | 'ClusterRoleBinding', name: string, ns: string, roleKind: string, role: string, subjects: Record<string, string>[]): SvcObject => ({
  apiVersion: `${RBAC}/v1`,
  kind,
  metadata: { name, ...(ns ? { namespace: ns } : {}) },
  roleRef: { apiGroup: RBAC, kind: roleKind, name: role },
  subjects,
});
const user = (name: string) => ({ kind: 'User', apiGroup: RBAC, name });
const group = (name: string) => ({ kind: 'Group', apiGroup: RBAC, name });

/** The refusal of a call, or undefined when it succeeded. */
async function refusal(p: Promise<unknown>): Promise<ApiError | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
}

async function sar(u: User, attrs: Record<string, string>): Promise<{ allowed: boolean; reason?: string }> {
  const kind = attrs['path'] !== undefined ? 'nonResourceAttributes' : 'resourceAttributes';
  const r = await cluster.client.create<SvcObject>(SAR, '', { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', metadata: {}, spec: { [kind]: attrs, user: u.username, groups: u.groups } });
  return r['status'] as { allowed: boolean; reason?: string };
}

test.before(async () => {
  cluster = await startTestCluster({ controllers: ['clusterrole-aggregation'], scheduler: false, apiServerArgs: ['--authorization-mode=RBAC'] });
  const admin = cluster.client;
  // The controller manager runs as system:svc-controller-manager here: give it the aggregation
  // controller's established role (what its own service account holds under
  // --use-service-account-credentials), so the controller works through RBAC like any client.
  await admin.create(resources.clusterrolebindings, '', binding('ClusterRoleBinding', 'test:aggregation', '', 'ClusterRole', 'system:controller:clusterrole-aggregation-controller', [user('system:svc-controller-manager')]));
  await admin.create(resources.clusterrolebindings, '', binding('ClusterRoleBinding', 'dana-root', '', 'ClusterRole', 'cluster-admin', [user('dana')]));
  for (const ns of ['team', 'other']) await admin.create(resources.namespaces, '', namespace(ns));
  await admin.create(resources.rolebindings, 'team', binding('RoleBinding', 'alice-admin', 'team', 'ClusterRole', 'admin', [user('alice')]));
  await admin.create(resources.rolebindings, 'team', binding('RoleBinding', 'editors', 'team', 'ClusterRole', 'edit', [group('editors')]));
  await admin.create(resources.rolebindings, 'team', binding('RoleBinding', 'carol-view', 'team', 'ClusterRole', 'view', [user('carol')]));
  await admin.create(resources.roles, 'team', {
    apiVersion: `${RBAC}/v1`,
    kind: 'Role',
    metadata: { name: 'pod-reader' },
    rules: [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
    ],
  } as SvcObject);
  // A ServiceAccount subject with no namespace is in the binding's namespace.
  await admin.create(resources.rolebindings, 'team', binding('RoleBinding', 'robot', 'team', 'Role', 'pod-reader', [{ kind: 'ServiceAccount', name: 'robot' }]));
  // The aggregated roles are filled by the controller, and the policy reaches the authorizer's cache.
  await eventually(async () => (await cluster.client.get<ClusterRole>(resources.clusterroles, '', 'admin')).rules?.some((r) => r.resources?.includes('rolebindings')) === true, 30_000, 'admin aggregated');
  await eventually(async () => (await sar(USERS['admin']!, { namespace: 'team', verb: 'create', resource: 'pods' })).allowed, 30_000, 'policy visible');
});

test.after(async () => {
  await cluster?.stop();
});

test('the default policy is reconciled at start and admin/edit/view are aggregated from their labelled roles', async () => {
  const admin = cluster.client;
  const role = (name: string) => admin.get<ClusterRole>(resources.clusterroles, '', name);
  assert.equal((await role('cluster-admin')).rules, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }]);
  assert.is((await role('cluster-admin')).metadata.annotations?.['rbac.authorization.svc.io/autoupdate'], 'true');
  const crb = await admin.get<SvcObject>(resources.clusterrolebindings, '', 'system:public-info-viewer');
  assert.equal((crb['subjects'] as { name: string }[]).map((s) => s.name), ['system:authenticated', 'system:unauthenticated']);
  await admin.get(resources.clusterroles, '', 'system:controller:deployment-controller');
  await admin.get(resources.rolebindings, 'svc-system', 'system::extension-apiserver-authentication-reader');
  // view ⊂ edit ⊂ admin, by aggregation.
  const view = await role('view');
  const edit = await role('edit');
  const adminRole = await role('admin');
  const has = (r: ClusterRole, res: string, verb: string) => (r.rules ?? []).some((x) => x.resources?.includes(res) && x.verbs?.includes(verb));
  assert.ok(has(view, 'pods', 'list') && !has(view, 'secrets', 'get'));
  assert.ok(has(edit, 'pods', 'list') && has(edit, 'secrets', 'create') && !has(edit, 'roles', 'create'));
  assert.ok(has(adminRole, 'pods', 'list') && has(adminRole, 'secrets', 'create') && has(adminRole, 'roles', 'create'));

  // A new labelled ClusterRole is aggregated into view (and so into edit and admin); the
  // established label key, which charts carry, is selected too.
  await admin.create(resources.clusterroles, '', {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: { name: 'widgets-view', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } },
    rules: [{ verbs: ['get', 'list'], apiGroups: ['example.com'], resources: ['widgets'] }],
  } as SvcObject);
  await eventually(async () => has(await role('admin'), 'widgets', 'list'), 30_000, 'widgets reach admin through view and edit');
  assert.ok(has(await role('view'), 'widgets', 'get'));
  // Removing it removes its rules again.
  await admin.delete(resources.clusterroles, '', 'widgets-view');
  await eventually(async () => !has(await role('view'), 'widgets', 'list'), 30_000, 'widgets gone from view');
});

const RW = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const R = ['get', 'list', 'watch'];
/** What the established roles grant, per user and resource (in namespace "team"; namespaces and nodes as real requests ask). */
const EXPECTED: Record<string, Record<string, string[]>> = {
  root: { pods: RW, 'pods/log': RW, deployments: RW, secrets: RW, roles: RW, rolebindings: RW, configmaps: RW, namespaces: RW, nodes: RW },
  admin: { pods: RW, 'pods/log': R, deployments: RW, secrets: RW, roles: RW, rolebindings: RW, configmaps: RW, namespaces: ['get'], nodes: [] },
  edit: { pods: RW, 'pods/log': R, deployments: RW, secrets: RW, roles: [], rolebindings: [], configmaps: RW, namespaces: ['get'], nodes: [] },
  view: { pods: R, 'pods/log': R, deployments: R, secrets: [], roles: [], rolebindings: [], configmaps: R, namespaces: ['get'], nodes: [] },
  robot: { pods: R, 'pods/log': ['get'], deployments: [], secrets: [], roles: [], rolebindings: [], configmaps: [], namespaces: [], nodes: [] },
  anonymous: { pods: [], 'pods/log': [], deployments: [], secrets: [], roles: [], rolebindings: [], configmaps: [], namespaces: [], nodes: [] },
};
const GROUPS: Record<string, string> = { deployments: 'apps', roles: RBAC, rolebindings: RBAC };

/** The attributes a real request for `verb` on `key` carries (namespaces: one namespace is in itself; a list is cluster-wide). */
function attributesFor(key: string, verb: string, ns: string): Record<string, string> {
  const [resource, subresource] = key.split('/') as [string, string | undefined];
  const named = !['list', 'watch', 'create', 'deletecollection'].includes(verb);
  const a: Record<string, string> = { verb, resource, group: GROUPS[resource] ?? '' };
  if (subresource) a['subresource'] = subresource;
  if (resource === 'nodes') {
    if (named) a['name'] = 'node-1';
  } else if (resource === 'namespaces') {
    if (named) Object.assign(a, { name: ns, namespace: ns });
  } else {
    a['namespace'] = ns;
    if (named || subresource) a['name'] = 'x';
  }
  return a;
}

test('authorization matrix: every verb on pods, pods/log, deployments, secrets, roles, rolebindings, configmaps, namespaces, nodes', async () => {
  const wrong: string[] = [];
  let asked = 0;
  for (const [who, row] of Object.entries(EXPECTED)) {
    for (const [key, allowed] of Object.entries(row)) {
      for (const verb of RW) {
        const got = (await sar(USERS[who]!, attributesFor(key, verb, 'team'))).allowed;
        asked++;
        if (got !== allowed.includes(verb)) wrong.push(`${who} ${verb} ${key}: got ${got}`);
        // Bound in "team" only: nothing at all in "other" (cluster-admin aside).
        if (who !== 'root' && key !== 'nodes') {
          const elsewhere = (await sar(USERS[who]!, attributesFor(key, verb, 'other'))).allowed;
          asked++;
          if (elsewhere) wrong.push(`${who} ${verb} ${key} in "other": allowed`);
        }
      }
    }
  }
  assert.equal(wrong, [], `${wrong.length} of ${asked} answers differ from the established roles`);
  assert.ok(asked > 700);
});

test('real requests agree with the reviews, and the 403 says who, what and where (established text)', async () => {
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } }) as SvcObject;
  for (const who of Object.keys(EXPECTED)) {
    const create = await refusal(as(who).create(resources.configmaps, 'team', cm(`by-${who}`)));
    assert.is(create === undefined, EXPECTED[who]!['configmaps']!.includes('create'), `${who} create configmaps`);
    if (create) assert.is(create.code, 403);
    const list = await refusal(as(who).list(resources.pods, { namespace: 'team' }));
    assert.is(list === undefined, EXPECTED[who]!['pods']!.includes('list'), `${who} list pods`);
  }
  const e = (await refusal(as('view').create(resources.configmaps, 'team', cm('nope'))))!;
  assert.is(e.message, 'configmaps is forbidden: User "carol" cannot create resource "configmaps" in API group "" in the namespace "team"');
  assert.is(e.reason, 'Forbidden');
  // Dry run is authorized exactly as the real request.
  const dry = (await refusal(as('view').create(resources.configmaps, 'team', cm('nope'), { dryRun: true })))!;
  assert.is(dry.code, 403);
  assert.is(dry.message, e.message);
  assert.is(await refusal(as('edit').create(resources.configmaps, 'team', cm('dry'), { dryRun: true })), undefined);
  const anon = (await refusal(as('anonymous').get(resources.namespaces, '', 'team')))!;
  assert.is(anon.message, 'namespaces "team" is forbidden: User "system:anonymous" cannot get resource "namespaces" in API group "" in the namespace "team"');
});

test('lists and watches are authorized per namespace: one namespace is seen, another or all of them is a 403', async () => {
  const alice = as('admin');
  assert.ok((await alice.list(resources.configmaps, { namespace: 'team' })).items.some((c) => c.metadata.name === 'by-admin'));
  const other = (await refusal(alice.list(resources.configmaps, { namespace: 'other' })))!;
  assert.is(other.code, 403);
  const all = (await refusal(alice.list(resources.configmaps)))!;
  assert.is(all.message, 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope');
  // A watch of the namespace delivers; a watch of all namespaces is refused.
  const seen = await new Promise<string>((resolve, reject) => {
    const sub = alice.watch(resources.configmaps, { namespace: 'team' }).subscribe({
      next: (ev) => {
        sub.unsubscribe();
        resolve(ev.object.metadata.namespace ?? '');
      },
      error: reject,
    });
  });
  assert.is(seen, 'team');
  const refused = await new Promise<unknown>((resolve) => {
    const sub = alice.watch(resources.configmaps, {}).subscribe({ next: () => resolve('event'), error: (err) => resolve(err) });
    setTimeout(() => sub.unsubscribe(), 10_000).unref();
  });
  assert.instance(refused, ApiError);
  assert.is((refused as ApiError).code, 403);
  // Reading one's own namespace object is allowed, listing namespaces is not.
  assert.is((await alice.get(resources.namespaces, '', 'team')).metadata.name, 'team');
  assert.is((await refusal(alice.list(resources.namespaces)))!.code, 403);
});

test('escalation is refused: no one writes a role with, or binds a role of, permissions they do not hold', async () => {
  const alice = as('admin');
  const role = (name: string, rules: unknown[]) => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name }, rules }) as SvcObject;
  // Within what she holds: fine.
  await alice.create(resources.roles, 'team', role('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
  // Nodes she cannot touch: refused, dry run too, with the established text.
  const wide = role('wide', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] }]);
  const e = (await refusal(alice.create(resources.roles, 'team', wide)))!;
  assert.is(e.code, 403);
  assert.is(
    e.message,
    'roles.rbac.authorization.svc.io "wide" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get" "list"]}',
  );
  assert.is((await refusal(alice.create(resources.roles, 'team', wide, { dryRun: true })))!.code, 403);
  // Nor by changing a role she may write.
  const reader = await alice.get<SvcObject>(resources.roles, 'team', 'reader');
  assert.is((await refusal(alice.update(resources.roles, 'team', { ...structuredClone(reader), rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] })))!.code, 403);
  // Binding cluster-admin in her namespace: refused; binding view (which she holds): fine.
  const toRoot = binding('RoleBinding', 'root-here', 'team', 'ClusterRole', 'cluster-admin', [user('mallory')]);
  assert.match((await refusal(alice.create(resources.rolebindings, 'team', toRoot)))!.message, /rolebindings.rbac.authorization.svc.io "root-here" is forbidden: user "alice" .* is attempting to grant RBAC permissions not currently held/);
  await alice.create(resources.rolebindings, 'team', binding('RoleBinding', 'viewer', 'team', 'ClusterRole', 'view', [user('victor')]));
  // edit may not write bindings at all (the authorizer refuses before any check).
  assert.is((await refusal(as('edit').create(resources.rolebindings, 'team', binding('RoleBinding', 'x', 'team', 'ClusterRole', 'view', [user('x')]))))!.code, 403);

  // `bind` on cluster-admin (by name) and `escalate` on roles lift the checks, in that namespace.
  await cluster.client.create(resources.roles, 'team', role('delegate', [
    { verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] },
    { verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] },
  ]));
  await cluster.client.create(resources.rolebindings, 'team', binding('RoleBinding', 'alice-delegate', 'team', 'Role', 'delegate', [user('alice')]));
  await eventually(async () => (await refusal(alice.create(resources.rolebindings, 'team', toRoot))) === undefined, 20_000, 'bind allowed');
  assert.is(await refusal(alice.create(resources.roles, 'team', wide)), undefined);
  // Still nothing outside the namespace: a ClusterRoleBinding needs bind at the cluster scope.
  assert.is((await refusal(alice.create(resources.clusterrolebindings, '', binding('ClusterRoleBinding', 'alice-root', '', 'ClusterRole', 'cluster-admin', [user('alice')]))))!.code, 403);
  // An aggregationRule needs cluster-admin's powers (dana has them through a binding, not system:masters).
  const agg = { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'agg-by-dana' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] } } as SvcObject;
  assert.is(await refusal(as('root').create(resources.clusterroles, '', agg)), undefined);
  // Someone who may create ClusterRoles, but holds less than everything, may not set one.
  await cluster.client.create(resources.clusterroles, '', { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'role-writer' }, rules: [{ verbs: ['create'], apiGroups: [RBAC], resources: ['clusterroles'] }] } as SvcObject);
  await cluster.client.create(resources.clusterrolebindings, '', binding('ClusterRoleBinding', 'erin-role-writer', '', 'ClusterRole', 'role-writer', [user('erin')]));
  const erin = as(authed('erin'));
  const aggByErin = { ...structuredClone(agg), metadata: { name: 'agg-by-erin' } } as SvcObject;
  await eventually(async () => (await refusal(erin.create(resources.clusterroles, '', aggByErin)))?.message.includes('must have cluster-admin privileges') === true, 20_000, 'erin refused for the aggregationRule');
  assert.is((await refusal(erin.create(resources.clusterroles, '', aggByErin)))!.message, 'clusterroles.rbac.authorization.svc.io "agg-by-erin" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  assert.is(await refusal(erin.create(resources.clusterroles, '', { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'plain-by-erin' }, rules: [{ verbs: ['create'], apiGroups: [RBAC], resources: ['clusterroles'] }] } as SvcObject)), undefined, 'a role within what she holds');
});

test('SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview answer from RBAC', async () => {
  // Non-resource URLs: health and version for everyone, discovery for the authenticated.
  assert.ok((await sar(USERS['anonymous']!, { path: '/healthz', verb: 'get' })).allowed);
  assert.ok((await sar(USERS['anonymous']!, { path: '/version', verb: 'get' })).allowed);
  assert.not.ok((await sar(USERS['anonymous']!, { path: '/apis', verb: 'get' })).allowed);
  assert.ok((await sar(USERS['view']!, { path: '/apis/apps/v1', verb: 'get' })).allowed);
  const allowed = await sar(USERS['admin']!, { namespace: 'team', verb: 'delete', resource: 'secrets', name: 's' });
  assert.equal(allowed, { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-admin/team" of ClusterRole "admin" to User "alice"' });
  const robot = await sar(USERS['robot']!, { namespace: 'team', verb: 'get', resource: 'pods', subresource: 'log', name: 'p' });
  assert.is(robot.reason, 'RBAC: allowed by RoleBinding "robot/team" of Role "pod-reader" to ServiceAccount "robot/team"');
  assert.equal(await sar(USERS['view']!, { namespace: 'team', verb: 'get', resource: 'secrets' }), { allowed: false });
  // A binding to a role that does not exist: refused, and the reason says which.
  await cluster.client.create(resources.rolebindings, 'team', binding('RoleBinding', 'ghost', 'team', 'ClusterRole', 'no-such-role', [user('ghost')]));
  const ghost = authed('ghost');
  await eventually(async () => (await sar(ghost, { namespace: 'team', verb: 'get', resource: 'pods' })).reason !== undefined, 20_000, 'ghost binding seen');
  assert.equal(await sar(ghost, { namespace: 'team', verb: 'get', resource: 'pods' }), { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.svc.io "no-such-role" not found' });

  // A local review: alice (admin) may ask about her namespace; the namespace must be the path's.
  const local = (spec: Record<string, unknown>, ns = 'team') =>
    as('admin').create<SvcObject>(LSAR, ns, { apiVersion: `${AUTHZ}/v1`, kind: 'LocalSubjectAccessReview', metadata: {}, spec } as SvcObject);
  const r = await local({ user: 'carol', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'pods' } });
  assert.is((r['status'] as { allowed: boolean }).allowed, true);
  const mismatch = (await refusal(local({ user: 'carol', resourceAttributes: { namespace: 'other', verb: 'list', resource: 'pods' } })))!;
  assert.is(mismatch.code, 422);
  assert.match(mismatch.message, /spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace/);
  assert.is((await refusal(local({ user: 'carol', resourceAttributes: { namespace: 'other', verb: 'list', resource: 'pods' } }, 'other')))!.code, 403, 'alice may not ask in "other"');
  assert.is((await refusal(as('view').create(SAR, '', { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', metadata: {}, spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'pods' } } } as SvcObject)))!.code, 403);
  assert.is((await refusal(cluster.client.create(SAR, '', { apiVersion: `${AUTHZ}/v1`, kind: 'SubjectAccessReview', metadata: {}, spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } } as SvcObject)))!.code, 422, 'a user or a group is required');

  // What may I do here? (system:basic-user lets everyone authenticated ask.)
  const rules = await as('view').create<SvcObject>(SSRR, '', { apiVersion: `${AUTHZ}/v1`, kind: 'SelfSubjectRulesReview', metadata: {}, spec: { namespace: 'team' } } as SvcObject);
  const status = rules['status'] as { resourceRules: { verbs: string[]; resources: string[] }[]; nonResourceRules: { nonResourceURLs: string[] }[]; incomplete: boolean };
  assert.ok(status.resourceRules.some((x) => x.resources.includes('pods') && x.verbs.includes('watch')));
  assert.not.ok(status.resourceRules.some((x) => x.resources.includes('secrets')));
  assert.ok(status.nonResourceRules.some((x) => x.nonResourceURLs.includes('/healthz')));
  assert.is(status.incomplete, false);
});

test('svc auth who-can and access-matrix answer from the RBAC policy', async () => {
  const who = await whoCan(cluster.client, { verb: 'delete', resource: 'secrets', namespace: 'team' });
  const names = who.map((w) => `${w.subject.kind}:${w.subject.name}`).sort();
  for (const n of ['User:alice', 'Group:editors', 'User:dana', 'Group:system:masters']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
  for (const n of ['User:carol', 'ServiceAccount:robot', 'Group:system:authenticated']) assert.not.ok(names.includes(n), n);
  assert.is(who.find((w) => w.subject.name === 'alice')!.reason, 'RBAC: allowed by RoleBinding "alice-admin/team" of ClusterRole "admin" to User "alice"');
  const matrix = new Map((await accessMatrix(cluster.client, { user: 'carol', groups: ['system:authenticated'] }, 'team')).map((r) => [r.resource, r.verbs]));
  assert.equal(matrix.get('configmaps'), { get: true, list: true, watch: true, create: false, update: false, patch: false, delete: false, deletecollection: false });
  assert.is(matrix.get('secrets')!['get'], false);
  assert.is(matrix.get('deployments.apps')!['list'], true);
});

test('over HTTPS, anonymous: health and version answer, resources and discovery are a 403', async () => {
  const get = async (path: string) => {
    const { request } = await import('node:https');
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${cluster.url}${path}`, { rejectUnauthorized: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  };
  assert.is((await get('/healthz')).status, 200);
  assert.is((await get('/version')).status, 200);
  assert.is((await get('/apis')).status, 403);
  const pods = await get('/api/v1/pods');
  assert.is(pods.status, 403);
  assert.is(JSON.parse(pods.body).message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" at the cluster scope');
  assert.is(JSON.parse((await get('/metrics')).body).message, 'forbidden: User "system:anonymous" cannot get path "/metrics"');
});

test.run();
