// RBAC rule semantics as pure functions: what one rule allows (verbs, groups in both spellings,
// subresources, `*/scale`, resourceNames, non-resource URL prefixes), `covers` (escalation
// prevention) with the established missing-rule text, the bootstrap reconciler's additions, and
// the aggregation controller's union.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClusterRole } from '../../../src/api/generated/kinds.js';
import type { SvcObject } from '../../../src/api/types.js';
import { aggregatedRules } from '../../../controllers/clusterroleaggregation/index.js';
import type { AccessAttributes } from '../../../src/apiserver/auth/authorization.js';
import { BUILTIN_CONTROLLERS } from '../../../controllers/registry.js';
import { CONTROLLER_SERVICE_ACCOUNTS, bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles } from '../../../src/apiserver/auth/rbac/bootstrap-policy.js';
import { reconcileClusterRole, reconcileClusterRoleBinding } from '../../../src/apiserver/auth/rbac/bootstrap-reconciler.js';
import { compactString, compileRule, covers, type PolicyRule, ruleAllows, rulesToString } from '../../../src/apiserver/auth/rbac/rules.js';

const res = (verb: string, group: string, resource: string, o: { sub?: string; ns?: string; name?: string } = {}): AccessAttributes => ({
  kind: 'resource', verb, group, version: 'v1', resource, subresource: o.sub ?? '', namespace: o.ns ?? 'default', name: o.name ?? '',
});
const url = (verb: string, path: string): AccessAttributes => ({ kind: 'nonResource', verb, path });
const allows = (r: PolicyRule, a: AccessAttributes) => ruleAllows(compileRule(r), a);

test('verbs and groups: the verb or *, the group or *; a rule in the established group spelling matches ours', () => {
  const r: PolicyRule = { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] };
  assert.ok(allows(r, res('get', 'apps', 'deployments')));
  assert.not.ok(allows(r, res('delete', 'apps', 'deployments')));
  assert.not.ok(allows(r, res('get', '', 'deployments')));
  assert.ok(allows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, res('escalate', 'rbac.authorization.svc.io', 'clusterroles')));
  assert.ok(allows({ verbs: ['create'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] }, res('create', 'rbac.authorization.svc.io', 'roles')));
});

test('resources: a subresource is its own resource (pods/log), */scale is any scale, * is everything', () => {
  const pods: PolicyRule = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  assert.ok(allows(pods, res('get', '', 'pods')));
  assert.not.ok(allows(pods, res('get', '', 'pods', { sub: 'log' })), 'pods does not grant pods/log');
  assert.ok(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods', { sub: 'log' })));
  assert.not.ok(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, res('get', '', 'pods')), 'pods/log does not grant pods');
  const scale: PolicyRule = { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] };
  assert.ok(allows(scale, res('get', 'apps', 'deployments', { sub: 'scale' })));
  assert.ok(allows(scale, res('get', '', 'replicationcontrollers', { sub: 'scale' })));
  assert.not.ok(allows(scale, res('get', 'apps', 'deployments')));
  assert.not.ok(allows(scale, res('get', 'apps', 'deployments', { sub: 'status' })));
  assert.ok(allows({ verbs: ['get'], apiGroups: [''], resources: ['*'] }, res('get', '', 'pods', { sub: 'exec' })));
});

test('resourceNames: only the named objects; a request with no name (list, create) never matches', () => {
  const r: PolicyRule = { verbs: ['get', 'update', 'list'], apiGroups: ['coordination.svc.io'], resources: ['leases'], resourceNames: ['svc-scheduler'] };
  assert.ok(allows(r, res('get', 'coordination.svc.io', 'leases', { name: 'svc-scheduler' })));
  assert.not.ok(allows(r, res('get', 'coordination.svc.io', 'leases', { name: 'other' })));
  assert.not.ok(allows(r, res('list', 'coordination.svc.io', 'leases')));
});

test('non-resource URLs: exact, a trailing * as a prefix, and *; never a resource request', () => {
  const r: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
  assert.ok(allows(r, url('get', '/healthz')));
  assert.not.ok(allows(r, url('get', '/healthz/etcd')));
  assert.ok(allows(r, url('get', '/apis/apps/v1')));
  assert.ok(allows(r, url('get', '/apis/')));
  assert.not.ok(allows(r, url('get', '/apis')));
  assert.not.ok(allows(r, url('post', '/healthz')));
  assert.ok(allows({ verbs: ['*'], nonResourceURLs: ['*'] }, url('delete', '/anything')));
  assert.not.ok(allows(r, res('get', '', 'pods')), 'a URL rule grants no resource');
  assert.not.ok(allows({ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, url('get', '/healthz')), 'a resource rule grants no URL');
});

test('covers: everything covers anything; exact and */subresource owners; names; URL prefixes', () => {
  const all: PolicyRule[] = [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }];
  assert.ok(covers(all, [{ verbs: ['get', 'escalate'], apiGroups: ['x.io'], resources: ['things', 'things/status'], resourceNames: ['a'] }, { verbs: ['get'], nonResourceURLs: ['/metrics'] }]).covered);
  const owner: PolicyRule[] = [
    { verbs: ['get', 'list'], apiGroups: ['apps'], resources: ['deployments'] },
    { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
    { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a', 'b'] },
    { verbs: ['get'], nonResourceURLs: ['/api/*'] },
  ];
  assert.ok(covers(owner, [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments'] }]).covered);
  assert.ok(covers(owner, [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments/scale', 'statefulsets/scale'] }]).covered);
  assert.ok(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['b'] }]).covered);
  assert.not.ok(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]).covered, 'named owner does not cover every name');
  assert.ok(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/api/v1', '/api/*'] }]).covered);
  assert.not.ok(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/apis'] }]).covered);
  assert.not.ok(covers(owner, [{ verbs: ['*'], apiGroups: ['apps'], resources: ['deployments'] }]).covered, 'a verb * needs an owner verb *');
  // Groups in either spelling are the same group.
  assert.ok(covers([{ verbs: ['get'], apiGroups: ['rbac.authorization.svc.io'], resources: ['roles'] }], [{ verbs: ['get'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] }]).covered);
});

test('covers: the missing permissions, compacted per group and resource, in the established text', () => {
  const owner: PolicyRule[] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
  const { covered, missing } = covers(owner, [{ verbs: ['get', 'list', 'delete'], apiGroups: ['', 'apps'], resources: ['pods', 'deployments'] }]);
  assert.not.ok(covered);
  assert.is(
    rulesToString(missing),
    [
      '{APIGroups:[""], Resources:["deployments"], Verbs:["get" "list" "delete"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}',
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list" "delete"]}',
      '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "list" "delete"]}',
    ].join('\n'),
  );
  assert.is(compactString({ verbs: ['get'], nonResourceURLs: ['/metrics'] }), '{NonResourceURLs:["/metrics"], Verbs:["get"]}');
  assert.is(compactString({ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }), '{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get"]}');
});

const stored = (o: SvcObject): SvcObject => ({ ...structuredClone(o), metadata: { ...structuredClone(o.metadata), resourceVersion: '5', uid: 'u' } });

test('bootstrap reconciliation adds what is missing and keeps what an administrator added', () => {
  const want = bootstrapClusterRoles().find((r) => r.metadata.name === 'system:basic-user')!;
  assert.is(reconcileClusterRole(stored(want), want), undefined, 'nothing to do when equal');
  const edited = stored(want);
  edited['rules'] = [{ verbs: ['create'], apiGroups: ['authorization.svc.io'], resources: ['selfsubjectaccessreviews'] }, { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }];
  edited.metadata.labels = { mine: 'yes' };
  const next = reconcileClusterRole(edited, want)!;
  const rules = next['rules'] as PolicyRule[];
  assert.ok(rules.some((r) => r.resources?.[0] === 'configmaps'), 'extra rule kept');
  assert.ok(covers(rules, want['rules'] as PolicyRule[]).covered, 'missing rules added');
  assert.is(next.metadata.labels!['mine'], 'yes');
  assert.is(next.metadata.labels!['svc.io/bootstrapping'], 'rbac-defaults');
  // An aggregated role's rules belong to the aggregation controller.
  const admin = bootstrapClusterRoles().find((r) => r.metadata.name === 'admin')!;
  const filled = stored(admin);
  filled['rules'] = [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }];
  assert.is(reconcileClusterRole(filled, admin), undefined);

  const binding = bootstrapClusterRoleBindings().find((b) => b.metadata.name === 'system:public-info-viewer')!;
  const fewer = stored(binding);
  fewer['subjects'] = [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'someone' }];
  const b = reconcileClusterRoleBinding(fewer, binding) as SvcObject;
  assert.equal((b['subjects'] as { name: string }[]).map((s) => s.name), ['someone', 'system:authenticated', 'system:unauthenticated']);
  const moved = stored(binding);
  moved['roleRef'] = { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'view' };
  assert.is(reconcileClusterRoleBinding(moved, binding), 'recreate');
});

test('the default policy: cluster-admin to system:masters, controllers to their svc-system accounts, public info to everyone', () => {
  const bindings = new Map(bootstrapClusterRoleBindings().map((b) => [b.metadata.name, b]));
  assert.equal(bindings.get('cluster-admin')!['subjects'], [{ kind: 'Group', name: 'system:masters', apiGroup: 'rbac.authorization.svc.io' }]);
  assert.equal(bindings.get('system:controller:deployment-controller')!['subjects'], [{ kind: 'ServiceAccount', name: 'deployment-controller', namespace: 'svc-system' }]);
  assert.equal(bindings.get('system:node')!['subjects'], []);
  const names = bootstrapClusterRoles().map((r) => r.metadata.name);
  for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:auth-delegator', 'system:svc-scheduler', 'system:svc-controller-manager', 'system:node', 'system:node-proxier', 'system:volume-scheduler', 'system:monitoring', 'system:controller:clusterrole-aggregation-controller']) {
    assert.ok(names.includes(n), n);
  }
  for (const r of bootstrapClusterRoles()) assert.is(r.metadata.annotations!['rbac.authorization.svc.io/autoupdate'], 'true');
  // Delegated authentication's reader, for the components, in svc-system.
  const reader = bootstrapRoleBindings().find((b) => b.metadata.name === 'system::extension-apiserver-authentication-reader')!;
  assert.is(reader.metadata.namespace, 'svc-system');
  assert.equal((reader['subjects'] as { name: string }[]).map((s) => s.name), ['system:svc-controller-manager', 'system:svc-scheduler']);
  assert.ok(bootstrapRoles().some((r) => r.metadata.namespace === 'svc-public' && r.metadata.name === 'system:controller:bootstrap-signer'));
});

const NAMESPACED_ONLY = new Set(['bootstrap-signer', 'token-cleaner']);

test('every built controller has its established service account and role in the default policy', () => {
  const roles = new Set(bootstrapClusterRoles().map((r) => r.metadata.name));
  const bindings = new Map(bootstrapClusterRoleBindings().map((b) => [b.metadata.name, b]));
  for (const c of BUILTIN_CONTROLLERS.filter((b) => b.build)) {
    const account = CONTROLLER_SERVICE_ACCOUNTS[c.name];
    assert.ok(account !== undefined, `${c.name} is listed`);
    if (account === null) continue; // runs with the manager's own credentials, as established
    if (NAMESPACED_ONLY.has(account)) {
      // Its established roles are namespaced (svc-system, svc-public): a RoleBinding in each binds it.
      const bound = bootstrapRoleBindings().filter((b) => (b['subjects'] as { name: string }[]).some((s) => s.name === account));
      assert.ok(bound.length > 0, `${c.name}: role bindings`);
      continue;
    }
    assert.ok(roles.has(`system:controller:${account}`), `${c.name}: role`);
    assert.equal(bindings.get(`system:controller:${account}`)!['subjects'], [{ kind: 'ServiceAccount', name: account, namespace: 'svc-system' }]);
  }
});

test('aggregation: the union of the matched roles, by name, each rule once, never the role itself', () => {
  const role = (name: string, labels: Record<string, string>, rules: PolicyRule[], agg?: Record<string, string>): ClusterRole => ({
    apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', metadata: { name, labels }, rules, ...(agg ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: agg }] } } : {}),
  });
  const a = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
  const b = { verbs: ['list'], apiGroups: ['apps'], resources: ['deployments'] };
  const target = role('monitoring', { 'agg': 'yes' }, [{ verbs: ['stale'], apiGroups: [''], resources: ['x'] }], { agg: 'yes' });
  const all = [target, role('z-src', { agg: 'yes' }, [b, a]), role('a-src', { agg: 'yes' }, [a]), role('unrelated', {}, [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }])];
  assert.equal(aggregatedRules(target, all), [a, b]);
});

test.run();
