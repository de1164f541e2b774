/**
 * The pvc-protection controller: a claim in use by a pod is not removed until no pod uses it.
 *
 * - Watches: PersistentVolumeClaims. Triggers: Pods (the claims a pod names, so a pod that ends or
 *   goes queues the claims it held).
 * - Writes: the claim's `svc.io/pvc-protection` finalizer: added to a claim that lacks it (the
 *   StorageObjectInUseProtection admission plugin adds it at creation; this covers older claims),
 *   removed from a claim being deleted once no scheduled, unfinished pod of its namespace names it.
 * - Guarantees: before removing, the pods are listed from the server too (the cache may not show
 *   a pod created a moment ago), as established.
 */
import type { PersistentVolumeClaim, Pod } from '../../src/api/generated/kinds.js';
import { FINALIZER_PVC_PROTECTION } from '../../src/api/well-known-labels.js';
import { keyFor } from '../../src/client/object-keys.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

/** The claims a pod names. */
export function claimsOf(pod: Pod): string[] {
  return (pod.spec?.volumes ?? []).flatMap((v) => {
    const name = (v as { persistentVolumeClaim?: { claimName?: string } }).persistentVolumeClaim?.claimName;
    return name ? [name] : [];
  });
}

/** A pod holds its claims once scheduled (a node may be using them) and until it has finished. */
export function podUsesClaim(pod: Pod, claim: string): boolean {
  if (!pod.spec?.nodeName) return false;
  if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return false;
  return claimsOf(pod).includes(claim);
}

export function pvcProtectionController(): ControllerDefinition<PersistentVolumeClaim> {
  return defineController<PersistentVolumeClaim>({
    name: 'pvc-protection',
    watches: resources.persistentvolumeclaims,
    triggers: [{ resource: resources.pods, keysFor: (obj) => claimsOf(obj as Pod).map((c) => keyFor(obj.metadata.namespace, c)) }],
    permissions: [{ apiGroups: [''], resources: ['persistentvolumeclaims'], verbs: ['update'] }],
    async reconcile(_key, ctx) {
      const claim = ctx.object;
      if (!claim) return done();
      const finalizers = claim.metadata.finalizers ?? [];
      const has = finalizers.includes(FINALIZER_PVC_PROTECTION);
      const ns = claim.metadata.namespace ?? '';
      const name = claim.metadata.name ?? '';
      if (!claim.metadata.deletionTimestamp) {
        if (has) return done();
        await update(ctx.client, { ...claim, metadata: { ...claim.metadata, finalizers: [...finalizers, FINALIZER_PVC_PROTECTION] } });
        return done();
      }
      if (!has) return done();
      const cached = ctx.cacheOf<Pod>(resources.pods).list(ns);
      if (cached.some((p) => podUsesClaim(p, name))) return done();
      const live = await ctx.client.list<Pod>(resources.pods, { namespace: ns });
      if (live.items.some((p) => podUsesClaim(p, name))) return done();
      await update(ctx.client, { ...claim, metadata: { ...claim.metadata, finalizers: finalizers.filter((f) => f !== FINALIZER_PVC_PROTECTION) } });
      ctx.logger.info('claim no longer in use: protection finalizer removed');
      return done();
    },
  });
}

async function update(client: import('../../src/client/types.js').ApiClient, claim: PersistentVolumeClaim): Promise<void> {
  try {
    await client.update(resources.persistentvolumeclaims, claim.metadata.namespace ?? '', claim);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 404)) throw e;
  }
}
