/**
 * DenyEscalatingExec (off by default; validating, CONNECT of pods/exec and pods/attach): refuses to
 * run a command in, or attach to, a pod that shares the node's network, process or IPC namespace
 * or has a privileged container, since a shell there is a shell on the node. Established
 * behaviour, kept (the checks in this order, each a 403 `pods "<name>" is forbidden: ...`):
 * `cannot exec into or attach to a container using host network`, `... using host pid`,
 * `... using host ipc`, `cannot exec into or attach to a privileged container` (any init,
 * regular or ephemeral container with `securityContext.privileged: true`). A pod that cannot be
 * read is refused too: `pods "<name>" is forbidden: pods "<name>" not found`.
 *
 * DenyExecOnPrivileged (./deny-exec-on-privileged.ts) is the same plugin with the privileged check
 * alone. svc's nodes run no containers, so exec and attach are answered 400 anyway
 * (../handlers/pod-remote-commands.ts); the CONNECT admission runs before that answer, so these
 * plugins refuse exactly the requests the established server refuses, with its message.
 */
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

export interface DenyExecChecks {
  hostNetwork: boolean;
  hostPID: boolean;
  hostIPC: boolean;
  privileged: boolean;
}

interface PodSpecView {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  containers?: { securityContext?: { privileged?: boolean } }[];
  initContainers?: { securityContext?: { privileged?: boolean } }[];
  ephemeralContainers?: { securityContext?: { privileged?: boolean } }[];
}

/** Any container privileged? (the established isPrivileged, over init, regular and ephemeral containers) */
export function hasPrivilegedContainer(spec: PodSpecView): boolean {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])].some((c) => c.securityContext?.privileged === true);
}

/** The plugin `name` with the given checks; `pod` reads the pod as stored. */
export function denyExec(name: string, checks: DenyExecChecks, pod: (namespace: string, name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return {
    name,
    sideEffects: 'None',
    handles: (a) => a.operation === 'CONNECT' && a.def.group === '' && a.def.plural === 'pods' && (a.subresource === 'exec' || a.subresource === 'attach'),
    async validate(a) {
      const p = await pod(a.namespace, a.name);
      if (!p) throw admissionForbidden(a, `pods "${a.name}" not found`);
      const spec = (p['spec'] ?? {}) as PodSpecView;
      if (checks.hostNetwork && spec.hostNetwork === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host network');
      if (checks.hostPID && spec.hostPID === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host pid');
      if (checks.hostIPC && spec.hostIPC === true) throw admissionForbidden(a, 'cannot exec into or attach to a container using host ipc');
      if (checks.privileged && hasPrivilegedContainer(spec)) throw admissionForbidden(a, 'cannot exec into or attach to a privileged container');
    },
  };
}

export function denyEscalatingExec(pod: (namespace: string, name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return denyExec('DenyEscalatingExec', { hostNetwork: true, hostPID: true, hostIPC: true, privileged: true }, pod);
}
