/**
 * NamespaceLifecycle: objects may only be created in a namespace that exists and is not being
 * deleted, and the system namespaces cannot be deleted.
 */
import { forbidden, notFound } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';

/** Namespaces the server refuses to delete (they are recreated at start anyway). */
export const IMMORTAL_NAMESPACES = new Set(['default', 'svc-system', 'svc-public']);

export function namespaceLifecycle(lookupNamespace: (name: string) => Promise<SvcObject | undefined>): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    sideEffects: 'None',
    handles: (a) => (a.def.namespaced && a.operation === 'CREATE' && a.subresource === '') || (a.def.plural === 'namespaces' && a.def.group === '' && a.operation === 'DELETE'),
    async validate(a) {
      if (a.def.plural === 'namespaces' && a.def.group === '') {
        if (IMMORTAL_NAMESPACES.has(a.name)) {
          throw forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, {
            group: '',
            resource: 'namespaces',
            name: a.name,
          });
        }
        return;
      }
      const ns = await lookupNamespace(a.namespace);
      if (!ns) throw notFound({ group: '', resource: 'namespaces', name: a.namespace });
      if (ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
        throw forbidden(
          `${a.def.plural} "${a.object?.metadata.name ?? a.object?.metadata.generateName ?? ''}" is forbidden: unable to create new content in namespace ${a.namespace} because it is being terminated`,
          { group: a.def.group, resource: a.def.plural, name: a.object?.metadata.name },
        );
      }
    },
  };
}
