/**
 * Emptying a namespace being deleted: every namespaced resource the server serves (built-in and
 * custom, found by discovery) is deleted as a collection (or object by object where the resource
 * has no deletecollection verb), then listed to see what remains: objects waiting out a grace
 * period (pods) or held by finalizers. The result says what remains and how long the wait is
 * likely to be, for the namespace's conditions and the next look.
 */
import type { SvcObject } from '../../src/api/types.js';
import { ApiError, type ApiClient, type DiscoveredResource } from '../../src/client/types.js';

export interface ContentResult {
  /** `<resource>.<group>` -> objects still there. */
  remaining: Map<string, number>;
  /** finalizer -> objects still holding it. */
  finalizers: Map<string, number>;
  /** Objects still there that hold at least one finalizer. */
  finalized: number;
  /** Longest grace period still running among the remaining objects (ms; 0 when none). */
  estimateMs: number;
  /** Resources that could not be deleted or listed, with the reason. */
  failures: string[];
}

/** The namespaced resources that can be listed and deleted. */
export function deletableResources(all: readonly DiscoveredResource[]): DiscoveredResource[] {
  return all.filter((r) => r.namespaced && r.verbs.includes('list') && (r.verbs.includes('deletecollection') || r.verbs.includes('delete')));
}

const label = (r: DiscoveredResource) => (r.group ? `${r.resource}.${r.group}` : r.resource);

export async function deleteContent(client: ApiClient, namespace: string, resources: readonly DiscoveredResource[], now: number): Promise<ContentResult> {
  const out: ContentResult = { remaining: new Map(), finalizers: new Map(), finalized: 0, estimateMs: 0, failures: [] };
  await Promise.all(
    resources.map(async (r) => {
      try {
        if (r.verbs.includes('deletecollection')) await client.deleteCollection(r, namespace);
        else {
          const list = await client.list(r, { namespace });
          for (const o of list.items) await client.delete(r, namespace, o.metadata.name ?? '').catch(ignoreGone);
        }
        const left = (await client.list<SvcObject>(r, { namespace })).items;
        if (!left.length) return;
        out.remaining.set(label(r), left.length);
        for (const o of left) {
          if (o.metadata.finalizers?.length) out.finalized++;
          for (const f of o.metadata.finalizers ?? []) out.finalizers.set(f, (out.finalizers.get(f) ?? 0) + 1);
          const until = o.metadata.deletionTimestamp ? Date.parse(o.metadata.deletionTimestamp) : NaN;
          if (Number.isFinite(until)) out.estimateMs = Math.max(out.estimateMs, until - now);
        }
      } catch (e) {
        // A resource gone since discovery (its CRD deleted) has nothing left to delete.
        if (e instanceof ApiError && e.code === 404) return;
        out.failures.push(`${label(r)}: ${(e as Error).message}`);
      }
    }),
  );
  return out;
}

function ignoreGone(e: unknown): undefined {
  if (e instanceof ApiError && e.code === 404) return undefined;
  throw e;
}

/** `example.com/keep in 1 resource instances, ...` (the established wording), sorted. */
export function describeFinalizers(m: ReadonlyMap<string, number>): string {
  return [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, n]) => `${f} in ${n} resource instances`).join(', ');
}

/** `a has 2 resource instances, b has 1 resource instances` (the established wording), sorted. */
export function describeCounts(m: ReadonlyMap<string, number>): string {
  return [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${k} has ${n} resource instances`).join(', ');
}
