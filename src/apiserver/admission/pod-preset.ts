/**
 * PodPreset (selectable, mutating): a pod being created gets what the PodPresets of its namespace
 * whose `spec.selector` matches its labels inject, as the established plugin does:
 *
 * - env, envFrom and volumeMounts into every container and init container, volumes into the pod;
 *   entries the pod already has (same name, or same mount path) stay as they are;
 * - an entry with the same env name, volume name, mount name or mount path as one already there but
 *   a different value is a conflict: then NO preset is applied, the pod is admitted unchanged and
 *   the conflict logged as a warning (the established server logs it; it records no event);
 * - each applied preset is recorded on the pod: `podpreset.admission.svc.io/podpreset-<name>:
 *   <the preset's resourceVersion>`.
 *
 * Not touched: updates and subresources, mirror pods (`svc.io/config.mirror`), and pods annotated
 * `podpreset.admission.svc.io/exclude: "true"`. A preset without a selector matches every pod of
 * its namespace. Presets are read from the watch cache (the established plugin reads its
 * informer). The plugin needs the settings.k8s.io/v1alpha1 API: plugins.ts refuses it at start
 * when the API is off (as the established server fails to start without its informer's kind).
 *
 * The merge rules are pure functions (`mergePodPresets`) so they are tested without a server.
 */
import type { Pod } from '../../api/generated/kinds.js';
import { canonicalJson } from '../../api/json-walk.js';
import { labelSelectorFromObject } from '../../api/labels.js';
import type { SvcObject } from '../../api/types.js';
import { ANNOTATION_MIRROR_POD } from '../../api/well-known-labels.js';
import type { Logger } from 'pino';
import type { AdmissionPlugin } from './chain.js';

/** The established podpreset.admission.kubernetes.io/exclude. */
export const ANNOTATION_PODPRESET_EXCLUDE = 'podpreset.admission.svc.io/exclude';
/** Applied presets are recorded as `<prefix>/podpreset-<name>`. */
export const PODPRESET_ANNOTATION_PREFIX = 'podpreset.admission.svc.io';

type Entry = Record<string, unknown>;

/** What the plugin reads of a PodPreset. */
export interface PodPresetLike {
  metadata: { name?: string; resourceVersion?: string };
  spec?: {
    selector?: Record<string, unknown>;
    env?: Entry[];
    envFrom?: Entry[];
    volumes?: Entry[];
    volumeMounts?: Entry[];
  };
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);
const show = (v: unknown): string => canonicalJson(v);

/** The presets whose selector matches the labels (a missing or empty selector matches all), in list order. */
export function matchingPodPresets<P extends PodPresetLike>(presets: readonly P[], labels: Readonly<Record<string, string>> | undefined): P[] {
  return presets.filter((pp) => {
    try {
      return labelSelectorFromObject(pp.spec?.selector ?? {}).matches(labels);
    } catch (err) {
      throw new Error(`filtering pod presets failed: label selector conversion failed: ${(err as Error).message} for selector: ${show(pp.spec?.selector)}`);
    }
  });
}

/**
 * Merges `extra(pp)` of each preset into `list` keyed by `keys` (an entry matching an existing one
 * on a key must equal it). Returns the merged list (existing entries first) and the conflicts.
 */
function mergeKeyed(list: readonly Entry[], presets: readonly PodPresetLike[], what: string, extra: (pp: PodPresetLike) => Entry[] | undefined, keys: readonly string[]): { merged: Entry[]; conflicts: string[] } {
  const seen = keys.map((k) => new Map(list.map((e) => [String(e[k]), e])));
  const merged = [...list];
  const conflicts: string[] = [];
  for (const pp of presets) {
    for (const e of extra(pp) ?? []) {
      let fresh = false;
      keys.forEach((k, i) => {
        const found = seen[i]!.get(String(e[k]));
        if (found === undefined) {
          seen[i]!.set(String(e[k]), e);
          if (i === 0) fresh = true;
        } else if (!same(found, e)) {
          const on = i === 0 ? String(e[k]) : `mount path ${String(e[k])}`;
          conflicts.push(`merging ${what} for ${pp.metadata.name ?? ''} has a conflict on ${on}: \n${show(e)}\ndoes not match\n${show(found)}\n in container`);
        }
      });
      if (fresh) merged.push(e);
    }
  }
  return { merged, conflicts };
}

export interface PodPresetMerge {
  /** The pod with the presets applied, or undefined when there was a conflict (nothing applied). */
  pod?: Pod;
  /** The conflicts found (empty when applied). */
  conflicts: string[];
}

/** Applies the presets to a copy of the pod, or reports why none can be (the established safeToApply + apply). */
export function mergePodPresets(pod: Pod, presets: readonly PodPresetLike[]): PodPresetMerge {
  const next = structuredClone(pod) as Pod;
  const spec = (next.spec ??= { containers: [] }) as unknown as Entry;
  const conflicts: string[] = [];
  const volumes = mergeKeyed((spec['volumes'] as Entry[] | undefined) ?? [], presets, 'volumes', (pp) => pp.spec?.volumes, ['name']);
  conflicts.push(...volumes.conflicts);
  const containers = [...((spec['containers'] as Entry[] | undefined) ?? []), ...((spec['initContainers'] as Entry[] | undefined) ?? [])];
  for (const c of containers) {
    const env = mergeKeyed((c['env'] as Entry[] | undefined) ?? [], presets, 'env', (pp) => pp.spec?.env, ['name']);
    const mounts = mergeKeyed((c['volumeMounts'] as Entry[] | undefined) ?? [], presets, 'volume mounts', (pp) => pp.spec?.volumeMounts, ['name', 'mountPath']);
    conflicts.push(...env.conflicts, ...mounts.conflicts);
    if (env.conflicts.length + mounts.conflicts.length > 0) continue;
    // envFrom cannot conflict: every preset's sources are appended after the container's own.
    const envFrom = [...((c['envFrom'] as Entry[] | undefined) ?? []), ...presets.flatMap((pp) => pp.spec?.envFrom ?? [])];
    if (env.merged.length > 0) c['env'] = env.merged;
    if (mounts.merged.length > 0) c['volumeMounts'] = mounts.merged;
    if (envFrom.length > 0) c['envFrom'] = envFrom;
  }
  if (conflicts.length > 0) return { conflicts };
  if (volumes.merged.length > 0) spec['volumes'] = volumes.merged;
  const annotations = (next.metadata.annotations ??= {});
  for (const pp of presets) annotations[`${PODPRESET_ANNOTATION_PREFIX}/podpreset-${pp.metadata.name ?? ''}`] = pp.metadata.resourceVersion ?? '';
  return { pod: next, conflicts: [] };
}

export interface PodPresetDeps {
  /** The PodPresets of a namespace (from the watch cache). */
  presets(namespace: string): Promise<SvcObject[]>;
  logger?: Logger;
}

export function podPresetAdmission(deps: PodPresetDeps): AdmissionPlugin {
  return {
    name: 'PodPreset',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && a.operation === 'CREATE',
    async mutate(a) {
      const pod = a.object as Pod | undefined;
      if (!pod) return;
      // A rerun of the chain (a webhook changed the pod) must not append the presets' envFrom twice.
      if (a.reinvocation?.values.get('PodPreset') === true) return;
      const annotations = pod.metadata.annotations ?? {};
      if (ANNOTATION_MIRROR_POD in annotations) return;
      if (annotations[ANNOTATION_PODPRESET_EXCLUDE] === 'true') return;
      const matching = matchingPodPresets((await deps.presets(a.namespace)) as unknown as PodPresetLike[], pod.metadata.labels);
      if (matching.length === 0) return;
      const names = matching.map((pp) => pp.metadata.name).join(',');
      const result = mergePodPresets(pod, matching);
      if (!result.pod) {
        deps.logger?.warn({ pod: pod.metadata.name ?? pod.metadata.generateName, namespace: a.namespace, podpresets: names },
          `conflict occurred while applying podpresets: ${names} on pod: ${pod.metadata.generateName ?? ''} err: [${result.conflicts.join(', ')}]`);
        return;
      }
      // The chain hands plugins the object itself: change it in place.
      pod.metadata.annotations = result.pod.metadata.annotations;
      pod.spec = result.pod.spec;
      a.reinvocation?.values.set('PodPreset', true);
      deps.logger?.info({ namespace: a.namespace, podpresets: names }, `applied podpresets: ${names} successfully on Pod: ${pod.metadata.generateName ?? pod.metadata.name ?? ''}`);
    },
  };
}
