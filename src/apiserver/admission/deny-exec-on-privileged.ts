/**
 * DenyExecOnPrivileged (off by default; validating, CONNECT of pods/exec and pods/attach): the
 * legacy narrower form of DenyEscalatingExec (./deny-escalating-exec.ts), as established: only
 * `cannot exec into or attach to a privileged container` is checked; host namespaces are allowed.
 */
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';
import { denyExec } from './deny-escalating-exec.js';

export function denyExecOnPrivileged(pod: (namespace: string, name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return denyExec('DenyExecOnPrivileged', { hostNetwork: false, hostPID: false, hostIPC: false, privileged: true }, pod);
}
