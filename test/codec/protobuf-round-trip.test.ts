import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtobufCodec, protobufCodec } from '../../src/codec/protobuf/index.js';
import { KIND_FIXTURES, podFixture } from './protobuf-fixtures.js';

const codec = protobufCodec();

/**
 * The fixtures' fields that are non-pointer `omitempty` in the established types and hold their zero
 * (`false`): they read back absent, as the established server reads them. (The fixtures' pointer
 * zeros, `priority: 0`, `automountServiceAccountToken: false`, `partition: 0`, `suspend: false`, and
 * the always-written `numberMisscheduled: 0`, read back as sent.)
 */
const PLAIN_ZEROS = new Set(['globalDefault', 'denied']);

/** The fixture as it reads back: an empty string field is the same as an absent one on the wire (map values keep theirs), as is a plain zero. */
function withoutEmptyStringFields(value: unknown, inMap = false): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutEmptyStringFields(v));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if ((v === '' && !inMap) || (PLAIN_ZEROS.has(k) && (v === false || v === 0))) continue;
    out[k] = withoutEmptyStringFields(v, k === 'labels' || k === 'annotations' || k === 'data' || k === 'stringData' || k === 'nodeSelector');
  }
  return out;
}

for (const [kind, obj] of Object.entries(KIND_FIXTURES)) {
  test(`a ${kind} survives encode then decode unchanged (but for empty string fields and plain zeros)`, () => {
    const body = codec.encodeObject(obj);
    assert.equal(codec.decodeObject(body), withoutEmptyStringFields(obj));
    assert.ok(body.length < JSON.stringify(obj).length, 'the Protobuf body is smaller than the JSON');
  });
}

test('a terminating Namespace carries its conditions (NamespaceStatus.conditions = 2, as established)', () => {
  // The namespace controller writes these while it empties a namespace; a Protobuf informer of
  // namespaces (the scheduler's, the controller manager's) must be able to read it.
  const ns = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'doomed', deletionTimestamp: '2026-01-02T03:04:05Z' },
    spec: { finalizers: ['kubernetes'] },
    status: {
      phase: 'Terminating',
      conditions: [
        { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', lastTransitionTime: '2026-01-02T03:04:06Z', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
        { type: 'NamespaceContentRemaining', status: 'True', lastTransitionTime: '2026-01-02T03:04:06Z', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: pods. has 2 resource instances' },
      ],
    },
  };
  assert.equal(codec.decodeObject(codec.encodeObject(ns)), ns);
});

test('a list is <Kind>List {metadata = 1, items = 2} with its ListMeta', () => {
  const items = [podFixture('a'), podFixture('b')];
  const body = codec.encodeList({ apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 }, items });
  const back = codec.decodeObject(body);
  assert.is(back['kind'], 'PodList');
  assert.equal(back['metadata'], { resourceVersion: '9', continue: 'tok', remainingItemCount: 4 });
  // Items carry no type meta on the wire (the list's kind says what they are).
  const strip = (o: Record<string, unknown>) => {
    const { apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  assert.equal(back['items'], items.map((i) => strip(i)));
});

test('a frozen object is encoded once and its bytes reused', () => {
  const c = new ProtobufCodec();
  const pod = Object.freeze(podFixture('frozen'));
  assert.ok(c.encodeRaw(pod) === c.encodeRaw(pod));
});

test('Time keeps sub-second precision and MicroTime always six digits', () => {
  const ev = { ...KIND_FIXTURES['Event']!, firstTimestamp: '2026-11-22T08:03:22.5Z', eventTime: '2026-11-22T08:03:22Z' };
  const back = codec.decodeObject(codec.encodeObject(ev));
  assert.is(back['firstTimestamp'], '2026-11-22T08:03:22.5Z');
  assert.is(back['eventTime'], '2026-11-22T08:03:22.000000Z');
});

test('negative integers survive (int64 and int32 as 10-byte varints)', () => {
  const pod = podFixture('neg');
  const spec = pod.spec as { tolerations: { tolerationSeconds: number }[]; priority: number };
  spec.tolerations[0]!.tolerationSeconds = -1;
  spec.priority = -5;
  const back = codec.decodeObject(codec.encodeObject(pod)) as typeof pod;
  assert.is((back.spec as typeof spec).tolerations[0]!.tolerationSeconds, -1);
  assert.is((back.spec as typeof spec).priority, -5);
});

test.run();
