/**
 * The server half of an in-process call: a request and a response the pipeline serves exactly like
 * an HTTP exchange (src/apiserver/server.ts), without a socket and without JSON where it can be
 * avoided.
 *
 * Ownership rule (nothing is shared mutably between the server and the caller):
 * - a request body given as a value is already the server's own copy (the transport clones it
 *   with `structuredClone` before the call), so the server may mutate and freeze it;
 * - every value the server hands out (an object, a list, a Status, a watch event's object) is
 *   cloned with `structuredClone` here, so the caller may mutate what it gets and the server's
 *   (frozen, cached) objects never leave the server.
 */
import { cloneJson, stringifyJson } from '../api/json-walk.js';
import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';

/** Who an in-process caller is (authentication takes this instead of reading credentials). */
export interface InProcessUser {
  username: string;
  groups: string[];
}

/** A request body: a value (the server's own copy) or raw bytes with their Content-Type header. */
export type InProcessBody = { kind: 'none' } | { kind: 'value'; value: unknown } | { kind: 'bytes'; bytes: Buffer };

export class InProcessRequest extends EventEmitter {
  readonly headers: IncomingHttpHeaders;
  constructor(
    readonly method: string,
    /** Path and query, as an HTTP request line carries them. */
    readonly url: string,
    headers: Record<string, string | string[]>,
    readonly body: InProcessBody,
    readonly user: InProcessUser,
  ) {
    super();
    this.headers = headers;
  }

  /** The body as bytes, for the few paths that parse text themselves (JSON of a value). */
  bytes(): Buffer {
    switch (this.body.kind) {
      case 'none':
        return Buffer.alloc(0);
      case 'bytes':
        return this.body.bytes;
      case 'value':
        return Buffer.from(stringifyJson(this.body.value));
    }
  }
}

/** One decoded watch event, as the in-process stream yields it. */
export interface InProcessEvent {
  type: string;
  object: unknown;
}

/** How a response body arrived: as a value (no encoding at all) or as bytes (another representation). */
export type InProcessResult =
  | { kind: 'value'; value: unknown }
  | { kind: 'bytes'; bytes: Buffer };

/**
 * Implements the handlers' `Response` (src/apiserver/http.ts) and two in-process shortcuts:
 * `sendValue` (a whole response as a value) and `sendEvent` (one watch event as a value).
 * Bytes written the ordinary way are kept too, so every handler works unchanged.
 */
export class InProcessResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  readonly responseHeaders: Record<string, string> = {};
  private value: { present: false } | { present: true; value: unknown } = { present: false };
  private readonly chunks: Buffer[] = [];
  private readonly queue: InProcessEvent[] = [];
  private wake: (() => void) | undefined;
  private lineBuffer = '';
  private headResolve!: () => void;
  private endResolve!: () => void;
  /** Resolves once the status and headers are known (a watch starts streaming, or any response ends). */
  readonly head: Promise<void> = new Promise((r) => (this.headResolve = r));
  /** Resolves once the response has ended. */
  readonly ended: Promise<void> = new Promise((r) => (this.endResolve = r));
  private closedByCaller = false;

  /** `stream`: a watch, whose JSON-lines bytes (if a handler writes bytes) become events. */
  constructor(private readonly mode: 'whole' | 'stream') {
    super();
  }

  setHeader(name: string, value: string | number | readonly string[]): this {
    this.responseHeaders[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    return this;
  }

  writeHead(code: number, headers?: Record<string, string>): this {
    if (this.headersSent) return this;
    this.statusCode = code;
    for (const [k, v] of Object.entries(headers ?? {})) this.setHeader(k, v);
    this.headersSent = true;
    this.headResolve();
    return this;
  }

  flushHeaders(): void {}

  write(chunk: Buffer | string): boolean {
    if (this.writableEnded) return false;
    if (!this.headersSent) this.writeHead(this.statusCode);
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.chunks.push(buf);
    // A stream in a byte representation: JSON lines become events (the in-process transport asks
    // for JSON, so this is the fallback for handlers that only write bytes).
    if (this.mode === 'stream' && this.isJson()) this.takeLines(buf.toString('utf8'));
    return true;
  }

  end(chunk?: Buffer | string): this {
    if (this.writableEnded) return this;
    if (chunk !== undefined) this.write(chunk);
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableEnded = true;
    this.wake?.();
    this.endResolve();
    return this;
  }

  /** A whole JSON response as a value: objects are cloned, bytes and text are parsed (a fresh value). */
  sendValue(code: number, body: Buffer | string | object, headers: Record<string, string> = {}): void {
    if (this.headersSent || this.writableEnded) return;
    const value = Buffer.isBuffer(body) ? JSON.parse(body.toString('utf8')) : typeof body === 'string' ? JSON.parse(body) : cloneJson(body);
    this.value = { present: true, value };
    this.writeHead(code, { 'content-type': 'application/json', ...headers });
    this.end();
  }

  /**
   * One watch event of a stored object: the server's own deep-frozen object itself, shared by
   * every in-process watcher (and their informers' caches) instead of a copy per watcher. The
   * client hands watch objects out frozen on every transport, so nobody can change it.
   */
  sendEventObject(type: string, object: object): void {
    if (this.writableEnded || this.closedByCaller) return;
    if (!Object.isFrozen(object)) throw new Error('sendEventObject: only frozen (stored) objects may be shared');
    this.queue.push({ type, object });
    this.wake?.();
  }

  /** One watch event; the object is cloned (the server's cached object stays the server's). */
  sendEvent(type: string, object: object): void {
    if (this.writableEnded || this.closedByCaller) return;
    this.queue.push({ type, object: cloneJson(object) });
    this.wake?.();
  }

  /** The caller is gone (a closed watch): handlers see 'close' as from a dropped connection. */
  closeFromCaller(): void {
    if (this.closedByCaller) return;
    this.closedByCaller = true;
    this.queue.length = 0;
    this.emit('close');
    this.wake?.();
  }

  /** The complete body of an ended response. */
  result(): InProcessResult {
    if (this.value.present) return { kind: 'value', value: this.value.value };
    return { kind: 'bytes', bytes: this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks) };
  }

  /** Watch events as they are sent; ends when the server ends the response or the caller closes. */
  async *events(): AsyncGenerator<InProcessEvent> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (this.writableEnded || this.closedByCaller) return;
      await new Promise<void>((r) => (this.wake = r));
      this.wake = undefined;
    }
  }

  private isJson(): boolean {
    return (this.responseHeaders['content-type'] ?? '').startsWith('application/json');
  }

  private takeLines(text: string): void {
    this.lineBuffer += text;
    let nl: number;
    while ((nl = this.lineBuffer.indexOf('\n')) >= 0) {
      const line = this.lineBuffer.slice(0, nl).trim();
      this.lineBuffer = this.lineBuffer.slice(nl + 1);
      if (line) this.queue.push(JSON.parse(line) as InProcessEvent);
    }
    this.wake?.();
  }
}
