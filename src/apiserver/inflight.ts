/**
 * --max-requests-inflight / --max-mutating-requests-inflight: a counter per kind of request; a
 * request over the limit gets 429 with Retry-After at once. Long-running requests (watches) are
 * not counted, as in the established server. 0 means no limit.
 */
import { tooManyRequests } from '../api/status.js';

export type RequestKind = 'readOnly' | 'mutating';

export class InflightLimiter {
  private readonly current: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  constructor(private readonly limits: Record<RequestKind, number>) {}

  /** Takes a slot or throws 429; the returned function gives the slot back (call it once). */
  acquire(kind: RequestKind): () => void {
    const limit = this.limits[kind];
    if (limit > 0 && this.current[kind] >= limit) {
      throw tooManyRequests('Too many requests, please try again later.', 1);
    }
    this.current[kind]++;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.current[kind]--;
      }
    };
  }

  inUse(kind: RequestKind): number {
    return this.current[kind];
  }
}
