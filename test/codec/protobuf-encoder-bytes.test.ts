// The encoder writes the same bytes as before its speed-up (digests recorded from the old encoder:
// fork/ldelim with one reserved length byte, JSON.stringify for FieldsV1, no fast paths), on the
// bench's 1,000-pod list and on inputs that walk every fast path's edges, encoded repeatedly and in
// different orders (fork sites learn length sizes from the messages before). The protobufjs-based
// tests (protobuf-round-trip, e2e/protobuf-*) check the same bytes against an independent decoder.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtobufCodec, UnencodableError } from '../../src/codec/protobuf/index.js';
import { benchPodList, edgeConfigMapList, edgeObjects } from './protobuf-encoder-bytes-fixtures.js';

const digest = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 32);

const BENCH_LIST = 'a3e5c782b368a5c8eaf3e610b757ca71';
const EDGE_CONFIGMAPS = 'a103d69214aef796afc57f5fffa5b327';
/** `Kind/name digest` of each of edgeObjects(), in order. */
const EDGE_OBJECTS = [
  'Pod/web d9dc11871cea85bb90ef247bab9e9f7a',
  'Pod/web b6a22b9dbe77c9178850fb1ac9f08424',
  'ConfigMap/cm 6cad02f282b19a334cb820d70e2e934d',
  'Secret/sec 17c43a5f1106c7b1f1a7af9f7f9a75d2',
  'Namespace/team-a 94ca3df987fc46a6cf32ec95ecd29a08',
  'Node/node-1 2e5d95d3c3b72463b21fe69cc132ae83',
  'Service/web 7c754c561469959da78202a1b7fd321b',
  'Endpoints/web 77b779d445187ac445af20c3ab797d87',
  'Event/web.1 9e726f30e5f75d57057ee3c5362bc115',
  'ServiceAccount/builder c47457537bc108aa5b71b000ffdf2a78',
  'Deployment/web 17d91e6e523cbd76abda3a1b58674f50',
  'ReplicaSet/web-1 2a75838ab83635103699530e692e96c8',
  'StatefulSet/db 478e5f33b4a98efa3f99fe4bd2f77da5',
  'DaemonSet/agent 63235a31c162558e4c8f85c11c7f545a',
  'ControllerRevision/db-1 f98154e41a04106b1d76925582a9e966',
  'PersistentVolumeClaim/data 4733f0638c530f4f64a5911153accedc',
  'PersistentVolume/pv-1 3fee804fa93b64aed7deeff3a8536806',
  'ReplicationController/rc 59d3fb80b24807b086a110cb372daced',
  'ResourceQuota/q ffd7bd7ffbbf51b77698d21ba83c4e8e',
  'LimitRange/lr 912d914a9454821947536aac28175261',
  'Job/pi 655bdf8032987c94e937b22d3a9d8232',
  'CronJob/nightly a508818e7d0029887d1b43eab28a2bb6',
  'Lease/node-1 9c0a9046ac85c4259273e0e4082c999d',
  'PriorityClass/high ff69569192f5e8696b21f14dff2fcdf9',
  'EndpointSlice/web-abc 350abb5fd5a6dca3dc3cc79c76d87f51',
  'PodDisruptionBudget/web bd541d10769a0d9bfdd3b79002555e0f',
  'HorizontalPodAutoscaler/web 669c937b5740a1e326c07ba26baaba97',
  'Role/reader d27d93bdaf9a40d62e168a7f523be2f4',
  'ClusterRole/agg 19bbe19b6c13a497ffdcf8f73e1f05b4',
  'RoleBinding/read-pods 2d7875823b27a3dc1d1d6fcbba1b579e',
  'ClusterRoleBinding/admins 6ebc6a1d45e8dab7e1980b8f1a6e8a0a',
  'CertificateSigningRequest/csr-1 5db2cf1fa8cc8007da30a481726bb284',
  // Added with the kinds (recorded from the encoder when they arrived; round-trips check their fields).
  'SelfSubjectAccessReview/review f8e53cf7b9b1e4eeda82df528b1751f5',
  'SubjectAccessReview/sar c00c5de7446d5a93b0d676ba508d376e',
  'LocalSubjectAccessReview/lsar 915e004385a638d95a1c2f4533ec2cfd',
  'SelfSubjectRulesReview/rules fc8df160dbd2f2489e36d2c9a01aee9c',
  'ControllerRevision/db-1 7b58a5af85bca99e0c9c6346c1818f36',
  'ControllerRevision/db-1 24905aeb58bf4d1cac6c64d436908a22',
  'ControllerRevision/db-1 30d3cc7abd754b3fda53dd49c230cc76',
  'ControllerRevision/db-1 69d1fad6df1333fcdc34b2a9417d86bd',
  'ControllerRevision/db-1 beb64e35c586d92979411047221de73f',
];

test('the bench 1,000-pod list encodes to the recorded bytes, three times over', () => {
  const codec = new ProtobufCodec();
  const list = benchPodList();
  for (let i = 0; i < 3; i++) assert.is(digest(codec.encodeList(list)), BENCH_LIST, `run ${i + 1}`);
});

test('string lengths around every fast-path limit, non-ASCII and lone surrogates, big and small items alternating', () => {
  const codec = new ProtobufCodec();
  const list = edgeConfigMapList();
  assert.is(digest(codec.encodeList(list)), EDGE_CONFIGMAPS);
  // Reversed order: each fork site now first sees the small objects, then the big ones.
  const reversed = { ...list, items: [...list.items].reverse() };
  codec.encodeList(reversed);
  assert.is(digest(codec.encodeList(list)), EDGE_CONFIGMAPS, 'after the reversed list');
});

test('odd FieldsV1 / RawExtension values, fractional and pre-1970 times, every kind fixture', () => {
  const codec = new ProtobufCodec();
  const objects = edgeObjects();
  assert.is(objects.length, EDGE_OBJECTS.length);
  for (const pass of [objects, [...objects].reverse(), objects]) {
    for (const o of pass) {
      const i = objects.indexOf(o);
      const meta = o['metadata'] as { name: string };
      assert.is(`${String(o['kind'])}/${meta.name} ${digest(codec.encodeObject(o))}`, EDGE_OBJECTS[i], `object ${i}`);
    }
  }
});

test('an unencodable value is reported at the same path as before (paths are now built only on failure)', () => {
  const codec = new ProtobufCodec();
  // The edits reach deep into the fixture: loosely typed on purpose.
  type Pod = { metadata: Record<string, unknown>; spec: any; status: any };
  const cases: [(p: Pod) => void, string][] = [
    [(p) => (p.spec.containers[0].ports[0].bogus = 1), 'spec.containers[0].ports[0].bogus: this field has no Protobuf field number; ask for application/json'],
    [(p) => (p.spec.containers[0].name = 5), 'spec.containers[0].name: expected a string'],
    [(p) => ((p.metadata['labels'] as Record<string, unknown>)['x'] = 5), 'metadata.labels[x]: expected a string'],
    [(p) => (p.status.conditions[2].lastTransitionTime = 'yesterday'), 'status.conditions[2].lastTransitionTime: not an RFC 3339 time: "yesterday"'],
    [(p) => (p.spec.containers[0].resources.limits.cpu = {}), 'spec.containers[0].resources.limits[cpu]: expected a quantity'],
    [(p) => (p.spec.containers[0].livenessProbe.httpGet.port = true), 'spec.containers[0].livenessProbe.httpGet.port: expected an integer or a string'],
    [(p) => (p.spec.tolerations = [null]), 'spec.tolerations[0]: null in a list'],
  ];
  for (const [edit, message] of cases) {
    const list = benchPodList(5);
    edit(list.items[3] as unknown as Pod);
    for (const [encode, prefix] of [[() => codec.encodeList(list), 'items[3].'], [() => codec.encodeObject({ ...list.items[3], apiVersion: 'v1', kind: 'Pod' }), 'Pod.']] as const) {
      const err = (() => {
        try {
          encode();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.instance(err, UnencodableError);
      assert.is((err as Error).message, prefix + message);
    }
  }
  const list = benchPodList(2);
  list.metadata['bogus'] = 1;
  assert.throws(() => codec.encodeList(list), (e: unknown) => e instanceof Error && e.message === 'metadata.bogus: this field has no Protobuf field number; ask for application/json');
});

test.run();
