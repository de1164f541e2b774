/**
 * Reads a Protobuf response body (`application/vnd.svc.protobuf`) on stdin and prints it as JSON,
 * decoded only with the committed proto/ files (protobufjs), as any other client would:
 *
 *   curl -s $CA -H 'Accept: application/vnd.svc.protobuf' $API/api/v1/namespaces/default/pods/web \
 *     | node dist/docs/examples/protobuf-decode.js
 *
 * A watch stream (length-prefixed frames) is decoded frame by frame with `--watch`.
 */
import { join } from 'node:path';
import protobuf from 'protobufjs';

const PROTO_DIR = join(new URL('../../../', import.meta.url).pathname, 'proto');
const FILES = ['api/core/v1/generated.proto', 'api/apps/v1/generated.proto', 'api/batch/v1/generated.proto', 'api/rbac/v1/generated.proto'];
const PACKAGES: Record<string, string> = { v1: 'svc.api.core.v1', 'apps/v1': 'svc.api.apps.v1', 'batch/v1': 'svc.api.batch.v1', 'rbac.authorization.svc.io/v1': 'svc.api.rbac.v1' };
const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(PROTO_DIR, target);
await root.load(FILES, { keepCase: true });
root.resolveAll();

/** prefix + Unknown {typeMeta, raw} -> { apiVersion, kind, ...message } */
function decode(body: Uint8Array): Record<string, unknown> {
  if (!PREFIX.equals(Buffer.from(body.subarray(0, 4)))) throw new Error('not a Protobuf body: the 4-byte prefix 6b 38 73 00 is missing');
  const unknown = root.lookupType('svc.runtime.Unknown').decode(body.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
  const { apiVersion, kind } = unknown.typeMeta;
  const pkg = kind === 'WatchEvent' ? 'svc.meta.v1' : PACKAGES[apiVersion];
  const type = root.lookupType(`${pkg}.${kind}`);
  const message = type.toObject(type.decode(unknown.raw), { longs: Number, bytes: String });
  if (kind === 'WatchEvent') message['object'] = decode(Buffer.from(message['object'].raw as string, 'base64'));
  return { apiVersion, kind, ...message };
}

const chunks: Buffer[] = [];
for await (const c of process.stdin) chunks.push(c as Buffer);
let body = Buffer.concat(chunks);
if (process.argv.includes('--watch')) {
  while (body.length >= 4) {
    const len = body.readUInt32BE(0);
    console.log(JSON.stringify(decode(body.subarray(4, 4 + len))));
    body = body.subarray(4 + len);
  }
} else {
  console.log(JSON.stringify(decode(body)));
}
