/** The ResourceRefs the runtime itself writes to: leader-election locks and Events. */
import type { ResourceRef } from '../client/types.js';

export const LEASES: ResourceRef = { group: 'coordination.svc.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true };
export const ENDPOINTS: ResourceRef = { group: '', version: 'v1', resource: 'endpoints', kind: 'Endpoints', namespaced: true };
export const CONFIGMAPS: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
export const EVENTS: ResourceRef = { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true };

/** `apiVersion` of objects of `ref`: one home, in the client. */
export { apiVersionOf } from '../client/client.js';
