/**
 * pods/<name>/exec, /attach and /portforward (GET and POST, upgrade requests included): svc's
 * nodes are simulated and run no process, so there is nothing to run a command in, attach to or
 * forward a port to. Rather than a bare 404, each answers 400 BadRequest with a Status that says
 * why (kubectl shows it as `Error from server (BadRequest): ...`), after the checks the
 * established server makes first (the pod exists: 404 otherwise). The upgrade is never accepted:
 * the answer is an ordinary response on the same connection, which clients read as a failed
 * upgrade and report with the Status in its body.
 *
 * Before the pod is read, the request passes admission as a CONNECT (mutating, then validating),
 * as the established connect handler does, with the options object the query describes
 * (PodExecOptions, PodAttachOptions, PodPortForwardOptions): DenyEscalatingExec and
 * DenyExecOnPrivileged refuse exec and attach into privileged or host-namespace pods there, with
 * their own 403, ahead of this server's 400.
 */
import { admissionFieldsOf } from './admission-request.js';
import { badRequest, StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import type { RequestScope } from '../scope.js';

const WHAT: Record<string, string> = {
  exec: 'run a command in',
  attach: 'attach to',
  portforward: 'forward a port to',
};

export async function refuseRemoteCommand(s: RequestScope): Promise<void> {
  if (s.info.verb !== 'get' && s.info.verb !== 'create') {
    throw new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource: only GET and POST are supported on pods/${s.info.subresource}`);
  }
  const attrs = { operation: 'CONNECT' as const, def: s.def, namespace: s.info.namespace, name: s.info.name, subresource: s.info.subresource, object: connectOptions(s), dryRun: false, ...admissionFieldsOf(s) };
  await s.services.admission.mutate(attrs);
  await s.services.admission.validate(attrs);
  const pod = (await s.store.get(s.info.namespace, s.info.name)).object;
  const node = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  const where = node ? `its node ${node} is` : 'the nodes of this cluster are';
  throw badRequest(
    `cannot ${WHAT[s.info.subresource] ?? s.info.subresource} pod ${s.info.name}: ${where} simulated (svc runs no containers), so exec, attach and port-forward are not available; kubectl logs shows the simulated output`,
  );
}

const OPTION_KINDS: Record<string, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' };

/** The connect options object of the request (query parameters as the established options carry them). */
function connectOptions(s: RequestScope): SvcObject {
  const q = s.query;
  const flag = (k: string) => (q.has(k) ? { [k]: q.get(k) === 'true' || q.get(k) === '1' } : {});
  const kind = OPTION_KINDS[s.info.subresource] ?? 'PodExecOptions';
  if (kind === 'PodPortForwardOptions') return { kind, apiVersion: 'v1', metadata: {}, ...(q.has('ports') ? { ports: q.getAll('ports').map(Number) } : {}) };
  return {
    kind,
    apiVersion: 'v1',
    metadata: {},
    ...flag('stdin'),
    ...flag('stdout'),
    ...flag('stderr'),
    ...flag('tty'),
    ...(q.has('container') ? { container: q.get('container') } : {}),
    ...(kind === 'PodExecOptions' && q.has('command') ? { command: q.getAll('command') } : {}),
  };
}
