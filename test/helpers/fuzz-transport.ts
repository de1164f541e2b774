/**
 * Sends one request to the real API server over HTTP/1.1 (node:https, keep-alive), over HTTP/2
 * (node:http2, one session, ALPN on the same TLS port), or as raw bytes over a TLS socket (for
 * requests a conforming client refuses to send), and says how it was answered: a full response
 * (status, headers, body), or a failure that is the server's (no answer by the deadline, a stream
 * reset, a socket closed without a response). A request the client itself refuses to send (a
 * header HTTP/2 forbids) is `unsent`, not the server's fault. Watches are read for `watchReadMs`
 * after their headers and then cancelled by the client: that counts as answered.
 */
import { connect as h2connect, type ClientHttp2Session, constants as h2c } from 'node:http2';
import { Agent, request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';

export type Protocol = 'http/1.1' | 'h2';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  ms: number;
  /** A watch the client cancelled after reading it for a while. */
  cancelled: boolean;
}
export type Outcome = { kind: 'answered'; answer: Answer } | { kind: 'failed'; failure: string; ms: number } | { kind: 'unsent'; reason: string };

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface TransportOptions {
  port: number;
  ca: string;
  /** A request not fully answered by then is a failure (a hang). */
  deadlineMs: number;
  /** How long a watch's stream is read before the client cancels it. */
  watchReadMs: number;
}

/** A watch request: its stream does not end by itself, so the client cancels it after a while. */
export function isWatch(path: string): boolean {
  const q = path.includes('?') ? path.slice(path.indexOf('?')) : '';
  return /[?&]watch=(1|true|True|TRUE|t|T)(&|$)/.test(q) || path.includes('/watch/');
}

/** Header text the way it goes on the wire: text outside Latin-1 as its UTF-8 bytes (one Latin-1 char per byte). */
function wireHeaders(h: Record<string, string>): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) return `header name ${JSON.stringify(k)} is not a token`;
    const bytes = Buffer.from(v, 'utf8').toString('latin1');
    if (/[^\t\x20-\x7e\x80-\xff]/.test(bytes)) return `header ${k} holds a control character`;
    out[k] = bytes;
  }
  return out;
}

export class FuzzTransport {
  private readonly agent: Agent;
  private session: ClientHttp2Session | undefined;
  constructor(private readonly opts: TransportOptions) {
    this.agent = new Agent({ keepAlive: true, maxSockets: 4, ca: opts.ca, servername: 'localhost' });
  }

  close(): void {
    this.agent.destroy();
    this.session?.destroy();
  }

  send(protocol: Protocol, req: Sent, raw = false): Promise<Outcome> {
    if (raw) return this.sendRaw(req);
    const headers = wireHeaders(req.headers);
    // A header node will not send goes over HTTP/1.1 as raw bytes; HTTP/2 has no way to carry it.
    if (typeof headers === 'string') return protocol === 'h2' ? Promise.resolve({ kind: 'unsent', reason: headers }) : this.sendRaw(req);
    // A path with text outside ASCII goes as its UTF-8 bytes, as a client that does not escape it would send it.
    const path = Buffer.from(req.path, 'utf8').toString('latin1');
    return protocol === 'h2' ? this.sendH2({ ...req, path }, headers) : this.sendH1({ ...req, path }, headers);
  }

  private sendH1(req: Sent, headers: Record<string, string>): Promise<Outcome> {
    const t0 = Date.now();
    const watch = isWatch(req.path);
    return new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(o);
      };
      let r: ReturnType<typeof httpsRequest>;
      try {
        // The body's length said (node frames no body of a GET or DELETE by itself: its bytes would read as the next request).
        const length = req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) };
        r = httpsRequest({ host: '127.0.0.1', port: this.opts.port, method: req.method, path: req.path, headers: { ...length, ...headers }, agent: this.agent, servername: 'localhost' });
      } catch (e) {
        finish({ kind: 'unsent', reason: String(e) });
        return;
      }
      timer = setTimeout(() => {
        finish({ kind: 'failed', failure: `no complete answer within ${this.opts.deadlineMs} ms`, ms: Date.now() - t0 });
        r.destroy();
      }, this.opts.deadlineMs);
      r.on('error', (e) => finish({ kind: 'failed', failure: `${(e as NodeJS.ErrnoException).code ?? ''} ${e.message}${r.reusedSocket ? ' (on a reused connection)' : ''}`, ms: Date.now() - t0 }));
      r.on('response', (res) => {
        const chunks: Buffer[] = [];
        let cut: NodeJS.Timeout | undefined;
        const answer = (cancelled: boolean): Outcome => ({ kind: 'answered', answer: { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: Date.now() - t0, cancelled } });
        if (watch && res.statusCode === 200) {
          cut = setTimeout(() => {
            finish(answer(true));
            r.destroy();
          }, this.opts.watchReadMs);
        }
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(cut);
          finish(answer(false));
        });
        res.on('aborted', () => finish({ kind: 'failed', failure: `response aborted after ${Buffer.concat(chunks).length} bytes (status ${res.statusCode})`, ms: Date.now() - t0 }));
        res.on('error', (e) => finish({ kind: 'failed', failure: `response error: ${e.message} (status ${res.statusCode})`, ms: Date.now() - t0 }));
      });
      if (req.body !== undefined) r.end(req.body);
      else r.end();
    });
  }

  private h2(): ClientHttp2Session {
    if (!this.session || this.session.closed || this.session.destroyed) {
      const s = h2connect(`https://127.0.0.1:${this.opts.port}`, { ca: this.opts.ca, servername: 'localhost' });
      s.on('error', () => undefined);
      this.session = s;
    }
    return this.session;
  }

  private sendH2(req: Sent, headers: Record<string, string>): Promise<Outcome> {
    const t0 = Date.now();
    const watch = isWatch(req.path);
    return new Promise((resolve) => {
      let done = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(o);
      };
      let stream: ReturnType<ClientHttp2Session['request']>;
      try {
        stream = this.h2().request({ ':method': req.method, ':path': req.path, ...headers }, { endStream: req.body === undefined });
      } catch (e) {
        finish({ kind: 'unsent', reason: String(e) });
        return;
      }
      timer = setTimeout(() => {
        finish({ kind: 'failed', failure: `no complete answer within ${this.opts.deadlineMs} ms`, ms: Date.now() - t0 });
        stream.close(h2c.NGHTTP2_CANCEL);
      }, this.opts.deadlineMs);
      const chunks: Buffer[] = [];
      let status = 0;
      let resHeaders: Record<string, string | string[] | undefined> = {};
      let cut: NodeJS.Timeout | undefined;
      const answer = (cancelled: boolean): Outcome => ({ kind: 'answered', answer: { status, headers: resHeaders, body: Buffer.concat(chunks), ms: Date.now() - t0, cancelled } });
      stream.on('response', (h) => {
        status = Number(h[':status']);
        resHeaders = Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith(':'))) as Record<string, string | string[] | undefined>;
        if (watch && status === 200) {
          cut = setTimeout(() => {
            finish(answer(true));
            stream.close(h2c.NGHTTP2_CANCEL);
          }, this.opts.watchReadMs);
        }
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        clearTimeout(cut);
        if (status) finish(answer(false));
      });
      stream.on('error', (e) => finish({ kind: 'failed', failure: `stream error: ${e.message} (status ${status || 'none'})`, ms: Date.now() - t0 }));
      stream.on('close', () => {
        clearTimeout(cut);
        if (!status) finish({ kind: 'failed', failure: `stream closed without a response (RST code ${stream.rstCode})`, ms: Date.now() - t0 });
        else if (stream.rstCode && stream.rstCode !== h2c.NGHTTP2_NO_ERROR) finish({ kind: 'failed', failure: `stream reset (code ${stream.rstCode}) after status ${status}`, ms: Date.now() - t0 });
        else finish(answer(false));
      });
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  /** HTTP/1.1 written by hand (Connection: close): only the status line and headers are parsed. */
  private sendRaw(req: Sent): Promise<Outcome> {
    const t0 = Date.now();
    return new Promise((resolve) => {
      const body = req.body === undefined ? Buffer.alloc(0) : Buffer.from(req.body);
      const head = [`${req.method} ${req.path} HTTP/1.1`, 'host: localhost', 'connection: close', ...Object.entries(req.headers).map(([k, v]) => `${k}: ${v}`), ...(body.length ? [`content-length: ${body.length}`] : []), '', ''].join('\r\n');
      const chunks: Buffer[] = [];
      let done = false;
      const sock = tlsConnect({ host: '127.0.0.1', port: this.opts.port, ca: this.opts.ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => {
        sock.write(Buffer.concat([Buffer.from(head, 'utf8'), body]));
      });
      const finish = (o: Outcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        sock.destroy();
        resolve(o);
      };
      const timer = setTimeout(() => finish({ kind: 'failed', failure: `no answer within ${this.opts.deadlineMs} ms`, ms: Date.now() - t0 }), this.opts.deadlineMs);
      sock.on('data', (c: Buffer) => chunks.push(c));
      sock.on('error', () => undefined);
      sock.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const m = /^HTTP\/1\.1 (\d{3})[^\r\n]*\r\n/.exec(text);
        if (!m) return finish({ kind: 'failed', failure: `connection closed without a response (${JSON.stringify(text.slice(0, 80))})`, ms: Date.now() - t0 });
        const end = text.indexOf('\r\n\r\n');
        const headers: Record<string, string> = {};
        for (const line of text.slice(m[0].length, end < 0 ? undefined : end).split('\r\n')) {
          const i = line.indexOf(':');
          if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
        }
        finish({ kind: 'answered', answer: { status: Number(m[1]), headers, body: end < 0 ? Buffer.alloc(0) : Buffer.from(text.slice(end + 4), 'latin1'), ms: Date.now() - t0, cancelled: false } });
      });
    });
  }
}
