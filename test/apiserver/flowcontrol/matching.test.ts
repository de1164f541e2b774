/**
 * Classification by the bootstrap FlowSchemas (and a few of one's own): who lands where, in which
 * order schemas are tried, how flows are distinguished; and the kinds' established validation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { flowSchemaDefinition, priorityLevelConfigurationDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { mandatoryFlowSchemas, suggestedFlowSchemas } from '../../../src/apiserver/flowcontrol/bootstrap.js';
import { classify, compareFlowSchemas, compileFlowSchema, flowDistinguisher } from '../../../src/apiserver/flowcontrol/matching.js';
import { parseRequestInfo } from '../../../src/apiserver/request-info.js';
import type { UserInfo } from '../../../src/apiserver/auth/user.js';

const schemas = [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(compileFlowSchema).sort(compareFlowSchemas);
const info = (method: string, path: string) => {
  const q = path.indexOf('?');
  return parseRequestInfo(method, q < 0 ? path : path.slice(0, q), new URLSearchParams(q < 0 ? '' : path.slice(q + 1)));
};
const who = (username: string, ...groups: string[]): UserInfo => ({ username, groups: [...groups, username === 'system:anonymous' ? 'system:unauthenticated' : 'system:authenticated'] });
const match = (user: UserInfo, method: string, path: string, usable: (name: string) => boolean = () => true) =>
  classify(schemas, user, info(method, path), (fs) => usable(fs.priorityLevel))?.name;

test('system:masters is exempt for everything; probes are exempt for everyone', () => {
  assert.is(match(who('admin', 'system:masters'), 'DELETE', '/api/v1/namespaces/x'), 'exempt');
  assert.is(match(who('admin', 'system:masters'), 'GET', '/metrics'), 'exempt');
  assert.is(match(who('system:anonymous'), 'GET', '/readyz'), 'probes');
  assert.is(match(who('alice'), 'GET', '/livez/ping'), 'probes', 'a rule path covers the paths below it');
  assert.is(match(who('alice'), 'POST', '/healthz'), 'global-default', 'probes are GETs only');
});

test('leader election, controllers, scheduler, nodes and service accounts go to their established levels', () => {
  const cm = who('system:svc-controller-manager');
  assert.is(match(cm, 'PUT', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/svc-controller-manager'), 'system-leader-election');
  assert.is(match(cm, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/svc-system/leases/svc-controller-manager'), 'system-leader-election', 'the established spelling of the group');
  assert.is(match(cm, 'DELETE', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/x'), 'svc-controller-manager', 'only get/create/update are leader election');
  assert.is(match(cm, 'PUT', '/api/v1/namespaces/default/endpoints/web'), 'endpoint-controller');
  assert.is(match(cm, 'POST', '/api/v1/namespaces/default/pods'), 'svc-controller-manager');
  assert.is(match(who('system:svc-scheduler'), 'POST', '/api/v1/namespaces/default/pods/p/binding'), 'svc-scheduler');
  const node = who('system:node:n1', 'system:nodes');
  assert.is(match(node, 'PUT', '/apis/coordination.svc.io/v1/namespaces/svc-node-lease/leases/n1'), 'system-node-high');
  assert.is(match(node, 'PATCH', '/api/v1/nodes/n1/status'), 'system-node-high');
  assert.is(match(node, 'GET', '/api/v1/namespaces/default/configmaps/c'), 'system-nodes');
  const sysSa = who('system:serviceaccount:svc-system:replicaset-controller', 'system:serviceaccounts', 'system:serviceaccounts:svc-system');
  assert.is(match(sysSa, 'PUT', '/apis/coordination.svc.io/v1/namespaces/svc-system/leases/x'), 'system-leader-election');
  assert.is(match(sysSa, 'PUT', '/api/v1/namespaces/svc-system/configmaps/lock'), 'workload-leader-election');
  assert.is(match(sysSa, 'POST', '/api/v1/namespaces/default/pods'), 'svc-system-service-accounts');
  const sa = who('system:serviceaccount:team:builder', 'system:serviceaccounts', 'system:serviceaccounts:team');
  assert.is(match(sa, 'GET', '/api/v1/namespaces/team/pods'), 'service-accounts');
  assert.is(match(who('alice'), 'GET', '/api/v1/namespaces/team/pods'), 'global-default');
  assert.is(match(who('system:anonymous'), 'GET', '/version'), 'global-default');
});

test('a schema whose level is missing is skipped: the next match (at worst catch-all) takes the request', () => {
  assert.is(match(who('alice'), 'GET', '/api/v1/pods', (pl) => pl !== 'global-default'), 'catch-all');
});

test('precedence orders schemas, then names; namespace-scoped rules need a namespace, cluster-scoped ones clusterScope', () => {
  const mine = (name: string, precedence: number, rule: Record<string, unknown>): SvcObject => ({
    apiVersion: 'flowcontrol.apiserver.svc.io/v1beta1',
    kind: 'FlowSchema',
    metadata: { name, uid: name },
    spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: precedence, distinguisherMethod: { type: 'ByNamespace' }, rules: [rule] },
  });
  const rule = { subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'], namespaces: ['team'] }] };
  const all = [...schemas, compileFlowSchema(mine('b-mine', 700, rule)), compileFlowSchema(mine('a-mine', 700, rule))].sort(compareFlowSchemas);
  const alice = who('alice');
  assert.is(classify(all, alice, info('GET', '/api/v1/namespaces/team/pods'), () => true)?.name, 'a-mine');
  assert.is(classify(all, alice, info('GET', '/api/v1/pods'), () => true)?.name, 'global-default', 'no namespace: not clusterScope');
  assert.is(classify(all, alice, info('GET', '/api/v1/namespaces/team/pods/p/log'), () => true)?.name, 'global-default', 'pods does not cover pods/log');
  const fs = all.find((s) => s.name === 'a-mine')!;
  assert.is(flowDistinguisher(fs, alice, info('GET', '/api/v1/namespaces/team/pods')), 'team');
  assert.is(flowDistinguisher(fs, alice, info('GET', '/api/v1/namespaces/team')), 'team', 'a namespace is in itself');
  assert.is(flowDistinguisher(schemas.find((s) => s.name === 'global-default')!, alice, info('GET', '/api/v1/pods')), 'alice');
  const sa = compileFlowSchema(mine('sa', 1, { subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'team', name: '*' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }] }));
  assert.ok(classify([sa], who('system:serviceaccount:team:x'), info('GET', '/apis/apps'), () => true));
  assert.not.ok(classify([sa], who('system:serviceaccount:other:x'), info('GET', '/apis/apps'), () => true));
});

test('validation: the established messages', () => {
  const errs = (def: typeof flowSchemaDefinition, o: SvcObject) => (def.validate?.(o) ?? []).map((e) => `${e.field}: ${e.message}`);
  const fs = (spec: Record<string, unknown>): SvcObject => ({ metadata: { name: 'x' }, spec });
  assert.equal(errs(flowSchemaDefinition, fs({ priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 10001, distinguisherMethod: { type: 'ByGroup' }, rules: [{ subjects: [] }] })), [
    'spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000',
    'spec.distinguisherMethod.type: Unsupported value: "ByGroup": supported values: "ByNamespace", "ByUser"',
    'spec.rules[0].subjects: Required value: subjects must contain at least one value',
    'spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty',
  ]);
  assert.equal(errs(flowSchemaDefinition, fs({ priorityLevelConfiguration: { name: 'p' }, matchingPrecedence: 5, rules: [{ subjects: [{ kind: 'User', user: { name: 'a' } }], resourceRules: [{ verbs: ['*', 'get'], apiGroups: ['*'], resources: ['pods'] }] }] })), [
    "spec.rules[0].resourceRules[0].verbs: Invalid value: []string{\"*\", \"get\"}: if '*' is present, must not specify other verbs",
    'spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace',
  ]);
  const pl = (name: string, spec: Record<string, unknown>): SvcObject => ({ metadata: { name }, spec });
  assert.equal(errs(priorityLevelConfigurationDefinition, pl('mine', { type: 'Exempt' })), ["spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'"]);
  assert.equal(errs(priorityLevelConfigurationDefinition, pl('mine', { type: 'Limited', limited: { assuredConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: 1 } } } })), [
    'spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
  ]);
  const withDefaults = pl('mine', { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } });
  priorityLevelConfigurationDefinition.defaults?.(withDefaults);
  assert.equal(withDefaults.spec, { type: 'Limited', limited: { assuredConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } });
});

test.run();
