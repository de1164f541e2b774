/**
 * Reading a Protobuf watch stream (the client side of `ProtobufCodec.encodeWatchFrame`): frames of
 * a 4-byte big-endian length and the envelope of `WatchEvent {type = 1, object = 2 {raw = 1}}`,
 * whose `raw` is the object's own envelope. Frames arrive split and joined arbitrarily by the
 * connection, so `WatchFrameSplitter` buffers until a whole frame is there.
 */
import { type ProtobufCodec, ProtobufDecodeError, protobufCodec } from './codec.js';
import { WireReader } from './reader.js';

/** A frame longer than this is refused (an object is at most 3 MiB; this leaves room for the envelope). */
export const MAX_WATCH_FRAME_BYTES = 16 * 1024 * 1024;

export interface DecodedWatchEvent {
  type: string;
  object: Record<string, unknown>;
}

/** Splits a byte stream into whole frames (the bytes after each length prefix). */
export class WatchFrameSplitter {
  private buf: Buffer = Buffer.alloc(0);

  /** Adds bytes; returns the frames they completed, in order. */
  push(chunk: Uint8Array): Buffer[] {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const frames: Buffer[] = [];
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0);
      if (len > MAX_WATCH_FRAME_BYTES) throw new ProtobufDecodeError(`a watch frame claims ${len} bytes; the limit is ${MAX_WATCH_FRAME_BYTES}`);
      if (this.buf.length < 4 + len) break;
      frames.push(this.buf.subarray(4, 4 + len));
      this.buf = this.buf.subarray(4 + len);
    }
    return frames;
  }

  /** Bytes of an unfinished frame (non-zero when a stream ends mid-frame). */
  get pending(): number {
    return this.buf.length;
  }
}

/** One frame (without its length prefix) back to `{type, object}`. */
export function decodeWatchFrame(frame: Uint8Array, codec: ProtobufCodec = protobufCodec()): DecodedWatchEvent {
  const env = codec.decodeEnvelope(frame);
  if (env.kind !== 'WatchEvent') throw new ProtobufDecodeError(`a watch frame must hold a WatchEvent, not ${env.apiVersion}/${env.kind}`);
  const r = new WireReader(Buffer.from(env.raw.buffer, env.raw.byteOffset, env.raw.byteLength));
  let type = '';
  let raw: Buffer | undefined;
  try {
    while (r.pos < r.length) {
      const tag = r.uint32();
      if (tag === 10) type = r.string();
      else if (tag === 18) {
        const ext = new WireReader(r.bytes());
        while (ext.pos < ext.length) {
          const t = ext.uint32();
          if (t === 10) raw = ext.bytes();
          else ext.skipType(t & 7);
        }
      } else r.skipType(tag & 7);
    }
  } catch (err) {
    throw new ProtobufDecodeError(`the WatchEvent cannot be read: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!type) throw new ProtobufDecodeError('the WatchEvent has no type');
  if (!raw) throw new ProtobufDecodeError(`the ${type} WatchEvent has no object`);
  return { type, object: codec.decodeObject(raw) };
}
