export * from './types.js';
export { EmbeddedStore, openEmbeddedStore, prefixRangeEnd, type EmbeddedStoreOptions } from './embedded.js';
export { WatchCache, type CachedObject, type CacheEvent, type WatchCacheOptions } from './watch-cache.js';
