/**
 * Template revisions of the workloads that keep them as ControllerRevisions (daemonset,
 * statefulset): the template hash (FNV-1a of the template, in safe characters, as the established
 * `pod-template-hash` / `controller-revision-hash`), the revision object for the current template
 * (`<owner>-<hash>`, owned by the workload, `revision` one above the highest so far; going back to
 * an older template renumbers its revision), and pruning beyond `revisionHistoryLimit`.
 */
import type { ControllerRevision, PodTemplateSpec } from '../../src/api/generated/kinds.js';
import { canonicalJson } from '../../src/api/json-walk.js';
import type { SvcObject } from '../../src/api/types.js';
import type { IndexedCache } from '../../src/client/informer-types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient, type ResourceRef } from '../../src/client/types.js';
import { controllerRefTo } from '../../src/runtime/owner-references.js';

export const LABEL_CONTROLLER_REVISION_HASH = 'controller-revision-hash';
const SAFE = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a (32 bit) of the template and the collision count, as safe characters. */
export function templateHash(template: PodTemplateSpec | undefined, collisionCount = 0): string {
  const text = canonicalJson(template ?? {}) + (collisionCount ? String(collisionCount) : '');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return [...String(h)].map((c) => SAFE[c.charCodeAt(0) % SAFE.length]).join('');
}

/** The owner's revisions from the cache, oldest revision first. */
export function revisionsOf(cache: IndexedCache<ControllerRevision>, owner: SvcObject): ControllerRevision[] {
  return cache
    .byIndex('owner', owner.metadata.uid ?? '')
    .filter((r) => !r.metadata.deletionTimestamp)
    .sort((a, b) => Number(a['revision'] ?? 0) - Number(b['revision'] ?? 0));
}

/**
 * The revision for `template`: the existing one of its hash (renumbered to the newest if it was
 * an older one), or a new one. Returns its name, number and hash.
 */
export async function currentRevision(
  client: ApiClient,
  owner: SvcObject,
  ownerRef: ResourceRef,
  template: PodTemplateSpec | undefined,
  existing: readonly ControllerRevision[],
): Promise<{ name: string; revision: number; hash: string }> {
  const ns = owner.metadata.namespace ?? '';
  const hash = templateHash(template);
  const name = `${owner.metadata.name}-${hash}`;
  const highest = existing.reduce((m, r) => Math.max(m, Number(r['revision'] ?? 0)), 0);
  const found = existing.find((r) => r.metadata.name === name);
  if (found) {
    const number = Number(found['revision'] ?? 0);
    if (number === highest) return { name, revision: number, hash };
    // An older template again: it becomes the newest revision.
    const next = highest + 1;
    await client.patch(resources.controllerrevisions, ns, name, 'merge', { revision: next });
    return { name, revision: next, hash };
  }
  const revision = highest + 1;
  const obj: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name, namespace: ns, labels: { ...(template?.metadata?.labels ?? {}), [LABEL_CONTROLLER_REVISION_HASH]: hash }, ownerReferences: [controllerRefTo(owner, ownerRef)] },
    data: { spec: { template: template ?? {} } },
    revision,
  } as ControllerRevision;
  try {
    await client.create(resources.controllerrevisions, ns, obj);
  } catch (e) {
    // Made already (the cache was behind): the same name is the same template.
    if (!(e instanceof ApiError && e.code === 409)) throw e;
  }
  return { name, revision, hash };
}

/** Deletes the oldest revisions not in `inUse`, keeping `limit` of them. */
export async function pruneRevisions(client: ApiClient, existing: readonly ControllerRevision[], inUse: ReadonlySet<string>, limit: number): Promise<void> {
  const spare = existing.filter((r) => !inUse.has(r.metadata.name ?? ''));
  for (const r of spare.slice(0, Math.max(0, spare.length - limit))) {
    await client.delete(resources.controllerrevisions, r.metadata.namespace ?? '', r.metadata.name ?? '').catch((e: unknown) => {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    });
  }
}
