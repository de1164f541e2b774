/**
 * How timely a leader's renewals are, and how late this process's event loop runs: the live facts
 * of the leader-election actor (/debug/machines) and what the warning of a late renewal says.
 *
 * A renewal is due one retry period after the last success; it is "late" when its timer fired
 * later than that by more than `LATE_RENEWAL_MS` (the event loop was busy) or when the attempt
 * itself took that long (the API server or the connection was slow). Either way the log line
 * carries the event-loop delay measured since the last renewal (perf_hooks'
 * monitorEventLoopDelay, one histogram per process), so an operator can tell a starved process
 * from a slow server. /metrics has the same measurement as prom-client's
 * `nodejs_eventloop_lag_*` gauges (collectDefaultMetrics).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { LIVE_FACTS, type LiveFactsSource, type LiveFactsValue } from '../inspection/live-facts.js';

/** A renewal that fires or takes longer than this past its due time is logged as late. */
export const LATE_RENEWAL_MS = 1_000;

let histogram: IntervalHistogram | undefined;

/** The process-wide event-loop delay histogram (10 ms resolution), started on first use. */
function loopDelay(): IntervalHistogram {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
  }
  return histogram;
}

export interface EventLoopLag {
  /** Largest delay seen since the last reset, in ms. */
  maxMs: number;
  p99Ms: number;
  meanMs: number;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

/** The event-loop delay since the last `resetEventLoopLag()` (the histogram counts its resolution too). */
export function eventLoopLag(): EventLoopLag {
  const h = loopDelay();
  if (h.count === 0) return { maxMs: 0, p99Ms: 0, meanMs: 0 };
  return { maxMs: ms(h.max), p99Ms: ms(h.percentile(99)), meanMs: ms(h.mean) };
}

export class RenewalTiming implements LiveFactsSource {
  /** Local time of the last successful acquire or renew (0 before the first). */
  lastRenewalAt = 0;
  /** How late the last renewal's timer fired, in ms. */
  lastTimerLateMs = 0;
  /** How long the last acquire/renew attempt took, in ms. */
  lastAttemptMs = 0;
  lateRenewals = 0;
  maxLateMs = 0;
  /** Times leadership was lost while the process lived on (stepped down and rejoined). */
  steppedDown = 0;
  private lagAtLastRenewal: EventLoopLag = { maxMs: 0, p99Ms: 0, meanMs: 0 };
  private lagAtAttemptEnd: EventLoopLag = { maxMs: 0, p99Ms: 0, meanMs: 0 };

  constructor() {
    loopDelay();
  }

  /** The renewal timer fired `lateMs` past its due time. */
  timerFired(lateMs: number): void {
    this.lastTimerLateMs = Math.max(0, Math.round(lateMs));
  }

  /**
   * An attempt ended after `tookMs`; on success `at` is the renewal's time. Returns the lateness
   * worth a warning (timer lateness plus attempt time beyond the budget), or undefined.
   */
  attemptEnded(tookMs: number, succeededAt: number | undefined): number | undefined {
    this.lastAttemptMs = Math.round(tookMs);
    const late = this.lastTimerLateMs + this.lastAttemptMs;
    // Read before a success resets the histogram: the warning reports the delay this renewal met.
    this.lagAtAttemptEnd = eventLoopLag();
    if (succeededAt !== undefined) {
      this.lastRenewalAt = succeededAt;
      this.lagAtLastRenewal = this.lagAtAttemptEnd;
      loopDelay().reset();
    }
    if (late < LATE_RENEWAL_MS) return undefined;
    this.lateRenewals++;
    this.maxLateMs = Math.max(this.maxLateMs, late);
    return late;
  }

  /** The event-loop delay from the renewal before the last attempt to that attempt's end (for the late-renewal warning). */
  lagSinceLastRenewal(): EventLoopLag {
    return this.lagAtAttemptEnd;
  }

  [LIVE_FACTS](): { [key: string]: LiveFactsValue } {
    const now = eventLoopLag();
    return {
      lastRenewalAt: this.lastRenewalAt ? new Date(this.lastRenewalAt).toISOString() : null,
      lastTimerLateMs: this.lastTimerLateMs,
      lastAttemptMs: this.lastAttemptMs,
      lateRenewals: this.lateRenewals,
      maxLateMs: this.maxLateMs,
      steppedDown: this.steppedDown,
      eventLoopLagMaxMs: Math.max(now.maxMs, this.lagAtLastRenewal.maxMs),
      eventLoopLagP99Ms: Math.max(now.p99Ms, this.lagAtLastRenewal.p99Ms),
    };
  }
}
