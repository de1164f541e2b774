import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  deploymentDefinition, jobDefinition, namespaceDefinition, podDefinition, replicaSetDefinition, secretDefinition, serviceDefinition, type SvcObject,
} from '../../src/api/index.js';

test('pod defaults: restartPolicy, dnsPolicy, scheduler, grace period, container pull policy and message path', () => {
  const pod: SvcObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'd', image: 'busybox:1.36' }] } };
  podDefinition.defaults!(pod);
  const spec = pod.spec as Record<string, unknown>;
  assert.is(spec['restartPolicy'], 'Always');
  assert.is(spec['dnsPolicy'], 'ClusterFirst');
  assert.is(spec['schedulerName'], 'default-scheduler');
  assert.is(spec['terminationGracePeriodSeconds'], 30);
  const [c, d] = spec['containers'] as Record<string, unknown>[];
  assert.is(c!['imagePullPolicy'], 'Always');
  assert.is(d!['imagePullPolicy'], 'IfNotPresent');
  assert.is(c!['terminationMessagePath'], '/dev/termination-log');
  assert.is(c!['terminationMessagePolicy'], 'File');
  assert.is((c!['ports'] as Record<string, unknown>[])[0]!['protocol'], 'TCP');
  assert.equal(pod.status, { phase: 'Pending', qosClass: 'BestEffort' });
});

test('pod defaults keep values the user set', () => {
  const pod: SvcObject = { metadata: { name: 'p' }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x', imagePullPolicy: 'Never' }] } };
  podDefinition.defaults!(pod);
  assert.is((pod.spec as Record<string, unknown>)['restartPolicy'], 'Never');
  assert.is(((pod.spec as Record<string, unknown>)['containers'] as Record<string, unknown>[])[0]!['imagePullPolicy'], 'Never');
});

test('container requests default to limits, making the pod Guaranteed', () => {
  const pod: SvcObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }] } };
  podDefinition.defaults!(pod);
  const c = ((pod.spec as Record<string, unknown>)['containers'] as Record<string, Record<string, unknown>>[])[0]!;
  assert.equal(c['resources']!['requests'], { cpu: '1', memory: '1Gi' });
  assert.is((pod.status as Record<string, unknown>)['qosClass'], 'Guaranteed');
});

test('service defaults: ClusterIP, no session affinity, TCP, targetPort = port, internal traffic Cluster, status.loadBalancer {}', () => {
  const svc: SvcObject = { metadata: { name: 's' }, spec: { ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] } };
  serviceDefinition.defaults!(svc);
  assert.equal(svc.spec, {
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    internalTrafficPolicy: 'Cluster',
  });
  assert.equal(svc.status, { loadBalancer: {} });
  const lb: SvcObject = { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
  serviceDefinition.defaults!(lb);
  const spec = lb.spec as Record<string, unknown>;
  assert.equal([spec['externalTrafficPolicy'], spec['allocateLoadBalancerNodePorts']], ['Cluster', true]);
});

test('deployment defaults: 1 replica, RollingUpdate 25%/25%, history 10, deadline 600, template defaults', () => {
  const d: SvcObject = { metadata: { name: 'd' }, spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } } };
  deploymentDefinition.defaults!(d);
  const spec = d.spec as Record<string, unknown>;
  assert.is(spec['replicas'], 1);
  assert.equal(spec['strategy'], { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  assert.is(spec['revisionHistoryLimit'], 10);
  assert.is(spec['progressDeadlineSeconds'], 600);
  assert.is(((spec['template'] as Record<string, Record<string, unknown>>)['spec']!)['restartPolicy'], 'Always');
});

test('replicaset defaults to one replica', () => {
  const rs: SvcObject = { metadata: { name: 'r' }, spec: {} };
  replicaSetDefinition.defaults!(rs);
  assert.is((rs.spec as Record<string, unknown>)['replicas'], 1);
});

test('job defaults: completions and parallelism 1, backoffLimit 6, a selector by uid', () => {
  const j: SvcObject = { metadata: { name: 'j', uid: 'u-1' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'x' }] } } } };
  jobDefinition.defaults!(j);
  const spec = j.spec as Record<string, unknown>;
  assert.is(spec['completions'], 1);
  assert.is(spec['parallelism'], 1);
  assert.is(spec['backoffLimit'], 6);
  assert.equal(spec['selector'], { matchLabels: { 'controller-uid': 'u-1' } });
  assert.equal((spec['template'] as { metadata: { labels: Record<string, string> } }).metadata.labels, { 'controller-uid': 'u-1', 'job-name': 'j' });
  assert.equal(jobDefinition.validate!(j), []);
});

test('namespace defaults: finalizer svc and phase Active', () => {
  const ns: SvcObject = { metadata: { name: 'n' } };
  namespaceDefinition.defaults!(ns);
  assert.equal(ns.spec, { finalizers: ['svc'] });
  assert.equal(ns.status, { phase: 'Active' });
});

test('secret defaults: type Opaque and stringData folded into base64 data', () => {
  const s: SvcObject = { metadata: { name: 's' }, stringData: { password: 'hunter2' } };
  secretDefinition.defaults!(s);
  assert.is(s['type'], 'Opaque');
  assert.equal(s['data'], { password: Buffer.from('hunter2').toString('base64') });
  assert.is(s['stringData'], undefined);
});

test.run();
