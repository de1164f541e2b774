/** The engine-agnostic storage contract against the embedded engine (a fresh temp dir per test). */
import { rmSync } from 'node:fs';
import { openEmbeddedStore, type EmbeddedStore } from '../../src/storage/embedded.js';
import type { KVStore } from '../../src/storage/types.js';
import { runStorageContract } from './contract.js';
import { tempDir } from './embedded-fixture.js';

const dirs = new Map<KVStore, string>();
runStorageContract(
  'embedded',
  async () => {
    const dir = tempDir();
    const store: EmbeddedStore = openEmbeddedStore({ dir, progressIntervalMs: 20 });
    dirs.set(store, dir);
    return store;
  },
  async (s) => {
    await s.close();
    const dir = dirs.get(s);
    dirs.delete(s);
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
);
