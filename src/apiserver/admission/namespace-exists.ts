/**
 * NamespaceExists (off by default; validating, CREATE, UPDATE and DELETE of namespaced objects):
 * refuses a request in a namespace that does not exist with the established 404
 * `namespaces "<ns>" not found`. Unlike NamespaceLifecycle it does not look at a terminating
 * namespace. The cache is asked first and storage when it misses (a namespace created a moment
 * ago), as the established plugin does.
 */
import { notFound } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';

export function namespaceExists(lookupNamespace: (name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceExists',
    sideEffects: 'None',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE' || a.operation === 'DELETE') && a.def.namespaced && a.namespace !== '' && !(a.def.group === '' && a.def.kind === 'Namespace'),
    async validate(a) {
      if (!(await lookupNamespace(a.namespace))) throw notFound({ group: '', resource: 'namespaces', name: a.namespace });
    },
  };
}
