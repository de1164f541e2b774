/**
 * --request-timeout for non-watch requests: one sweeping timer for all requests instead of a
 * timer per request (creating and clearing a timer per request showed up in GET profiles).
 * A request still running at its deadline gets 504 Timeout and its `onExpire` runs (the server
 * gives back its in-flight slot there, whatever the handler is still waiting for); the handler's
 * later writes are dropped.
 */
import { timeout } from '../api/status.js';
import { type Response, writeStatus } from './http.js';

interface Entry {
  deadline: number;
  res: Response;
  onExpire: (() => void) | undefined;
}

export class RequestDeadlines {
  private readonly open = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    /** How often deadlines are checked; a request may run up to this much past its deadline. */
    private readonly resolutionMs = Math.max(10, Math.min(250, Math.floor(timeoutMs / 4))),
  ) {}

  /** Tracks a request; call the returned function when it is done. */
  track(res: Response, onExpire?: () => void): () => void {
    const entry: Entry = { deadline: Date.now() + this.timeoutMs, res, onExpire };
    this.open.add(entry);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), this.resolutionMs);
      this.timer.unref();
    }
    return () => {
      this.open.delete(entry);
    };
  }

  private sweep(): void {
    const now = Date.now();
    for (const e of this.open) {
      if (e.deadline > now) continue;
      this.open.delete(e);
      writeStatus(e.res, timeout('Timeout: request did not complete within the allotted timeout', 0));
      e.onExpire?.();
    }
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
