/**
 * The default StorageClass `svc up` makes (as the established all-in-one clusters' addons do):
 * `standard`, provisioner `svc.io/simulated` (the binder's built-in simulated provisioner),
 * `storageclass.svc.io/is-default-class: "true"`, reclaim policy Delete, binding Immediate. Made
 * once: an existing `standard`, or any other default class, is left as it is (the user's choice
 * survives restarts).
 */
import { SIMULATED_PROVISIONER } from '../../controllers/persistentvolume/provisioners.js';
import type { StorageClass } from '../api/generated/kinds.js';
import { ANNOTATION_DEFAULT_STORAGE_CLASS } from '../api/well-known-labels.js';
import { isDefaultClass } from '../apiserver/admission/default-storage-class.js';
import { resources } from '../client/typed.js';
import { ApiError, type ApiClient } from '../client/types.js';

export const DEFAULT_STORAGE_CLASS_NAME = 'standard';

export async function ensureDefaultStorageClass(client: ApiClient): Promise<'created' | 'present'> {
  const existing = await client.list<StorageClass>(resources.storageclasses);
  if (existing.items.some((c) => c.metadata.name === DEFAULT_STORAGE_CLASS_NAME || isDefaultClass(c))) return 'present';
  try {
    await client.create<StorageClass>(resources.storageclasses, '', {
      apiVersion: 'storage.svc.io/v1',
      kind: 'StorageClass',
      metadata: { name: DEFAULT_STORAGE_CLASS_NAME, annotations: { [ANNOTATION_DEFAULT_STORAGE_CLASS]: 'true' } },
      provisioner: SIMULATED_PROVISIONER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'Immediate',
    });
    return 'created';
  } catch (e) {
    if (e instanceof ApiError && e.code === 409) return 'present';
    throw e;
  }
}
