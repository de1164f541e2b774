/**
 * ImageLocality (score): prefers nodes that already have the pod's images, weighted by image size
 * and scaled by how many nodes have the image (an image on every node says little), as
 * established: the sum is clamped to [23 MB, 1000 MB x containers] and mapped onto 0-100.
 * Image names are normalised (`nginx` -> `nginx:latest`).
 */
import type { Plugin, ScorePlugin } from '../../framework/interfaces.js';
import { MAX_NODE_SCORE } from '../../framework/interfaces.js';
import type { NodeInfo } from '../../framework/node-info.js';
import { FLAG_HAS_IMAGES, rowOf } from '../../framework/node-table.js';
import type { PodInfo } from '../../framework/pod-info.js';
import type { Snapshot } from '../../framework/snapshot.js';

export const name = 'ImageLocality';
const MB = 1024 * 1024;
export const MIN_THRESHOLD = 23 * MB;
export const MAX_CONTAINER_THRESHOLD = 1000 * MB;

/** Appends `:latest` when the image names no tag or digest. */
export function normalizedImageName(image: string): string {
  if (image.includes('@')) return image;
  const lastSlash = image.lastIndexOf('/');
  return image.slice(lastSlash + 1).includes(':') ? image : `${image}:latest`;
}

/** A pod's container images as written and normalised, worked out once per pod (not per node). */
const imagesOf = new WeakMap<PodInfo, { containers: number; images: { raw: string; normalized: string }[] }>();

function podImages(pod: PodInfo): { containers: number; images: { raw: string; normalized: string }[] } {
  let v = imagesOf.get(pod);
  if (!v) {
    const containers = pod.pod.spec?.containers ?? [];
    v = { containers: containers.length, images: containers.filter((c) => c.image).map((c) => ({ raw: c.image!, normalized: normalizedImageName(c.image!) })) };
    imagesOf.set(pod, v);
  }
  return v;
}

export function score(pod: PodInfo, node: NodeInfo, snapshot: Pick<Snapshot, 'imageNodeCounts' | 'size'>): number {
  // No images on the node: the sum is 0, below the threshold, so the score is 0.
  if (node.images.size === 0) return 0;
  const { containers, images } = podImages(pod);
  if (containers === 0 || snapshot.size === 0) return 0;
  let sum = 0;
  for (const { raw, normalized } of images) {
    const size = node.images.get(normalized) ?? node.images.get(raw);
    if (size === undefined) continue;
    const spread = (snapshot.imageNodeCounts.get(normalized) ?? snapshot.imageNodeCounts.get(raw) ?? 1) / snapshot.size;
    sum += Math.floor(size * spread);
  }
  const max = MAX_CONTAINER_THRESHOLD * containers;
  const clamped = Math.min(Math.max(sum, MIN_THRESHOLD), max);
  return Math.floor((MAX_NODE_SCORE * (clamped - MIN_THRESHOLD)) / (max - MIN_THRESHOLD));
}

export function factory(_args: Readonly<Record<string, unknown>>, handle: { snapshot(): Snapshot }): Plugin {
  const plugin: ScorePlugin = {
    name,
    // Most nodes have none of the pod's images; the row says whether a node has any image at all.
    score: (s, pod, node) => {
      const row = rowOf(s, node);
      return row >= 0 && (s.table!.flags(row) & FLAG_HAS_IMAGES) === 0 ? 0 : score(pod, node, handle.snapshot());
    },
  };
  return plugin;
}
