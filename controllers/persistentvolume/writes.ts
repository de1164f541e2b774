/**
 * The binder's writes: each remembers what it wrote (./state.ts) so the next sync sees it before
 * the cache does; status writes are skipped when nothing changes. A 409 (someone else wrote
 * first) is thrown: the runtime retries the key with back-off, and the cache is fresher by then.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/api/generated/kinds.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import type { SyncParts } from './state.js';

export async function writeVolume(p: SyncParts, v: PersistentVolume): Promise<PersistentVolume> {
  const out = await p.client.update<PersistentVolume>(resources.persistentvolumes, '', v);
  p.state.wroteVolume(out.metadata.name ?? '', out);
  return out;
}

export async function setVolumePhase(p: SyncParts, v: PersistentVolume, phase: string, message = '', reason = ''): Promise<PersistentVolume> {
  const s = v.status ?? {};
  if (s.phase === phase && (s.message ?? '') === message && (s.reason ?? '') === reason) return v;
  const status: NonNullable<PersistentVolume['status']> = { ...s, phase };
  if (message) status.message = message;
  else delete status.message;
  if (reason) status.reason = reason;
  else delete status.reason;
  const out = await p.client.updateStatus<PersistentVolume>(resources.persistentvolumes, '', { ...v, status });
  p.state.wroteVolume(out.metadata.name ?? '', out);
  return out;
}

export async function writeClaim(p: SyncParts, c: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
  const out = await p.client.update<PersistentVolumeClaim>(resources.persistentvolumeclaims, c.metadata.namespace ?? '', c);
  p.state.wroteClaim(keyFor(out.metadata.namespace, out.metadata.name ?? ''), out);
  return out;
}

/**
 * The claim's phase, and with a volume its access modes and (only when the phase changes: a
 * difference may be intended after an expansion) its capacity, as established; without one both
 * are removed.
 */
export async function setClaimPhase(p: SyncParts, c: PersistentVolumeClaim, phase: string, volume: PersistentVolume | undefined): Promise<PersistentVolumeClaim> {
  const s = { ...(c.status ?? {}) };
  let dirty = s.phase !== phase;
  if (volume) {
    const modes = volume.spec?.accessModes ?? [];
    if (JSON.stringify(s.accessModes ?? []) !== JSON.stringify(modes)) {
      s.accessModes = [...modes];
      dirty = true;
    }
    if (s.phase !== phase && volume.spec?.capacity) s.capacity = { ...volume.spec.capacity };
  } else if (s.accessModes || s.capacity) {
    delete s.accessModes;
    delete s.capacity;
    dirty = true;
  }
  if (!dirty) return c;
  s.phase = phase;
  const out = await p.client.updateStatus<PersistentVolumeClaim>(resources.persistentvolumeclaims, c.metadata.namespace ?? '', { ...c, status: s });
  p.state.wroteClaim(keyFor(out.metadata.namespace, out.metadata.name ?? ''), out);
  return out;
}
