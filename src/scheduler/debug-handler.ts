/**
 * `/debug/scheduler/...` on the scheduler's port (and on `svc up`'s): why a pod is pending.
 *
 *   GET /debug/scheduler/pods                      pending pods' last attempts (newest first, no node detail)
 *   GET /debug/scheduler/pods/<namespace>/<name>   the pod's last attempt: every refused node grouped
 *                                                  by plugin and reason, the best nodes' scores
 *   GET /debug/scheduler/queue                     queue lengths and counters
 *
 * JSON only; 404 with a Status body for an unknown pod (it may never have been
 * attempted, or finished long ago and left the recent ring).
 */
import { statusObject } from '../api/status.js';
import { sendDebugJson as json, type DebugHttpRequest as Request, type DebugHttpResponse as Response } from '../api/debug-http.js';
import type { DetailPanel } from '../runtime/inspection/debug-machines-page.js';
import type { Scheduler } from './scheduler.js';


export const DEBUG_SCHEDULER_PREFIX = '/debug/scheduler/';

/** The pending-pod panel under the scheduler machine's card in /debug/machines/ui. */
export const PENDING_PODS_PANEL: DetailPanel = {
  machineId: 'scheduler',
  title: 'Why is my pod pending: the last attempt of a pod (refusing plugins per node, best scores)',
  listPath: `${DEBUG_SCHEDULER_PREFIX}pods`,
  listField: 'pending',
  keyField: 'pod',
  itemPath: `${DEBUG_SCHEDULER_PREFIX}pods/`,
};


/** A handler for the component server: answers `/debug/scheduler/...`, leaves other paths. */
export function debugSchedulerHandler(scheduler: () => Scheduler | undefined): (req: Request, res: Response) => Promise<boolean> {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    if (!url.pathname.startsWith(DEBUG_SCHEDULER_PREFIX)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, statusObject('Failure', 405, 'only GET is supported', 'MethodNotAllowed'));
      return true;
    }
    const s = scheduler();
    if (!s) {
      json(res, 503, statusObject('Failure', 503, 'the scheduler is not running (not the leader, or still syncing)', 'ServiceUnavailable'));
      return true;
    }
    const rest = url.pathname.slice(DEBUG_SCHEDULER_PREFIX.length).split('/').filter(Boolean).map(decodeURIComponent);
    if (rest[0] === 'queue' && rest.length === 1) {
      json(res, 200, { queue: s.queue.lengths(), counters: s.counters, nominated: s.nominator.size, cachedNodes: s.cache.nodeCount, cachedPods: s.cache.podCount });
      return true;
    }
    if (rest[0] === 'pods' && rest.length === 1) {
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 200) || 200, 10_000);
      json(res, 200, { pending: s.explanations.summaries(limit), recent: s.explanations.recentAttempts().map(({ filtered: _f, scores: _s, ...a }) => a) });
      return true;
    }
    if (rest[0] === 'pods' && rest.length === 3) {
      const key = `${rest[1]}/${rest[2]}`;
      const a = s.explanations.get(key);
      if (!a) {
        json(res, 404, statusObject('Failure', 404, `no scheduling attempt recorded for pod ${key} (not attempted yet, not for this scheduler, or finished too long ago)`, 'NotFound'));
        return true;
      }
      json(res, 200, a);
      return true;
    }
    json(res, 404, statusObject('Failure', 404, `unknown path ${url.pathname}; try /debug/scheduler/pods/<namespace>/<name>`, 'NotFound'));
    return true;
  };
}
