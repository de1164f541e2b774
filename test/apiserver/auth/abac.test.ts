/**
 * ABAC policy parsing and matching in unit form (the e2e external-auth test runs it in a real
 * server): the established v1beta1 and v0 conversions, wildcards, path prefixes, readonly verbs,
 * group spellings, and the load error naming the line.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AbacAuthorizer, parseAbacPolicies } from '../../../src/apiserver/auth/abac.js';
import type { AccessAttributes } from '../../../src/apiserver/auth/authorization.js';

const V1 = (spec: Record<string, unknown>): string => JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });
const res = (verb: string, resource: string, namespace = 'ns', group = '', subresource = ''): AccessAttributes => ({ kind: 'resource', verb, group, version: 'v1', resource, subresource, namespace, name: '' });
const path = (verb: string, p: string): AccessAttributes => ({ kind: 'nonResource', verb, path: p });
const alice = { username: 'alice', groups: ['devs', 'system:authenticated'] };
const anon = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

test('v1beta1: user and group, "*" as every authenticated user, readonly, namespace/resource/apiGroup, subresources', () => {
  const a = new AbacAuthorizer(
    parseAbacPolicies(
      [
        V1({ user: 'alice', namespace: 'ns', resource: 'pods', apiGroup: '', readonly: true }),
        V1({ group: 'devs', namespace: '*', resource: 'roles', apiGroup: 'rbac.authorization.k8s.io' }),
        V1({ user: '*', nonResourcePath: '/logs/*', readonly: true }),
      ].join('\n'),
      'p.jsonl',
    ),
  );
  assert.is(a.authorize(alice, res('list', 'pods')).allowed, true);
  assert.is(a.authorize(alice, res('get', 'pods', 'ns', '', 'log')).allowed, true, 'the resource without its subresource');
  assert.is(a.authorize(alice, res('delete', 'pods')).allowed, false, 'readonly');
  assert.is(a.authorize(alice, res('list', 'pods', 'other')).allowed, false);
  assert.is(a.authorize(alice, res('list', 'pods', 'ns', 'apps')).allowed, false, 'apiGroup "" is the core group only');
  assert.is(a.authorize(alice, res('delete', 'roles', 'x', 'rbac.authorization.svc.io')).allowed, true, 'either spelling of a group');
  assert.is(a.authorize({ username: 'bob', groups: ['system:authenticated'] }, res('list', 'roles', 'x', 'rbac.authorization.svc.io')).allowed, false);
  assert.is(a.authorize(alice, path('get', '/logs/kube.log')).allowed, true, 'a trailing * is a prefix');
  assert.is(a.authorize(alice, path('get', '/log')).allowed, false);
  assert.is(a.authorize(anon, path('get', '/logs/x')).allowed, false, '"*" is not the anonymous user');
  const d = a.authorize(alice, path('post', '/logs/x'));
  assert.equal(d, { allowed: false, reason: 'No policy matched.' }, 'never a deny: no opinion');
  assert.equal(a.rulesFor(alice, 'ns'), {
    resourceRules: [
      { verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['*'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'] },
    ],
    nonResourceRules: [],
    incomplete: false,
  });
});

test('v0 lines are converted as established; comments and blank lines skipped', () => {
  const a = new AbacAuthorizer(parseAbacPolicies('# comment\n\n{"user":"alice","readonly":true}\n{"resource":"events"}\n', 'p'));
  assert.is(a.authorize(alice, res('list', 'secrets', 'any', 'apps')).allowed, true, 'empty namespace/resource: any, every group');
  assert.is(a.authorize(alice, path('get', '/metrics')).allowed, true, 'no namespace and resource: non-resource paths too');
  assert.is(a.authorize({ username: 'bob', groups: ['system:authenticated'] }, res('create', 'events', 'x')).allowed, true, 'no user or group: every authenticated user');
  assert.is(a.authorize(anon, res('create', 'events', 'x')).allowed, false);
});

test('a bad line is an error naming the file, the line number and the line', () => {
  for (const [line, why] of [
    ['{not json', /not a JSON object/],
    [JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v9', kind: 'Policy', spec: {} }), /unknown apiVersion/],
    [JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Role', spec: {} }), /kind "Role" is not Policy/],
    [V1({ readonly: 'yes' }), /readonly must be true or false/],
  ] as const) {
    assert.throws(() => parseAbacPolicies(`${V1({ user: 'a' })}\n# x\n${line}\n`, '/etc/p.jsonl'), (e: Error) => e.message.startsWith(`error reading policy file /etc/p.jsonl, line 3: ${line}: `) && why.test(e.message));
  }
});

test.run();
