/**
 * `/debug/cloud/...` on the port of a component that runs cloud controllers (the
 * cloud-controller-manager's secure port; the controller manager's and `svc up`'s when given a
 * cloud): what the cloud holds now, from the provider's optional `inspect()` (./provider.ts).
 * Authenticated and authorized by the component server like every other path on the port.
 *
 *   GET /debug/cloud                  the whole inspection: provider, facts, objects by kind
 *   GET /debug/cloud/objects          the kinds with their counts (`overview` first)
 *   GET /debug/cloud/objects/<kind>   `overview`: the cloud's facts and counts; else that kind's objects
 *
 * JSON only; 404 with a Status body for an unknown kind or path, 405 for a method other than GET,
 * 500 with a Status when the provider cannot be read (a malformed cloud file).
 *
 * cloudPanel() puts the kinds and their objects under one cloud controller's card of
 * /debug/machines/ui (the DetailPanel of src/runtime/inspection/debug-machines-page.ts, written
 * out here as a plain object: src/cloud does not depend on the runtime).
 */
import { statusObject } from '../api/status.js';
import { sendDebugJson as json, type DebugHttpRequest as Request, type DebugHttpResponse as Response } from '../api/debug-http.js';
import type { CloudInspection, CloudProvider } from './provider.js';


export const DEBUG_CLOUD_PATH = '/debug/cloud';
const OVERVIEW = 'overview';

/** The cloud controllers whose card carries the cloud panel, the first of them that runs. */
const PANEL_HOSTS = ['service', 'route', 'cloud-node-lifecycle', 'cloud-node'];

/**
 * The cloud panel on /debug/machines/ui, under the card of the first of the cloud controllers
 * that `running` names (the service controller's by default); undefined when none runs.
 */
export function cloudPanel(running: readonly string[]) {
  const actorId = PANEL_HOSTS.find((c) => running.includes(c));
  if (!actorId) return undefined;
  return {
    machineId: 'controller',
    actorId,
    title: 'The cloud: its instances, load balancers (ingress IP, listeners, targets), firewall rules, routes and injected failures',
    listPath: `${DEBUG_CLOUD_PATH}/objects`,
    listField: 'kinds',
    keyField: 'kind',
    itemPath: `${DEBUG_CLOUD_PATH}/objects/`,
  };
}


function counts(i: CloudInspection): Record<string, number> {
  return Object.fromEntries(Object.entries(i.objects).map(([k, v]) => [k, v.length]));
}

/** The component server's handler for `/debug/cloud...`; undefined when the provider offers no inspection. */
export function debugCloudHandler(cloud: CloudProvider): ((req: Request, res: Response) => Promise<boolean>) | undefined {
  const inspect = cloud.inspect?.bind(cloud);
  if (!inspect) return undefined;
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'https://localhost');
    if (url.pathname !== DEBUG_CLOUD_PATH && !url.pathname.startsWith(`${DEBUG_CLOUD_PATH}/`)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(res, 405, statusObject('Failure', 405, `${req.method ?? ''} is not allowed on ${url.pathname}; use GET`, 'MethodNotAllowed'));
      return true;
    }
    let seen: CloudInspection;
    try {
      seen = await inspect();
    } catch (e) {
      json(res, 500, statusObject('Failure', 500, `the cloud provider "${cloud.name}" could not be read: ${(e as Error).message}`, 'InternalError'));
      return true;
    }
    const rest = url.pathname.slice(DEBUG_CLOUD_PATH.length).split('/').filter(Boolean).map(decodeURIComponent);
    if (rest.length === 0) {
      json(res, 200, seen);
    } else if (rest[0] === 'objects' && rest.length === 1) {
      json(res, 200, { provider: seen.provider, kinds: [{ kind: OVERVIEW }, ...Object.entries(counts(seen)).map(([kind, count]) => ({ kind, count }))] });
    } else if (rest[0] === 'objects' && rest.length === 2 && rest[1] === OVERVIEW) {
      json(res, 200, { provider: seen.provider, ...seen.facts, ...counts(seen) });
    } else if (rest[0] === 'objects' && rest.length === 2 && Object.hasOwn(seen.objects, rest[1]!)) {
      const items = seen.objects[rest[1]!]!;
      json(res, 200, { kind: rest[1], count: items.length, items });
    } else if (rest[0] === 'objects' && rest.length === 2) {
      json(res, 404, statusObject('Failure', 404, `the cloud has no kind "${rest[1]}"; it has: ${[OVERVIEW, ...Object.keys(seen.objects)].join(', ')}`, 'NotFound'));
    } else {
      json(res, 404, statusObject('Failure', 404, `unknown path ${url.pathname}; try ${DEBUG_CLOUD_PATH}/objects/<kind>`, 'NotFound'));
    }
    return true;
  };
}

/**
 * What a component with `cloud` adds to its /debug: the cloud panel (under the first running cloud
 * controller's card, `running` being the controllers it runs) and the `/debug/cloud` handler; both
 * empty when the provider offers no inspection.
 */
export function cloudDebug(cloud: CloudProvider, running: readonly string[]) {
  const handler = debugCloudHandler(cloud);
  const panel = handler ? cloudPanel(running) : undefined;
  return { panels: panel ? [panel] : [], handlers: handler ? [handler] : [] };
}
