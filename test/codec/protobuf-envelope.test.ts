import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PROTOBUF_PREFIX, ProtobufDecodeError, protobufCodec } from '../../src/codec/protobuf/index.js';
import { KIND_FIXTURES } from './protobuf-fixtures.js';

const codec = protobufCodec();

test('a body starts with the four bytes 0x6b 0x38 0x73 0x00', () => {
  const body = codec.encodeObject(KIND_FIXTURES['ConfigMap']!);
  assert.equal([...body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  assert.ok(PROTOBUF_PREFIX.equals(body.subarray(0, 4)));
});

test('the envelope carries typeMeta (apiVersion, kind) and raw, with no contentEncoding or contentType', () => {
  const env = codec.decodeEnvelope(codec.encodeObject(KIND_FIXTURES['Secret']!));
  assert.is(env.apiVersion, 'v1');
  assert.is(env.kind, 'Secret');
  assert.ok(env.raw.length > 0);
  assert.is(env.contentEncoding, '');
  assert.is(env.contentType, '');
});

test('a body without the prefix is rejected with a message naming the prefix', () => {
  const body = codec.encodeObject(KIND_FIXTURES['ConfigMap']!);
  for (const bad of [body.subarray(4), Buffer.from('{"kind":"ConfigMap"}'), Buffer.alloc(0)]) {
    try {
      codec.decodeObject(bad);
      assert.unreachable('accepted a body without the prefix');
    } catch (err) {
      assert.instance(err, ProtobufDecodeError);
      assert.match((err as Error).message, '0x6b 0x38 0x73 0x00');
    }
  }
});

test('a watch frame is a 4-byte big-endian length then a WatchEvent envelope whose object is an envelope', () => {
  const frame = codec.encodeWatchFrame('ADDED', KIND_FIXTURES['ConfigMap']!, 'v1');
  const len = frame.readUInt32BE(0);
  assert.is(len, frame.length - 4);
  const env = codec.decodeEnvelope(frame.subarray(4));
  assert.is(env.kind, 'WatchEvent');
});

test('an envelope whose raw is empty or absent (helm deleting with a DeleteOptions that sets nothing) reads as the empty message', () => {
  const typeMeta = Buffer.concat([Buffer.from([10, 2]), Buffer.from('v1'), Buffer.from([18, 13]), Buffer.from('DeleteOptions')]);
  const head = Buffer.concat([PROTOBUF_PREFIX, Buffer.from([10, typeMeta.length]), typeMeta]);
  for (const body of [Buffer.concat([head, Buffer.from([18, 0])]), head]) {
    assert.equal(codec.decodeObject(body), { apiVersion: 'v1', kind: 'DeleteOptions' });
  }
});

test.run();
