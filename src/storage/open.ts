/**
 * Opens the storage engines an API server uses, from its StorageConfig:
 * - no --kvstore-servers: the embedded engine in --data-dir;
 * - otherwise etcd v3 at those servers;
 * - --kvstore-servers-overrides sends single resources (`group/resource`, core group as `/pods`)
 *   to their own etcd servers. One client per distinct set of servers, shared by every resource
 *   that uses that set.
 */
import type { Logger } from 'pino';
import type { StorageConfig } from './config.js';
import { openEmbeddedStore } from './embedded.js';
import { openEtcdStore } from './etcd.js';
import type { KVStore } from './types.js';

export interface StorageProvider {
  /** The store holding `group/resource` (the core group is ''). */
  forResource(group: string, resource: string): KVStore;
  /** `embedded` or `etcd3`: the engine serving that resource (for logs and metrics). */
  engineFor(group: string, resource: string): string;
  /** Every distinct store, each once (compaction and health checks run per store). */
  stores(): KVStore[];
  /** Close every store (pending writes finish first). */
  close(): Promise<void>;
}

/** Thrown for bad --kvstore-servers / --kvstore-servers-overrides values. */
export class StorageConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StorageConfigError';
  }
}

/** Checks one storage server URL: `http(s)://host:port`, nothing else. Returns it normalised. */
export function validateServerUrl(raw: string, flag = '--kvstore-servers'): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new StorageConfigError(`${flag}: "${raw}" is not a URL; expected scheme://host:port, e.g. https://127.0.0.1:2379`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new StorageConfigError(`${flag}: "${raw}" has scheme "${url.protocol.replace(/:$/, '')}"; only http and https are supported`);
  }
  if (!url.hostname) throw new StorageConfigError(`${flag}: "${raw}" has no host`);
  // new URL() drops a port equal to the scheme default, so look at the text for an explicit one.
  const explicitPort = /^[a-z]+:\/\/(\[[^\]]+\]|[^/:?#]+):(\d+)(\/)?$/i.exec(value);
  if (!explicitPort) throw new StorageConfigError(`${flag}: "${raw}" needs an explicit port and no path, e.g. ${url.protocol}//${url.hostname}:2379`);
  const port = Number(explicitPort[2]);
  if (port < 1 || port > 65535) throw new StorageConfigError(`${flag}: "${raw}" has port ${port} outside 1-65535`);
  if (url.username || url.password) throw new StorageConfigError(`${flag}: "${raw}" must not carry credentials`);
  return `${url.protocol}//${explicitPort[1]}:${port}`;
}

/** `group/resource` key of an override; the core group is written `/pods`. */
export function overrideKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}

function validateOverrides(overrides: Record<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, servers] of Object.entries(overrides)) {
    const slash = key.indexOf('/');
    if (slash < 0 || key.indexOf('/', slash + 1) >= 0 || slash === key.length - 1) {
      throw new StorageConfigError(`--kvstore-servers-overrides: "${key}" must be group/resource (core group: /resource)`);
    }
    if (servers.length === 0) throw new StorageConfigError(`--kvstore-servers-overrides: "${key}" lists no servers`);
    out.set(key, servers.map((s) => validateServerUrl(s, '--kvstore-servers-overrides')));
  }
  return out;
}

const setKey = (servers: string[]): string => [...new Set(servers)].sort().join(',');

export async function openStorage(cfg: StorageConfig, logger: Logger): Promise<StorageProvider> {
  const defaults = cfg.servers.map((s) => validateServerUrl(s));
  const overrides = validateOverrides(cfg.serversOverrides);
  const bySet = new Map<string, KVStore>();
  const opened: KVStore[] = [];

  const etcdFor = async (servers: string[]): Promise<KVStore> => {
    const k = setKey(servers);
    const existing = bySet.get(k);
    if (existing) return existing;
    const store = await openEtcdStore({
      endpoints: [...new Set(servers)],
      caFile: cfg.caFile,
      certFile: cfg.certFile,
      keyFile: cfg.keyFile,
      logger: logger.child({ module: 'etcd', servers: k }),
    });
    bySet.set(k, store);
    opened.push(store);
    return store;
  };

  try {
    let fallback: KVStore;
    if (defaults.length === 0) {
      fallback = openEmbeddedStore({ dir: cfg.dataDir, fsync: cfg.dataDirFsync ?? true, logger: logger.child({ module: 'embedded-store' }) });
      opened.push(fallback);
    } else {
      fallback = await etcdFor(defaults);
    }
    const routed = new Map<string, KVStore>();
    for (const [key, servers] of overrides) routed.set(key, await etcdFor(servers));
    if (routed.size > 0) logger.info({ overrides: [...routed.keys()] }, 'storage overrides active');

    const forResource = (group: string, resource: string): KVStore => routed.get(overrideKey(group, resource)) ?? fallback;
    return {
      forResource,
      engineFor: (group, resource) => forResource(group, resource).engine,
      stores: () => [...opened],
      async close() {
        const results = await Promise.allSettled(opened.map((s) => s.close()));
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason;
      },
    };
  } catch (err) {
    await Promise.allSettled(opened.map((s) => s.close()));
    throw err;
  }
}
