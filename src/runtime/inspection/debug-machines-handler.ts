/**
 * `/debug/machines` over plain Node HTTP (HTTP/1.1 or the HTTP/2 compatibility API), for any
 * listener a component already has:
 *
 *   GET /debug/machines                    JSON: MachinesSnapshot (the actor tree, states, context, transitions)
 *   GET /debug/machines/ui                 a self-contained HTML page drawing every machine, current state highlighted
 *   GET /debug/machines/events             server-sent events: `snapshot` once, then `actor` / `removed` per change,
 *                                          and `live` (an actor's live facts) about once a second when they changed
 *   GET /debug/machines/charts/<id>.svg    the chart of a machine seen by the inspector, or of a controller
 *                                          (`controller/<name>`, from its definition; rendered locally)
 *   GET /debug/machines/access/...         with `access`: who may do what (./access-panel.ts), the page's access panel
 *
 * `debugMachinesHandler(inspector)` returns `(req, res) => boolean`: true when it took the request.
 */
import { accessPanelHandler, type AccessPanelOptions } from './access-panel.js';
import { chartModel } from './chart-model.js';
import { toSvg } from './chart-svg.js';
import { debugMachinesPage, type DetailPanel } from './debug-machines-page.js';
import type { InspectorUpdate, MachineInspector } from './machine-inspector.js';

/** What the handler reads of a request (node's http and http2 requests both fit). */
export interface DebugRequest {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
}

/** What the handler uses of a response (node's http and http2 compatibility responses both fit). */
export interface DebugResponse {
  writeHead(code: number, headers?: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(chunk?: string): unknown;
  on(event: 'close', listener: () => void): unknown;
}

export type DebugMachinesHandler = (req: DebugRequest, res: DebugResponse) => boolean;

export const DEBUG_MACHINES_PATH = '/debug/machines';

/** How often the event stream sends a comment so proxies and idle timers keep it open. */
const HEARTBEAT_MS = 15_000;
/** How often live facts (queues, recent reconciles) are looked at and sent when they changed. */
const DEFAULT_LIVE_REFRESH_MS = 1_000;

const PAGE_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

function send(res: DebugResponse, status: number, contentType: string, body: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...extra });
  res.end(body);
}

function sendError(res: DebugResponse, status: number, message: string): void {
  send(res, status, 'application/json', `${JSON.stringify({ status: 'Failure', code: status, message })}\n`);
}

function sse(res: DebugResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export interface DebugMachinesOptions {
  /** Detail panels under machines' cards (e.g. the scheduler's pending-pod explanations). */
  panels?: readonly DetailPanel[];
  /** How often the event stream sends changed live facts; default 1 s. */
  liveRefreshMs?: number;
  /** The access panel (access matrix and who-can, asked of the API server with the daemon's client); absent: no panel. */
  access?: AccessPanelOptions;
}

export function debugMachinesHandler(inspector: MachineInspector, options: DebugMachinesOptions = {}): DebugMachinesHandler {
  const charts = new Map<string, Promise<string>>();
  const chartSvg = (machineId: string): Promise<string> | undefined => {
    let svg = charts.get(machineId);
    if (svg) return svg;
    const machine = inspector.machine(machineId);
    // A machine's chart, or one an actor offers (a controller's own, drawn from its definition).
    const model = machine ? chartModel(machine) : inspector.liveChart(machineId);
    if (!model) return undefined;
    svg = toSvg(model);
    charts.set(machineId, svg);
    return svg;
  };

  const access = options.access ? accessPanelHandler(options.access) : undefined;

  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path !== DEBUG_MACHINES_PATH && !path.startsWith(`${DEBUG_MACHINES_PATH}/`)) return false;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      sendError(res, 405, `${method} is not allowed on ${path}; use GET`);
      return true;
    }
    const rest = path.slice(DEBUG_MACHINES_PATH.length);
    if (access?.(req, res, rest, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)))) return true;
    if (rest === '' || rest === '/') {
      send(res, 200, 'application/json', `${JSON.stringify(inspector.snapshot(), null, 2)}\n`);
    } else if (rest === '/ui') {
      send(res, 200, 'text/html; charset=utf-8', debugMachinesPage(undefined, options.panels, Boolean(access), inspector.snapshot()), { 'content-security-policy': PAGE_CSP });
    } else if (rest === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
      res.write('retry: 2000\n\n');
      sse(res, 'snapshot', inspector.snapshot());
      const unsubscribe = inspector.subscribe((u: InspectorUpdate) => sse(res, u.type, u));
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      // Live facts change without transitions (a key reconciled): send them when they differ.
      const lastSent = new Map<string, string>();
      const live = setInterval(() => {
        const seen = new Set<string>();
        for (const { sessionId, live: facts } of inspector.liveFacts()) {
          seen.add(sessionId);
          const body = JSON.stringify({ type: 'live', sessionId, live: facts });
          if (lastSent.get(sessionId) === body) continue;
          lastSent.set(sessionId, body);
          res.write(`event: live\ndata: ${body}\n\n`);
        }
        for (const id of lastSent.keys()) if (!seen.has(id)) lastSent.delete(id);
      }, Math.max(50, options.liveRefreshMs ?? DEFAULT_LIVE_REFRESH_MS));
      live.unref();
      res.on('close', () => {
        clearInterval(heartbeat);
        clearInterval(live);
        unsubscribe();
      });
    } else if (rest.startsWith('/charts/') && rest.endsWith('.svg')) {
      let machineId: string;
      try {
        machineId = decodeURIComponent(rest.slice('/charts/'.length, -'.svg'.length));
      } catch {
        sendError(res, 400, `malformed machine id in ${path}`);
        return true;
      }
      const svg = chartSvg(machineId);
      if (!svg) {
        sendError(res, 404, `no machine "${machineId}" has been seen by this inspector`);
        return true;
      }
      svg.then(
        (body) => send(res, 200, 'image/svg+xml', body),
        (err: unknown) => sendError(res, 500, err instanceof Error ? err.message : String(err)),
      );
    } else {
      sendError(res, 404, `${path} not found; try ${DEBUG_MACHINES_PATH}, ${DEBUG_MACHINES_PATH}/ui or ${DEBUG_MACHINES_PATH}/events`);
    }
    return true;
  };
}
