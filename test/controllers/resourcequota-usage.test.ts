// The quota evaluators and the controller's usage sum (src/api/quota, controllers/resourcequota):
// what pods, services, claims and other kinds use; scopes and scope selectors; the canonical
// quantity forms; the pod constraint message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, ResourceQuota } from '../../src/api/generated/kinds.js';
import type { SvcObject } from '../../src/api/types.js';
import { formatMilli, QuotaAmounts } from '../../src/api/quota/amounts.js';
import { matchingResources, podConstraintViolation, usageOf } from '../../src/api/quota/evaluators.js';
import { quotaSelects } from '../../src/api/quota/scopes.js';
import { resources } from '../../src/client/typed.js';
import type { ResourceRef } from '../../src/client/types.js';
import { quotaUsage, updateReplenishes } from '../../controllers/resourcequota/index.js';
import { pod } from '../helpers/objects.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const POD = { group: '', plural: 'pods' };
const withRes = (name: string, res: { requests?: Record<string, string>; limits?: Record<string, string> }, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod =>
  pod(name, {}, { spec: { containers: [{ name: 'c', image: 'x', resources: res }], ...extra } });

test('formatting: canonical forms, binary kept where written so', () => {
  assert.is(formatMilli(1500n, false), '1500m');
  assert.is(formatMilli(2000n, false), '2');
  assert.is(formatMilli(0n, true), '0');
  assert.is(QuotaAmounts.fromList({ m: '512Mi' }).plus(QuotaAmounts.fromList({ m: '512Mi' })).format('m'), '1Gi');
  assert.is(QuotaAmounts.fromList({ c: '0.5' }).plus(QuotaAmounts.fromList({ c: '250m' })).format('c'), '750m');
  assert.is(QuotaAmounts.fromList({ n: '3000' }).format('n'), '3k');
});

test('pod usage: requests (limits stand in), limits, init max, extended resources, count', () => {
  const p = withRes('a', { requests: { cpu: '250m', 'example.com/gpu': '1' }, limits: { cpu: '500m', memory: '128Mi' } }, {
    initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '1' } } }],
  });
  const u = usageOf(POD, p, NOW).toList();
  assert.equal(u, {
    'count/pods': '1', cpu: '1', 'limits.cpu': '500m', 'limits.memory': '128Mi', memory: '128Mi', pods: '1',
    'requests.cpu': '1', 'requests.example.com/gpu': '1', 'requests.memory': '128Mi',
  });
  const done = { ...p, status: { phase: 'Succeeded' } } as Pod;
  assert.equal(usageOf(POD, done, NOW).toList(), { 'count/pods': '1' }, 'a finished pod keeps only its object count');
});

test('services, claims and generic counts', () => {
  const lb = { metadata: { name: 's' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }, { port: 443 }] } } as SvcObject;
  assert.equal(usageOf({ group: '', plural: 'services' }, lb, NOW).toList(), { 'count/services': '1', services: '1', 'services.loadbalancers': '1', 'services.nodeports': '2' });
  const pvc = { metadata: { name: 'c' }, spec: { storageClassName: 'gold', resources: { requests: { storage: '5Gi' } } } } as SvcObject;
  const pu = usageOf({ group: '', plural: 'persistentvolumeclaims' }, pvc, NOW).toList();
  assert.is(pu['requests.storage'], '5Gi');
  assert.is(pu['gold.storageclass.storage.svc.io/requests.storage'], '5Gi');
  assert.is(pu['gold.storageclass.storage.svc.io/persistentvolumeclaims'], '1');
  assert.equal(usageOf({ group: 'apps', plural: 'deployments' }, { metadata: {} }, NOW).toList(), { 'count/deployments.apps': '1' });
  assert.equal(matchingResources({ group: 'apps', plural: 'deployments' }, ['pods', 'count/deployments.apps', 'requests.cpu']), ['count/deployments.apps']);
  assert.equal(matchingResources(POD, ['pods', 'requests.storage', 'requests.cpu', 'count/pods']), ['pods', 'requests.cpu', 'count/pods']);
});

test('scopes and scope selectors select pods only', () => {
  const q = (spec: ResourceQuota['spec']) => ({ metadata: { name: 'q' }, spec }) as ResourceQuota;
  const be = pod('be');
  const burst = withRes('b', { requests: { cpu: '1' } }, { activeDeadlineSeconds: 30, priorityClassName: 'high' });
  assert.ok(quotaSelects(q({ scopes: ['BestEffort'] }), true, be));
  assert.not.ok(quotaSelects(q({ scopes: ['BestEffort'] }), true, burst));
  assert.ok(quotaSelects(q({ scopes: ['NotBestEffort', 'Terminating'] }), true, burst));
  assert.not.ok(quotaSelects(q({ scopes: ['Terminating'] }), true, be));
  const prio = (operator: string, values?: string[]) => q({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) }] } });
  assert.ok(quotaSelects(prio('In', ['high']), true, burst));
  assert.not.ok(quotaSelects(prio('NotIn', ['high']), true, burst));
  assert.ok(quotaSelects(prio('DoesNotExist'), true, be));
  assert.not.ok(quotaSelects(q({ scopes: ['BestEffort'] }), false, { metadata: {} }), 'a scoped quota never counts services or other kinds');
  const cross = pod('x', {}, { spec: { containers: [{ name: 'c', image: 'x' }], affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'k', namespaces: ['other'] }] } } } });
  assert.ok(quotaSelects(q({ scopes: ['CrossNamespacePodAffinity'] }), true, cross));
  assert.not.ok(quotaSelects(q({ scopes: ['CrossNamespacePodAffinity'] }), true, be));
});

test('the pod constraint message names each missing resource and its containers', () => {
  const p = pod('p', {}, { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x', resources: { limits: { cpu: '1' } } }] } });
  assert.is(podConstraintViolation(p, ['limits.cpu', 'requests.memory', 'pods']), 'must specify limits.cpu for: a; requests.memory for: a,b');
  assert.is(podConstraintViolation(p, ['pods', 'count/pods']), undefined);
});

test('quotaUsage sums a namespace; BestEffort tracks pods only; resourcequotas counts quotas', () => {
  const pods = [withRes('a', { requests: { cpu: '200m', memory: '1Gi' } }), withRes('b', { requests: { cpu: '300m', memory: '1Gi' } }), pod('c')];
  const objectsOf = (ref: ResourceRef): readonly SvcObject[] => (ref === resources.pods ? pods : []);
  const q: ResourceQuota = { metadata: { name: 'q', namespace: 'default' }, spec: { hard: { pods: '10', 'requests.cpu': '2', 'requests.memory': '4Gi', resourcequotas: '3', secrets: '5', 'count/deployments.apps': '2' } } };
  const used = quotaUsage(q, objectsOf, 2, NOW, new Map([['count/deployments.apps', 1]])).toList();
  assert.equal(used, { 'count/deployments.apps': '1', pods: '3', 'requests.cpu': '500m', 'requests.memory': '2Gi', resourcequotas: '2', secrets: '0' });
  const be: ResourceQuota = { metadata: { name: 'be' }, spec: { hard: { pods: '10', 'requests.cpu': '1' }, scopes: ['BestEffort'] } };
  assert.equal(quotaUsage(be, objectsOf, 1, NOW).toList(), { pods: '1', 'requests.cpu': '0' });
});

test('10,000 pods are summed well within the benchmark goal', () => {
  const pods = Array.from({ length: 10_000 }, (_, i) => withRes(`p${i}`, { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } }));
  const q: ResourceQuota = { metadata: { name: 'q' }, spec: { hard: { pods: '20000', 'requests.cpu': '2k', 'requests.memory': '1Ti', 'limits.cpu': '4k' } } };
  const t0 = performance.now();
  const used = quotaUsage(q, (r) => (r === resources.pods ? pods : []), 1, NOW).toList();
  const ms = performance.now() - t0;
  assert.equal(used, { 'limits.cpu': '2k', pods: '10k', 'requests.cpu': '1k', 'requests.memory': '625Gi' });
  assert.ok(ms < 2000, `took ${ms} ms`);
  if (process.env["QUOTA_VERBOSE"]) console.log(`10,000 pods summed in ${ms.toFixed(0)} ms`);
});

test.run();

test('update events that give usage back: a Service type change, a claim whose usage changed (the established update filter)', () => {
  const svc = (type: string | undefined, rv: string): SvcObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n', resourceVersion: rv }, spec: { ...(type ? { type } : {}), ports: [{ port: 80 }] } }) as SvcObject;
  assert.ok(updateReplenishes(resources.services, svc('NodePort', '1'), svc('ClusterIP', '2')));
  assert.ok(updateReplenishes(resources.services, svc('LoadBalancer', '1'), svc('NodePort', '2')));
  assert.not.ok(updateReplenishes(resources.services, svc('ClusterIP', '1'), svc(undefined, '2')), 'ClusterIP and no type use the same');
  assert.not.ok(updateReplenishes(resources.services, svc('NodePort', '1'), svc('NodePort', '2')));
  const claim = (storage: string, allocated?: string): SvcObject =>
    ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'n' }, spec: { storageClassName: 'gold', resources: { requests: { storage } } }, ...(allocated ? { status: { allocatedResources: { storage: allocated } } } : {}) }) as SvcObject;
  assert.ok(updateReplenishes(resources.persistentvolumeclaims, claim('2Gi'), claim('1Gi')), 'a shrink');
  assert.ok(updateReplenishes(resources.persistentvolumeclaims, claim('1Gi', '4Gi'), claim('1Gi', '1Gi')), 'allocated storage given back');
  assert.not.ok(updateReplenishes(resources.persistentvolumeclaims, claim('1Gi'), claim('1Gi')), 'a status change without usage');
  assert.not.ok(updateReplenishes(resources.configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }));
});
