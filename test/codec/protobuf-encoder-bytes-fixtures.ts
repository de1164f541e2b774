/**
 * Inputs whose encoded bytes were recorded from the encoder before its rewrite (fork/ldelim with one
 * reserved length byte, JSON.stringify for FieldsV1, per-call path strings): the bench's 1,000-pod
 * list, and objects that walk each fast path's edges (string lengths around the JS-loop/native and
 * one/two length-byte limits, non-ASCII and lone surrogates, FieldsV1 keys that need escaping,
 * RawExtension of any JSON, times with fractions, negative numbers, nested lengths that change
 * size from one object to the next at the same place in the schema).
 */
import { benchPod } from '../../bench/measure-protobuf.js';
import { KIND_FIXTURES, RECORDED_KIND_FIXTURES } from './protobuf-fixtures.js';

type Json = Record<string, unknown>;
export interface ListInput {
  apiVersion: string;
  kind: string;
  metadata: Json;
  items: Json[];
}

/** The list bench/measure-protobuf.ts encodes (nulls dropped as the store would). */
export function benchPodList(items = 1_000): ListInput {
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '5000' }, items: Array.from({ length: items }, (_, i) => benchPod('bench', i)) };
  return JSON.parse(JSON.stringify(list, (_k, v: unknown) => (v === null ? undefined : v))) as ListInput;
}

const LENGTHS = [0, 1, 30, 31, 32, 33, 62, 63, 64, 125, 126, 127, 128, 129, 200, 16_383, 16_384, 70_000];

/** ConfigMaps whose values (ASCII, two-byte, three-byte, surrogate pairs, lone surrogates) take every boundary length, big and small alternating. */
export function edgeConfigMapList(): ListInput {
  const pieces = ['a', 'é', '日', '😀', '\ud800'];
  const items: Json[] = [];
  LENGTHS.forEach((n, i) => {
    const data: Record<string, string> = {};
    pieces.forEach((p, j) => (data[`k${j}`] = p.repeat(Math.ceil(n / p.length)).slice(0, n)));
    // A small object after each big one: the same fork sites see lengths needing fewer bytes again.
    items.push({ metadata: { name: `cm-${i}`, namespace: 'default', labels: { size: String(n), ['l'.repeat(Math.min(n, 63)) || 'x']: 'v'.repeat(Math.min(n, 63)) } }, data });
    items.push({ metadata: { name: `small-${i}`, namespace: 'default' }, data: { k: 'v' } });
  });
  return { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' }, items };
}

function fixture(kind: string): Json {
  const o = KIND_FIXTURES[kind];
  if (!o) throw new Error(`no ${kind} in KIND_FIXTURES`);
  return o as unknown as Json;
}

/** Single objects: odd FieldsV1 and RawExtension values, fractional and micro times, negative numbers. */
export function edgeObjects(): Json[] {
  const pod = structuredClone(fixture('Pod'));
  const meta = pod['metadata'] as Json;
  const managed = (fieldsV1: unknown, time = '2026-11-22T08:03:22.123456Z') => ({ manager: 'm', operation: 'Update', apiVersion: 'v1', time, fieldsType: 'FieldsV1', fieldsV1 });
  meta['managedFields'] = [
    managed({ 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }, '2026-11-22T08:03:22Z'),
    managed({ 'k:{"name":"web"}': { '.': {}, 'f:image': {} }, 'v:"a\\b"': {}, 'i:0': {} }),
    managed({ 'f:é': { 'f:\u0001': {}, 'f:日本': {} }, 2: {}, 10: {}, '': {} }),
    managed({ 'f:x': { 'f:y': [1, 2] }, 'f:z': 'text' }),
    managed({}),
  ];
  meta['creationTimestamp'] = '1969-12-31T23:59:58Z';
  meta['deletionTimestamp'] = '2026-11-22T08:03:22.5+02:00';
  const objects: Json[] = [pod, ...Object.values(RECORDED_KIND_FIXTURES).map((o) => o as unknown as Json)];
  const revision = fixture('ControllerRevision');
  for (const data of [[1, 'two', { three: [null, true] }], 'just text', 42, { 'k"ey': { nested: {} } }, { a: {}, b: { c: {} } }]) {
    objects.push({ ...structuredClone(revision), data, revision: -3 });
  }
  return objects;
}
