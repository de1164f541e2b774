/**
 * The small HTTP surface shared by every handler: one request/response type for HTTP/1.1, HTTP/2
 * and in-process calls (./in-process-exchange.ts), body reading with a size limit, and writers for
 * objects and `Status` errors. In-process responses take values instead of bytes (cloned, never
 * shared); everything else about a response is the same.
 */
import { canonicalizeBody, establishedGroup, establishedJsonText, mayHoldEstablishedSpelling } from '../api/established-spelling.js';
import { stringifyJson } from '../api/json-walk.js';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { requestEntityTooLarge, type Status, StatusError, statusObject, toStatusError } from '../api/status.js';
import { decodeBody } from '../codec/body.js';
import { InProcessRequest, InProcessResponse } from './in-process-exchange.js';
import { checkBodyNesting, type InputLimits, LARGE_OBJECT_BYTES, otherRequestsTurn } from './input-limits.js';
import { isWireSafe, wireHeaderValue } from './warnings.js';
import { SLICE_BYTES, streamBody, type StreamedResponse } from './fair-streams.js';
import { auditRequestObject, auditResponseObject, auditResponseStatus } from './audit/auditor.js';

/** A request from the HTTPS listener (HTTP/1.1 or HTTP/2). */
export type Request = IncomingMessage | Http2ServerRequest;
/** What the pipeline serves: a request from the listener or an in-process call. */
export type PipelineRequest = Request | InProcessRequest;
/** What handlers use of a response; both node's HTTP/1.1 and HTTP/2 compatibility responses fit. */
export interface Response {
  statusCode: number;
  readonly headersSent: boolean;
  readonly writableEnded: boolean;
  setHeader(name: string, value: string | number | readonly string[]): unknown;
  writeHead(code: number, headers?: Record<string, string>): unknown;
  write(chunk: Buffer | string): boolean;
  /** HTTP/1.1 only: send the status line and headers now (a watch may have nothing to write yet). */
  flushHeaders?(): void;
  /** HTTP/1.1 only: hold writes back until uncork(), which sends them at once. */
  cork?(): void;
  uncork?(): void;
  end(chunk?: Buffer | string): unknown;
  on(event: 'close', listener: () => void): unknown;
}

/** Bodies read before the request took its in-flight slot (see `prefetchBody`). */
const prefetched = new WeakMap<Request, Buffer>();

/**
 * Reads the body of a write BEFORE it takes an in-flight slot, within `deadlineMs` of its own
 * (the established server counts a request from when it is handled; here a slow uploader must not
 * hold a write slot while its bytes trickle in). A body not complete in time is a 408 Timeout
 * (the caller cuts the connection off once it is sent); 413 past `limit`. The handler's
 * `readBody` then gets the bytes at once.
 */
export async function prefetchBody(req: Request, limit: number, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new StatusError(
            408,
            'Timeout',
            `Timeout: the request body did not arrive within ${deadlineMs / 1000}s (--request-timeout); send it faster, or in smaller requests`,
          ),
        ),
      deadlineMs,
    );
  });
  try {
    prefetched.set(req, await Promise.race([readBody(req, limit), slow]));
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Reads the whole body; 413 past the limit (the rest is drained, not buffered). Rejects when the
 * client goes away or the request is destroyed (its deadline passed) before the body is complete,
 * so a body that never finishes cannot hold its handler, and with it its in-flight slot.
 */
export function readBody(req: Request, limit: number): Promise<Buffer> {
  const ready = prefetched.get(req);
  if (ready) {
    if (ready.length > limit) return Promise.reject(requestEntityTooLarge(`the request body is ${ready.length} bytes; the limit is ${limit} bytes`));
    return Promise.resolve(ready);
  }
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? -1);
    if (declared > limit) {
      req.resume();
      reject(requestEntityTooLarge(`the request body is ${declared} bytes; the limit is ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(requestEntityTooLarge(`the request body is larger than the limit of ${limit} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) {
        failed = true;
        reject(e);
      }
    });
    req.on('close', () => {
      if (!failed && !req.complete) {
        failed = true;
        reject(new StatusError(400, 'BadRequest', 'the request body did not arrive in full before the connection closed or the request timed out'));
      }
    });
  });
}

/** The whole body (bytes) of a request, whichever way it came; 413 past the limit. */
export async function readRequestBytes(req: PipelineRequest, limit: number): Promise<Buffer> {
  if (!(req instanceof InProcessRequest)) return readBody(req, limit);
  const bytes = req.bytes();
  if (bytes.length > limit) throw requestEntityTooLarge(`the request body is ${bytes.length} bytes; the limit is ${limit} bytes`);
  return bytes;
}

/**
 * The request body as a value: an in-process caller's value as it is (already the server's own
 * copy), else the bytes decoded by Content-Type (415 for a type not in `allowed`, 400 if
 * unreadable); either way held to the nesting limit before anything walks it.
 */
export async function readRequestValue(req: PipelineRequest, allowed: readonly string[], limits: InputLimits): Promise<unknown> {
  return audited(req, await readRequestValueOnly(req, allowed, limits));
}

async function readRequestValueOnly(req: PipelineRequest, allowed: readonly string[], limits: InputLimits): Promise<unknown> {
  if (req instanceof InProcessRequest && req.body.kind === 'value') return checkedValue(req.body.value, limits);
  const bytes = await readRequestBytes(req, limits.maxRequestBodyBytes);
  if (bytes.length <= LARGE_OBJECT_BYTES) return canonicalValue(bytes, checkedValue(decodeBody(req.headers['content-type'], bytes, allowed), limits));
  const value = decodeBody(req.headers['content-type'], bytes, allowed);
  await otherRequestsTurn();
  return canonicalValue(bytes, checkedValue(value, limits));
}

/** The decoded request object goes to the request's audit (./audit/auditor.ts) when it has one. */
function audited<T>(req: PipelineRequest, value: T): T {
  auditRequestObject(req, value);
  return value;
}

/** A decoded body with groups spelled the established way rewritten to ours (objects are stored once, in our spelling). */
function canonicalValue(bytes: Buffer, value: unknown): unknown {
  if (mayHoldEstablishedSpelling(bytes)) canonicalizeBody(value);
  return value;
}

/**
 * Like readRequestValue, and whether the body named a group in the established spelling: for
 * answers whose own path does not say (a core-group subresource answering with another group's
 * kind, e.g. serviceaccounts/token's TokenRequest), which then answer in the body's spelling.
 */
export async function readRequestValueAndSpelling(req: PipelineRequest, allowed: readonly string[], limits: InputLimits): Promise<{ value: unknown; established: boolean }> {
  if (req instanceof InProcessRequest && req.body.kind === 'value') return { value: audited(req, checkedValue(req.body.value, limits)), established: false };
  const bytes = await readRequestBytes(req, limits.maxRequestBodyBytes);
  const value = checkedValue(decodeBody(req.headers['content-type'], bytes, allowed), limits);
  const established = mayHoldEstablishedSpelling(bytes) && canonicalizeBody(value);
  return { value: audited(req, value), established };
}

/** Like readRequestValue, for an optional body: undefined when there is none (or only whitespace). */
export async function readOptionalRequestValue(req: PipelineRequest, allowed: readonly string[], limits: InputLimits): Promise<unknown> {
  if (req instanceof InProcessRequest && req.body.kind === 'value') return audited(req, checkedValue(req.body.value, limits));
  const raw = await readRequestBytes(req, limits.maxRequestBodyBytes);
  if (!raw.length || !raw.toString('utf8').trim()) return undefined;
  return audited(req, canonicalValue(raw, checkedValue(decodeBody(req.headers['content-type'], raw, allowed), limits)));
}

function checkedValue(value: unknown, limits: InputLimits): unknown {
  checkBodyNesting(value, limits);
  return value;
}

/** Calls `listener` when the client goes away (a dropped connection, a closed in-process watch). */
export function onRequestClose(req: PipelineRequest, listener: () => void): void {
  (req as { on(event: 'close', l: () => void): unknown }).on('close', listener);
}

/** The in-process response behind `res`, when the request is an in-process call. */
export function inProcessResponse(res: Response): InProcessResponse | undefined {
  return res instanceof InProcessResponse ? res : undefined;
}

/** Responses to requests that used the established spelling of a group or media type. */
const ESTABLISHED_SPELLING = new WeakSet<Response>();

/** From now on, JSON written to `res` names groups in the established spelling (src/api/established-spelling.ts). */
export function answerInEstablishedSpelling(res: Response): void {
  if (!(res instanceof InProcessResponse)) ESTABLISHED_SPELLING.add(res);
}

/** True when JSON written to `res` is rewritten to the established spelling. */
export function answersInEstablishedSpelling(res: Response): boolean {
  return ESTABLISHED_SPELLING.has(res);
}

/** JSON bytes as they go to this response: rewritten only when the request used the established spelling. */
export function spelledJson(res: Response, json: Buffer): Buffer {
  if (!ESTABLISHED_SPELLING.has(res)) return json;
  const text = json.toString('utf8');
  const spelled = establishedJsonText(text);
  return spelled === text ? json : Buffer.from(spelled);
}

/**
 * writeHead with every value in a form Node sends on HTTP/1.1 and HTTP/2 alike (./warnings.ts): a
 * value it cannot send throws on HTTP/1.1 and, on HTTP/2, resets the stream after a write may have
 * been committed. Headers set before (Warning) are encoded where they are set.
 */
export function writeHeadSafely(res: Response, code: number, headers: Record<string, string>): void {
  const safe: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) safe[k] = isWireSafe(v) ? v : wireHeaderValue(v);
  res.writeHead(code, safe);
}

const NEWLINE = Buffer.from('\n');

/**
 * An API object, list, Status, Table or discovery document as JSON, ending with a newline as the
 * established server's serializer writes it (Go's json.Encoder). Stored bytes are sent as they are
 * and the newline after them in the same flush (no copy of a large list).
 */
export function writeJson(res: Response, code: number, body: Buffer | string | object, extra?: Record<string, string>): void {
  if (res.headersSent || res.writableEnded) return;
  auditResponseObject(res, body);
  if (res instanceof InProcessResponse) return res.sendValue(code, body, extra);
  if (!Buffer.isBuffer(body)) {
    const buf = spelledJson(res, Buffer.from(`${typeof body === 'string' ? body : stringifyJson(body)}\n`));
    writeHeadSafely(res, code, { 'content-type': 'application/json', 'content-length': String(buf.length), ...extra });
    res.end(buf);
    return;
  }
  const buf = spelledJson(res, body);
  writeHeadSafely(res, code, { 'content-type': 'application/json', 'content-length': String(buf.length + 1), ...extra });
  if (buf.length >= SLICE_BYTES) return streamBody(res as unknown as StreamedResponse, [buf, NEWLINE]);
  res.cork?.();
  res.write(buf);
  res.end(NEWLINE);
}

/**
 * A JSON document given as the parts it is made of (a list: its head, then each item's stored
 * JSON, shared with the watch cache, with the commas between), ending with a newline like
 * writeJson. Above a slice the parts are streamed fairly (./fair-streams.ts), never copied into
 * one body.
 */
export function writeJsonParts(res: Response, code: number, parts: readonly Buffer[], extra?: Record<string, string>): void {
  if (res.headersSent || res.writableEnded) return;
  auditResponseObject(res, parts);
  if (res instanceof InProcessResponse) return res.sendValue(code, Buffer.concat(parts as Buffer[]), extra);
  // Spelling rewrites whole JSON values; every part is a whole value or punctuation between them.
  const spelled = ESTABLISHED_SPELLING.has(res) ? parts.map((p) => spelledJson(res, p)) : parts;
  let length = 1;
  for (const p of spelled) length += p.length;
  writeHeadSafely(res, code, { 'content-type': 'application/json', 'content-length': String(length), ...extra });
  if (length >= SLICE_BYTES) return streamBody(res as unknown as StreamedResponse, [...spelled, NEWLINE]);
  res.cork?.();
  for (const p of spelled) res.write(p);
  res.end(NEWLINE);
}

/**
 * A document the established server writes as it is, not through its object serializer (`/version`,
 * the OpenAPI documents in JSON or Protobuf, the root path list): the bytes without a newline.
 */
export function writeDocument(res: Response, code: number, body: Buffer | object, contentType = 'application/json'): void {
  if (res.headersSent || res.writableEnded) return;
  if (res instanceof InProcessResponse) return res.sendValue(code, body, { 'content-type': contentType });
  const buf = spelledJson(res, Buffer.isBuffer(body) ? body : Buffer.from(stringifyJson(body)));
  writeHeadSafely(res, code, { 'content-type': contentType, 'content-length': String(buf.length) });
  if (buf.length >= SLICE_BYTES) return streamBody(res as unknown as StreamedResponse, [buf]);
  res.end(buf);
}

export function writeStatus(res: Response, err: unknown): Status {
  const e = err instanceof StatusError ? err : toStatusError(err);
  const extra: Record<string, string> = {};
  const retry = e.status.details?.retryAfterSeconds;
  if (retry) extra['retry-after'] = String(retry);
  auditResponseStatus(res, e.status);
  writeJson(res, e.status.code, ESTABLISHED_SPELLING.has(res) ? establishedStatus(e.status) : e.status, extra);
  return e.status;
}

/**
 * A Status about an object of an aliased group in the established spelling (`details.group` and
 * the `<resource>.<group>` in its message), for a request that named the group that way: the
 * established server answers `roles.rbac.authorization.k8s.io "r" already exists`.
 */
function establishedStatus(status: Status): Status {
  const group = status.details?.group;
  if (!group) return status;
  const spelled = establishedGroup(group);
  if (spelled === group) return status;
  const message = status.message?.split(`.${group} "`).join(`.${spelled} "`);
  return statusObject(status.status, status.code, message, status.reason, { ...status.details, group: spelled });
}

export function writeText(res: Response, code: number, text: string): void {
  if (res.headersSent || res.writableEnded) return;
  const buf = Buffer.from(text);
  writeHeadSafely(res, code, {
    'content-type': 'text/plain; charset=utf-8',
    'x-content-type-options': 'nosniff',
    'content-length': String(buf.length),
  });
  res.end(buf);
}
