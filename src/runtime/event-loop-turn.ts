/**
 * Giving the event loop a turn during long runs of work.
 *
 * Work that only awaits promises already settled (a reconcile answered from the informer caches, a
 * scheduling cycle) runs in microtasks: the event loop never gets back to its timers or to I/O until
 * the whole run is over. A burst of a thousand such reconciles therefore holds back the leader
 * election's renewal timer, the watch streams and every request's answer. `yieldIfBusy()` returns
 * a promise to await once the current run has gone on for `BUSY_BUDGET_MS` without a turn of the
 * event loop (timers, then I/O, run before it resolves, on `setImmediate`), and `undefined`
 * otherwise, so a loop that calls it costs nothing while it is within the budget:
 *
 *   const turn = yieldIfBusy();
 *   if (turn) await turn;
 *
 * The budget is per process, not per loop: ten workers each within their own budget would still
 * hold the loop ten times as long. A run starts at the first call after a turn, which is close to
 * when the work began (every loop calls it between items).
 */

/** How long a run of work may go on before it gives the event loop a turn. */
export const BUSY_BUDGET_MS = 8;

/** When the current run without an event-loop turn began (undefined: a turn has come since). */
let runStartedAt: number | undefined;

export function yieldIfBusy(): Promise<void> | undefined {
  const now = performance.now();
  if (runStartedAt === undefined) {
    runStartedAt = now;
    // Runs at the next turn (before any turn awaited below: setImmediate keeps its order).
    setImmediate(() => {
      runStartedAt = undefined;
    });
    return undefined;
  }
  if (now - runStartedAt < BUSY_BUDGET_MS) return undefined;
  return new Promise<void>((resolve) => setImmediate(resolve));
}
