/** Builds the lock named by `--leader-elect-resource-lock`. */
import type { ApiClient } from '../../client/types.js';
import { CONFIGMAPS, ENDPOINTS } from '../resource-refs.js';
import { AnnotationLock } from './annotation-lock.js';
import type { LockType } from './config.js';
import { LeaseLock } from './lease-lock.js';
import { MultiLock } from './multi-lock.js';
import type { ResourceLock } from './record.js';

export interface LockTarget {
  namespace: string;
  name: string;
  identity: string;
}

/** `endpointsleases` and `configmapsleases` write the old lock first, then the Lease of the same name. */
export function newResourceLock(type: LockType, client: ApiClient, t: LockTarget): ResourceLock {
  const lease = () => new LeaseLock(client, t.namespace, t.name, t.identity);
  const endpoints = () => new AnnotationLock(client, ENDPOINTS, t.namespace, t.name, t.identity);
  const configmaps = () => new AnnotationLock(client, CONFIGMAPS, t.namespace, t.name, t.identity);
  switch (type) {
    case 'leases':
      return lease();
    case 'endpoints':
      return endpoints();
    case 'configmaps':
      return configmaps();
    case 'endpointsleases':
      return new MultiLock(endpoints(), lease());
    case 'configmapsleases':
      return new MultiLock(configmaps(), lease());
  }
}
