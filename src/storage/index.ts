export * from './types.js';
export { EmbeddedStore, openEmbeddedStore, prefixRangeEnd, type EmbeddedStoreOptions } from './embedded.js';
export { WatchCache, type CacheEvent, type WatchCacheOptions } from './watch-cache.js';
export { ObjectView } from './object-view.js';
export { EtcdStore, openEtcdStore, mapEtcdError, progressRequestsAreOrdered, type EtcdStoreOptions } from './etcd.js';
export { EtcdWatch, prefixRange, type WatchTimers } from './etcd-watch.js';
export { openStorage, validateServerUrl, overrideKey, StorageConfigError, type StorageProvider } from './open.js';
export {
  startCompactor,
  startCountPoller,
  type CompactorOptions,
  type CountPollerOptions,
  type Housekeeper,
  type HousekeepingTimers,
} from './compactor.js';
