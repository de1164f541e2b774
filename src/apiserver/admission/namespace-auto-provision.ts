/**
 * NamespaceAutoProvision (off by default; mutating, CREATE of namespaced objects): creating an
 * object in a namespace that does not exist creates the namespace first, instead of the 404
 * NamespaceLifecycle would answer. Established behaviour, kept: namespaces themselves and
 * cluster-scoped objects are left alone; a dry-run request creates nothing (so the plugin is
 * NoneOnDryRun); a namespace that appeared meanwhile (AlreadyExists) is fine; any other failure
 * refuses the request with 403 `<resource> "<name>" is forbidden: <failure>`.
 *
 * The namespace is written straight to storage with the server's defaults and validation (as
 * ./system-objects.ts writes the system namespaces); the established plugin sends it through
 * the server's loopback client, so admission plugins on namespaces (webhooks) do not see it here.
 */
import { StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import type { AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

export interface NamespaceProvisioning {
  /** The namespace as the cache has it, else as stored (undefined when absent). */
  namespace(name: string): Promise<SvcObject | undefined>;
  /** Creates the namespace (throws StatusError AlreadyExists when it exists). */
  create(name: string): Promise<void>;
}

export function namespaceAutoProvision(ns: NamespaceProvisioning): AdmissionPlugin {
  return {
    name: 'NamespaceAutoProvision',
    sideEffects: 'NoneOnDryRun',
    handles: (a) => a.operation === 'CREATE' && a.def.namespaced && a.namespace !== '' && !(a.def.group === '' && a.def.kind === 'Namespace'),
    async mutate(a) {
      if (a.dryRun) return;
      try {
        if (await ns.namespace(a.namespace)) return;
        await ns.create(a.namespace);
      } catch (err) {
        if (err instanceof StatusError && err.reason === 'AlreadyExists') return;
        throw admissionForbidden(a, err instanceof Error ? err.message : String(err));
      }
    },
  };
}
