/** Public API of src/client: the API client, its HTTP transport and configuration, and informers. */
// The object shapes every client call takes and returns.
export type { ObjectMeta, OwnerReference, SvcList, SvcObject } from '../api/types.js';
export * from './types.js';
export * from './informer-types.js';
export { keyFor, splitKey, type KeyParts, type ObjectKey } from './object-keys.js';
export * from './clock.js';
export * from './token-bucket.js';
export * from './body-codecs.js';
export * from './api-errors.js';
export * from './svcconfig.js';
export * from './file-token-source.js';
export * from './http-transport.js';
export * from './client.js';
export * from './typed.js';
export * from './connect.js';
export * from './indexed-cache.js';
export * from './reflector.js';
export * from './shared-informer.js';
export * from './informer-factory.js';
export * from './impersonation.js';
