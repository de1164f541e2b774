/**
 * `/debug/controllers/...` on a daemon that runs controllers (the controller manager's secure port,
 * `svc up`'s API server port): what each controller is doing to each object — the object's state
 * in the controller's lifecycle (./lifecycle.ts), since when, what holds it there and its last
 * transitions. What `svc explain` prints; the scheduler's "why pending" has the same shape.
 *
 *   GET /debug/controllers                                        the controllers running here: queue, lifecycle counts
 *   GET /debug/controllers/<controller>/objects                   its lifecycle: counts, entered states, the objects being worked on
 *   GET /debug/controllers/<controller>/objects/<namespace>/<name>  one object (a cluster-scoped one: .../objects/<name>;
 *                                                                  the garbage collector's: .../objects/<resource>/<namespace>/<name>)
 *
 * JSON only. A refusal is a Status: 404 for an unknown controller or an object it does not follow
 * (not reconciled since this process took the lead, deleted, or beyond the tracker's bound), 503
 * while no controller runs here (a follower of leader election, or caches still syncing).
 */
import { sendDebugJson as json, type DebugHttpResponse as Response } from '../api/debug-http.js';
import { statusObject, type StatusReason } from '../api/status.js';
import { ControllerActivity } from './controller-activity.js';
import type { DebugRequest } from './inspection/debug-machines-handler.js';
import type { MachineInspector } from './inspection/machine-inspector.js';

export const DEBUG_CONTROLLERS_PATH = '/debug/controllers';


const fail = (res: Response, code: number, reason: StatusReason, message: string) => json(res, code, statusObject('Failure', code, message, reason));

/** The controllers' activities the inspector sees, one per name (the newest, after a step-down and a new term). */
export function runningActivities(inspector: MachineInspector): Map<string, ControllerActivity> {
  const out = new Map<string, ControllerActivity>();
  for (const s of inspector.liveSources()) if (s instanceof ControllerActivity && !out.has(s.name)) out.set(s.name, s);
  return out;
}

export function debugControllersHandler(inspector: MachineInspector): (req: DebugRequest, res: Response) => boolean {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    const path = url.pathname;
    if (path !== DEBUG_CONTROLLERS_PATH && !path.startsWith(`${DEBUG_CONTROLLERS_PATH}/`)) return false;
    if (req.method !== undefined && req.method !== 'GET' && req.method !== 'HEAD') {
      fail(res, 405, 'MethodNotAllowed', `${req.method} is not allowed on ${path}; use GET`);
      return true;
    }
    let parts: string[];
    try {
      parts = path.slice(DEBUG_CONTROLLERS_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      fail(res, 400, 'BadRequest', `malformed path ${path}`);
      return true;
    }
    const running = runningActivities(inspector);
    if (parts.length === 0) {
      json(res, 200, {
        controllers: [...running.values()].map((a) => {
          const f = a.facts();
          return {
            name: a.name,
            queue: { depth: f.queue.depth, inFlight: f.queue.inFlight, delayed: f.queue.delayed },
            outcomes: f.outcomes,
            ...(f.lifecycle ? { lifecycle: { kind: f.lifecycle.kind, chart: f.lifecycle.chart, counts: f.lifecycle.counts } } : {}),
          };
        }),
      });
      return true;
    }
    const [name, objects, ...key] = parts;
    // Keys are `namespace/name` or `name`; the garbage collector's carry the resource first (`pods/ns/name`).
    if (objects !== 'objects' || key.length > 3) {
      fail(res, 404, 'NotFound', `${path} not found; try ${DEBUG_CONTROLLERS_PATH}, ${DEBUG_CONTROLLERS_PATH}/<controller>/objects or .../objects/<namespace>/<name>`);
      return true;
    }
    const activity = running.get(name!);
    if (!activity) {
      if (running.size === 0) fail(res, 503, 'ServiceUnavailable', 'no controller runs in this process now (not the leader, or its caches are still syncing)');
      else fail(res, 404, 'NotFound', `no controller "${name}" runs in this process; running: ${[...running.keys()].sort().join(', ')}`);
      return true;
    }
    const tracker = activity.lifecycle;
    if (!tracker) {
      fail(res, 404, 'NotFound', `the ${name} controller has no lifecycle to show per object (see /debug/machines for its queue and recent reconciles)`);
      return true;
    }
    if (key.length === 0) {
      json(res, 200, { controller: name, ...tracker.facts() });
      return true;
    }
    const objectKey = key.join('/');
    const found = tracker.object(objectKey);
    if (!found) {
      fail(
        res,
        404,
        'NotFound',
        `the ${name} controller follows no ${tracker.definition.kind} "${objectKey}": it has not reconciled it since this process took the lead, or it was deleted`,
      );
      return true;
    }
    json(res, 200, { controller: name, kind: tracker.definition.kind, chart: `lifecycle/${tracker.definition.controller}`, ...found });
    return true;
  };
}
