/**
 * An independent Protobuf client for tests: protobufjs `load()` of the committed proto/ files
 * (never the server's codec), envelope checks, and raw HTTP requests that keep the bytes.
 */
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { request as undiciRequest } from 'undici';
import type { ApiServerProcess } from './apiserver.js';

const PROTO_DIR = join(new URL('../../../', import.meta.url).pathname, 'proto');
export const PROTOBUF = 'application/vnd.svc.protobuf';
export const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** Package of each apiVersion's messages in the .proto files. */
const PACKAGES: Record<string, string> = { v1: 'svc.api.core.v1', 'apps/v1': 'svc.api.apps.v1' };

export interface Decoded {
  apiVersion: string;
  kind: string;
  /** The message as protobufjs gives it (longs as numbers, bytes as base64, no defaults). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  message: Record<string, any>;
}

export class ProtoFiles {
  private constructor(readonly root: protobuf.Root) {}

  static async load(): Promise<ProtoFiles> {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
    await root.load(['api/core/v1/generated.proto', 'api/apps/v1/generated.proto'], { keepCase: true });
    root.resolveAll();
    return new ProtoFiles(root);
  }

  type(name: string): protobuf.Type {
    return this.root.lookupType(name);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  toObject(type: protobuf.Type, bytes: Uint8Array): Record<string, any> {
    return type.toObject(type.decode(bytes), { longs: Number, bytes: String });
  }

  /** Checks the prefix and reads the Unknown envelope. */
  envelope(body: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array; contentEncoding?: string; contentType?: string } {
    if (!PREFIX.equals(Buffer.from(body.subarray(0, 4)))) throw new Error(`no Protobuf prefix: ${Buffer.from(body.subarray(0, 16)).toString('hex')}`);
    const u = this.type('svc.runtime.Unknown').decode(body.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array; contentEncoding?: string; contentType?: string };
    return { apiVersion: u.typeMeta.apiVersion, kind: u.typeMeta.kind, raw: u.raw, contentEncoding: u.contentEncoding, contentType: u.contentType };
  }

  decode(body: Uint8Array): Decoded {
    const env = this.envelope(body);
    const pkg = env.kind === 'WatchEvent' ? 'svc.meta.v1' : PACKAGES[env.apiVersion];
    if (!pkg) throw new Error(`no package for ${env.apiVersion}`);
    return { apiVersion: env.apiVersion, kind: env.kind, message: this.toObject(this.type(`${pkg}.${env.kind}`), env.raw) };
  }

  /** A request body: prefix + Unknown {typeMeta, raw = message encoded from a plain wire-shaped object}. */
  encode(apiVersion: string, kind: string, wire: Record<string, unknown>): Buffer {
    const type = this.type(`${PACKAGES[apiVersion]}.${kind}`);
    const err = type.verify(wire);
    if (err) throw new Error(`invalid ${kind}: ${err}`);
    const raw = type.encode(type.fromObject(wire)).finish();
    const unknown = this.type('svc.runtime.Unknown');
    return Buffer.concat([PREFIX, unknown.encode({ typeMeta: { apiVersion, kind }, raw }).finish()]);
  }
}

export interface RawResult {
  status: number;
  contentType: string;
  body: Buffer;
}

/** One request whose response body is kept as bytes. */
export async function rawRequest(server: ApiServerProcess, method: string, path: string, body?: Buffer | string, headers: Record<string, string> = {}): Promise<RawResult> {
  const r = await undiciRequest(`${server.url}${path}`, { method: method as 'GET', body, headers, dispatcher: server.agent });
  const bytes = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, contentType: String(r.headers['content-type'] ?? ''), body: bytes };
}

/** Opens a watch and returns its first `count` frames (4-byte big-endian length, then the envelope). */
export async function watchFrames(server: ApiServerProcess, path: string, count: number, accept = PROTOBUF, timeoutMs = 10_000): Promise<{ contentType: string; frames: Buffer[] }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const r = await undiciRequest(`${server.url}${path}`, { method: 'GET', headers: { accept }, dispatcher: server.agent, signal: ac.signal });
  const frames: Buffer[] = [];
  let pending = Buffer.alloc(0);
  try {
    for await (const chunk of r.body) {
      pending = Buffer.concat([pending, chunk as Buffer]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
        const len = pending.readUInt32BE(0);
        frames.push(pending.subarray(4, 4 + len));
        pending = pending.subarray(4 + len);
      }
      if (frames.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { contentType: String(r.headers['content-type'] ?? ''), frames };
}
