/**
 * Watch cache size heuristics for the kinds that change most (the spec names replicationcontrollers,
 * endpoints, nodes, pods and services). The fixed defaults suit a cluster of ~20 nodes; with
 * `--target-ram-mb` the established server scales them by cluster size (RAM / 60 MB).
 */

/** Multipliers per 60 MB of target RAM, as the established heuristic has them. */
const PER_CLUSTER_UNIT: Record<string, number> = { pods: 50, endpoints: 10, nodes: 5, services: 5, replicationcontrollers: 5 };
const FLOOR = 100;

/** Defaults used by the kind definitions (target RAM unknown). */
export const HEURISTIC_WATCH_CACHE_SIZES = {
  pods: 1000,
  endpoints: 200,
  nodes: 100,
  services: 100,
  replicationcontrollers: 100,
} as const;

/** The heuristic size for a core resource given `--target-ram-mb`; undefined for kinds without one. */
export function watchCacheSizeForRam(plural: string, targetRamMB: number): number | undefined {
  const mult = PER_CLUSTER_UNIT[plural];
  if (mult === undefined) return undefined;
  const clusterSize = Math.floor(targetRamMB / 60);
  return Math.max(mult * clusterSize, FLOOR);
}
