/**
 * Where dynamic allocation starts in a Service range (the established ServiceIPStaticSubrange and
 * ServiceNodePortStaticSubrange): offsets below the band start are left for users who pick their
 * own cluster IP or node port. The bitmap itself is src/api/net/bitmap.ts.
 */

/** Where dynamic cluster-IP allocation starts: min(max(16, size/16), 256) (established ServiceIPStaticSubrange). */
export function clusterIPBandStart(size: number): number {
  const offset = Math.min(Math.max(16, Math.floor(size / 16)), 256);
  return offset < size ? offset : 0;
}

/** Where dynamic node-port allocation starts: min(max(16, size/32), 128) (established ServiceNodePortStaticSubrange). */
export function nodePortBandStart(size: number): number {
  const offset = Math.min(Math.max(16, Math.floor(size / 32)), 128);
  return offset < size ? offset : 0;
}
