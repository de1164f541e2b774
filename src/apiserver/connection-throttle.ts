/**
 * --max-connection-bytes-per-sec: the answer of a long-running request (watch, pods/log, exec,
 * attach, portforward, and those proxied to extension servers) is written at most this many bytes
 * per second, as the established server throttles its long-running connections (a flow-rate
 * limited writer). On HTTP/1.1 that is the connection's rate; on HTTP/2 each long-running stream
 * has its own budget. Other requests are never throttled.
 *
 * How: a token bucket holding one second's worth, refilled continuously. A write the bucket
 * covers goes out at once; otherwise it waits in a queue, written in pieces as tokens come (at
 * least a tenth of a second's worth at a time), and `write` returns false, so the writers (which
 * honour backpressure: they wait for 'drain') stop producing. 'drain' is emitted once the queue is out and the connection
 * itself accepts more. `end` waits for the queue. Memory stays bounded by what the writers send
 * before they see `false`.
 */
import { EventEmitter } from 'node:events';
import type { Response } from './http.js';

/** `res`, with its writes limited to `bytesPerSecond`. */
export function throttledResponse(res: Response, bytesPerSecond: number, now: () => number = Date.now): Response {
  const events = new EventEmitter();
  const queue: Buffer[] = [];
  let tokens = bytesPerSecond;
  let last = now();
  let timer: NodeJS.Timeout | undefined;
  let ending: { chunk?: Buffer | string } | undefined;
  let innerBlocked = false;
  let waitingInner = false;

  const refill = () => {
    const t = now();
    tokens = Math.min(bytesPerSecond, tokens + ((t - last) / 1000) * bytesPerSecond);
    last = t;
  };
  /** The connection itself said no more: 'drain' is passed on once it drains (and the queue is out). */
  const waitInner = () => {
    if (waitingInner) return;
    waitingInner = true;
    (res as unknown as NodeJS.EventEmitter).once('drain', () => {
      waitingInner = false;
      innerBlocked = false;
      if (queue.length === 0 && !timer && !ending) events.emit('drain');
    });
  };
  const send = (b: Buffer) => {
    tokens -= b.length;
    if (!res.write(b)) {
      innerBlocked = true;
      waitInner();
    }
  };
  /** The smallest piece worth a write: a tenth of a second's worth, or what is left of the head. */
  const piece = () => Math.max(1, Math.min(queue[0]?.length ?? 1, Math.floor(bytesPerSecond / 10)));
  const schedule = () => {
    if (timer) return;
    refill();
    const missing = piece() - tokens;
    timer = setTimeout(flush, missing <= 0 ? 0 : Math.ceil((missing / bytesPerSecond) * 1000));
  };
  const flush = () => {
    timer = undefined;
    refill();
    while (queue.length && tokens >= piece()) {
      const head = queue[0]!;
      const n = Math.min(head.length, Math.floor(tokens));
      if (n === head.length) queue.shift();
      else queue[0] = head.subarray(n);
      send(n === head.length ? head : head.subarray(0, n));
    }
    if (queue.length) return schedule();
    if (ending) {
      const { chunk } = ending;
      ending = undefined;
      res.end(chunk);
      return;
    }
    // Still blocked by the connection: its 'drain' (waitInner) passes the word on.
    if (!innerBlocked) events.emit('drain');
  };
  res.on('close', () => clearTimeout(timer));

  const write = (chunk: Buffer | string): boolean => {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    refill();
    if (queue.length === 0 && tokens >= b.length && !timer) {
      send(b);
      return !innerBlocked;
    }
    queue.push(b);
    schedule();
    return false;
  };
  const end = (chunk?: Buffer | string): unknown => {
    if (queue.length === 0 && !timer) return res.end(chunk);
    ending = chunk === undefined ? {} : { chunk };
    return undefined;
  };
  const listen = (method: 'on' | 'once') => (event: string, listener: (...a: unknown[]) => void) => {
    if (event === 'drain') events[method]('drain', listener);
    else (res as unknown as NodeJS.EventEmitter)[method](event, listener);
    return proxy;
  };
  const proxy: Response = new Proxy(res, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === 'end') return end;
      if (prop === 'on') return listen('on');
      if (prop === 'once') return listen('once');
      if (prop === 'writableEnded') return ending !== undefined || target.writableEnded;
      // Read on the response itself (its getters and private state expect it as `this`).
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
    set(target, prop, value) {
      return Reflect.set(target, prop, value);
    },
  });
  return proxy;
}
