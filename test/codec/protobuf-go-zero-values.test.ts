// Go clients (kubectl 1.32+, client-go with Protobuf) write every non-pointer field of a body,
// set or not: `generation: 0`, `stdin: false`, `hostIPC: false`, `minReadySeconds: 0` ... The
// established server reads those zeros as the Go zero value, which its JSON omits, so an object
// sent as Protobuf is stored as its JSON twin; a pointer field's zero (`replicas: 0`,
// `privileged: false`) and a field the established JSON always writes (`ReplicaSetStatus.replicas`)
// are values and stay. The bodies below carry every zero a Go client writes, encoded field by field
// as it would (our encoder writes each key it is given).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildWireModel } from '../../src/codec/protobuf/model.js';
import { generateProtoFiles, protobufCodec, wireModel } from '../../src/codec/protobuf/index.js';
import { PROTO_PACKAGES } from '../../src/api/kinds/proto/index.js';

const codec = protobufCodec();
const roundTrip = (obj: Record<string, unknown>) => codec.decodeObject(codec.encodeObject(obj));

const container = { name: 'nginx', image: 'nginx:1', stdin: false, stdinOnce: false, tty: false, workingDir: '', ports: [{ containerPort: 80, hostPort: 0, protocol: 'TCP' }] };
const podSpec = {
  containers: [container],
  hostNetwork: false,
  hostPID: false,
  hostIPC: false,
  nodeName: '',
  // Pointers: a zero sent is a value.
  terminationGracePeriodSeconds: 0,
  automountServiceAccountToken: false,
  enableServiceLinks: false,
  priority: 0,
  securityContext: { runAsUser: 0, runAsNonRoot: false, fsGroup: 0 },
};
const podSpecRead = {
  containers: [{ name: 'nginx', image: 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] }],
  terminationGracePeriodSeconds: 0,
  automountServiceAccountToken: false,
  enableServiceLinks: false,
  priority: 0,
  securityContext: { runAsUser: 0, runAsNonRoot: false, fsGroup: 0 },
};

test('a Deployment from kubectl: the template reads as its JSON twin, pointer zeros kept', () => {
  const back = roundTrip({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', generation: 0, labels: { app: 'web' } },
    spec: {
      replicas: 0,
      revisionHistoryLimit: 0,
      minReadySeconds: 0,
      paused: false,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { generation: 0, labels: { app: 'web' } }, spec: podSpec },
      strategy: { type: 'RollingUpdate' },
    },
    status: { observedGeneration: 0, replicas: 0, availableReplicas: 0, collisionCount: 0 },
  });
  assert.equal(back, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      replicas: 0,
      revisionHistoryLimit: 0,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: podSpecRead },
      strategy: { type: 'RollingUpdate' },
    },
    status: { collisionCount: 0 },
  });
});

test('a Pod: container and volume zeros absent; privileged: false, defaultMode, optional kept', () => {
  const back = roundTrip({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: {
      ...podSpec,
      containers: [{ ...container, securityContext: { privileged: false, allowPrivilegeEscalation: false, runAsUser: 0 }, volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: false }] }],
      volumes: [{ name: 'v', configMap: { name: 'c', defaultMode: 0, optional: false } }],
    },
    status: { containerStatuses: [{ name: 'nginx', ready: false, restartCount: 0, started: false, image: 'nginx:1', imageID: '' }] },
  });
  const spec = back['spec'] as Record<string, unknown>;
  assert.equal(spec['containers'], [
    { ...podSpecRead.containers[0], securityContext: { privileged: false, allowPrivilegeEscalation: false, runAsUser: 0 }, volumeMounts: [{ name: 'v', mountPath: '/v' }] },
  ]);
  assert.equal(spec['volumes'], [{ name: 'v', configMap: { name: 'c', defaultMode: 0, optional: false } }]);
  assert.is(spec['hostIPC'], undefined);
  // ContainerStatus.ready, restartCount, image and imageID are always written by the established JSON; started is a pointer.
  assert.equal((back['status'] as Record<string, unknown>)['containerStatuses'], [{ name: 'nginx', ready: false, restartCount: 0, started: false, image: 'nginx:1', imageID: '' }]);
});

test('a ReplicaSet and a DaemonSet: the counters the established JSON always writes keep their 0', () => {
  const rs = roundTrip({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'rs' },
    spec: { replicas: 0, minReadySeconds: 0, selector: {} },
    status: { replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0, observedGeneration: 0 },
  });
  assert.equal(rs['spec'], { replicas: 0, selector: {} });
  assert.equal(rs['status'], { replicas: 0 });
  const ds = roundTrip({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'ds' },
    status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, numberAvailable: 0, updatedNumberScheduled: 0 },
  });
  assert.equal(ds['status'], { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
});

test('a Job, a Service and a Lease: pointer zeros are values (backoffLimit: 0, suspend: false, holderIdentity: "")', () => {
  const job = roundTrip({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j' },
    spec: { backoffLimit: 0, suspend: false, parallelism: 0, completionMode: '', template: { spec: { containers: [{ name: 'c', image: 'i', tty: false }], restartPolicy: 'Never' } } },
    status: { active: 0, succeeded: 0, failed: 0, ready: 0 },
  });
  assert.equal(job['spec'], { backoffLimit: 0, suspend: false, parallelism: 0, template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'Never' } } });
  assert.equal(job['status'], { ready: 0 });
  const svc = roundTrip({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's' },
    spec: { ports: [{ port: 80, nodePort: 0, targetPort: 80 }], healthCheckNodePort: 0, publishNotReadyAddresses: false, allocateLoadBalancerNodePorts: false },
  });
  assert.equal(svc['spec'], { ports: [{ port: 80, targetPort: 80 }], allocateLoadBalancerNodePorts: false });
  const lease = roundTrip({ apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 } });
  assert.equal(lease['spec'], { holderIdentity: '', leaseDurationSeconds: 0, leaseTransitions: 0 });
});

test('a Node: nodeInfo keeps its "" (the established JSON always writes every field), spec.unschedulable false is absent', () => {
  const back = roundTrip({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { unschedulable: false, podCIDR: '' }, status: { nodeInfo: { kubeletVersion: 'v1.35.0', kubeProxyVersion: '', bootID: '' } } });
  assert.equal(back['spec'], {});
  assert.equal((back['status'] as Record<string, unknown>)['nodeInfo'], { kubeletVersion: 'v1.35.0', kubeProxyVersion: '', bootID: '' });
});

test('ObjectMeta: generation 0 absent, deletionGracePeriodSeconds 0 and ownerReferences[].controller false kept', () => {
  const back = roundTrip({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', generation: 0, deletionGracePeriodSeconds: 0, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: false, blockOwnerDeletion: false }] },
  });
  assert.equal(back['metadata'], { name: 'c', deletionGracePeriodSeconds: 0, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', controller: false, blockOwnerDeletion: false }] });
});

test('the .proto files say the same: proto3, `optional` for the pointers, plain for the rest', () => {
  const apps = generateProtoFiles(wireModel()).find((f) => f.path === 'api/apps/v1/generated.proto')!.text;
  assert.match(apps, "syntax = 'proto3';");
  assert.match(apps, /^ {2}optional int32 replicas = 1;$/m);
  assert.match(apps, /^ {2}int32 minReadySeconds = 5;$/m);
  assert.match(apps, /^ {2}bool paused = 7;$/m);
  const core = generateProtoFiles(wireModel()).find((f) => f.path === 'api/core/v1/generated.proto')!.text;
  assert.match(core, /^ {2}bool stdin = 16;$/m);
  assert.match(core, /^ {2}optional bool privileged = 2;$/m);
  assert.match(core, /^ {2}repeated int64 supplementalGroups = 4 \[packed = false\];$/m);
});

test('a table may mark only a single scalar optional (a message always has presence)', () => {
  const withTable = (spec: string) => () =>
    buildWireModel([...PROTO_PACKAGES, { package: 'x', file: 'x.proto', messages: { X: { fields: { a: spec } } } }]);
  assert.throws(withTable('1 optional ObjectMeta'), /only a single string, number or bool can be optional/);
  assert.throws(withTable('1 optional bytes'), /only a single string, number or bool can be optional/);
  assert.not.throws(withTable('1 optional int64'));
});

test.run();
