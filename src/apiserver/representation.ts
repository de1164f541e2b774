/**
 * Writing a resource response in the negotiated representation, and the request body media types a
 * kind accepts. JSON is the stored bytes as they are; Protobuf is the envelope of src/codec/protobuf/
 * (offered only for kinds whose every modelled field has a number, see protobufSupport).
 */
import { type Spelling, spelledApiVersion } from '../api/established-spelling.js';
import { notAcceptable } from '../api/status.js';
import { groupVersion, type ResourceDefinition, type SvcObject } from '../api/types.js';
import { OBJECT_MEDIA_TYPES } from '../codec/body.js';
import { PROTOBUF_MEDIA_TYPE, protobufCodec, protobufSupport, UnencodableError } from '../codec/protobuf/index.js';
import type { Response } from './http.js';
import { writeHeadSafely, writeJson } from './http.js';
import { auditResponseObject } from './audit/auditor.js';
import { SLICE_BYTES, streamBody, type StreamedResponse } from './fair-streams.js';
import { runInTurns } from './input-limits.js';
import type { RequestScope } from './scope.js';

/** Does this kind offer the Protobuf representation? */
export function offersProtobuf(def: ResourceDefinition): boolean {
  return 'message' in protobufSupport(def);
}

/** Media types a create/update body of this kind may use (Protobuf only where the kind has numbers). */
export function objectMediaTypes(def: ResourceDefinition): readonly string[] {
  return offersProtobuf(def) ? [...OBJECT_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE] : OBJECT_MEDIA_TYPES;
}

/**
 * The Content-Type is the one negotiated from Accept, in the spelling the selecting Accept clause used
 * (as watch responses do), not the path's: a client that asked for `application/vnd.svc.protobuf`
 * under `/apis/coordination.k8s.io/...` is answered in the type it asked for, not in an alias it may
 * not know.
 */
function writeProtobuf(s: RequestScope, code: number, body: Buffer): void {
  const res = s.res;
  if (res.headersSent || res.writableEnded) return;
  writeHeadSafely(res, code, { 'content-type': s.output.contentType, 'content-length': String(body.length) });
  // A large list goes out a slice per turn, like JSON (./fair-streams.ts).
  if (body.length >= SLICE_BYTES) return streamBody(res as unknown as StreamedResponse, [body]);
  res.end(body);
}

/**
 * An object whose Protobuf TypeMeta names its group in the request's spelling (a shallow copy when
 * it changes). JSON is rewritten as text instead (writeJson); Protobuf has to be told before encoding.
 */
function spelledObject<T extends object>(obj: T, spelling: Spelling): T {
  const apiVersion = (obj as { apiVersion?: unknown }).apiVersion;
  if (spelling === 'svc' || typeof apiVersion !== 'string') return obj;
  const spelled = spelledApiVersion(apiVersion, spelling);
  return spelled === apiVersion ? obj : { ...obj, apiVersion: spelled };
}

/** Encodes or answers 406: an object the wire cannot carry whole is never sent half-encoded. */
export function encodeOrRefuse<T>(encode: () => T): T {
  try {
    return encode();
  } catch (err) {
    throw refusedEncoding(err);
  }
}

/** The 406 for an UnencodableError; any other error as it is. */
function refusedEncoding(err: unknown): unknown {
  return err instanceof UnencodableError ? notAcceptable(`the object cannot be represented in ${PROTOBUF_MEDIA_TYPE}: ${err.message}`) : err;
}

/** One object (a stored view: its parsed object and JSON bytes) in the response representation. */
export function writeObject(s: RequestScope, code: number, view: { object: SvcObject; json: Buffer }): void {
  if (s.output.representation === 'protobuf') {
    // The audit log records the object as JSON whatever the wire carries, as established.
    auditResponseObject(s.res, view.json);
    const body = encodeOrRefuse(() => protobufCodec().encodeObject(spelledObject(view.object as Record<string, unknown>, s.spelling)));
    return writeProtobuf(s, code, body);
  }
  // In-process callers get a value parsed from these bytes: cheaper than a deep clone, and the
  // bytes are made once per object and shared (with watchers, with other readers).
  writeJson(s.res, code, view.json);
}

/** A value built by the handler (a Status, a list of removed objects) in the response representation. */
export function writeValue(s: RequestScope, code: number, value: Record<string, unknown>): void {
  if (s.output.representation === 'protobuf') {
    auditResponseObject(s.res, value);
    const codec = protobufCodec();
    const body = encodeOrRefuse(() =>
      Array.isArray(value['items'])
        ? codec.encodeList(value as { apiVersion: string; kind: string; metadata: Record<string, unknown>; items: Record<string, unknown>[] })
        : codec.encodeObject(spelledObject(value, s.spelling)),
    );
    return writeProtobuf(s, code, body);
  }
  writeJson(s.res, code, value);
}

/**
 * A list response in Protobuf (`<Kind>List`), items encoded once per cached object; encoded a few
 * items per turn of the event loop (a cold list of thousands takes hundreds of milliseconds).
 */
export async function writeProtobufList(s: RequestScope, metadata: Record<string, unknown>, items: readonly SvcObject[]): Promise<void> {
  const apiVersion = spelledApiVersion(s.def.group ? `${s.def.group}/${s.def.version}` : s.def.version, s.spelling);
  auditResponseObject(s.res, { apiVersion, kind: s.def.listKind, metadata, items });
  const steps = protobufCodec().encodeListSteps({ apiVersion, kind: s.def.listKind, metadata, items: items as unknown as readonly Record<string, unknown>[] });
  let body: Buffer;
  try {
    body = await runInTurns(s.res, steps);
  } catch (err) {
    throw refusedEncoding(err);
  }
  writeProtobuf(s, 200, body);
}

/**
 * One Protobuf watch frame. The stream has already started, so an object the wire cannot carry
 * becomes an ERROR event with a NotAcceptable Status instead of a half-encoded object.
 */
export function protobufWatchFrame(def: ResourceDefinition, type: string, obj: object, spelling: Spelling): Buffer {
  const codec = protobufCodec();
  const gv = spelledApiVersion(groupVersion(def), spelling);
  try {
    return codec.encodeWatchFrame(type, spelledObject(obj as Record<string, unknown>, spelling), gv);
  } catch (err) {
    if (!(err instanceof UnencodableError)) throw err;
    const status = notAcceptable(`the object cannot be represented in ${PROTOBUF_MEDIA_TYPE}: ${err.message}`).status;
    return codec.encodeWatchFrame('ERROR', status as unknown as Record<string, unknown>, gv);
  }
}
