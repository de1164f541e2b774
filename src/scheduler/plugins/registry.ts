/**
 * The one list of scheduler plugins: name -> factory and default arguments. The configuration
 * (src/scheduler/config/) enables plugins by these names; `--help`, the default profile and the
 * legacy policy translation read this list, never a copy.
 */
import type { PluginFactory } from '../framework/interfaces.js';
import * as defaultBinder from './default-binder/index.js';
import * as defaultPodTopologySpread from './default-pod-topology-spread/index.js';
import * as defaultPreemption from './default-preemption/index.js';
import * as imageLocality from './image-locality/index.js';
import * as interPodAffinity from './inter-pod-affinity/index.js';
import * as nodeAffinity from './node-affinity/index.js';
import * as nodeName from './node-name/index.js';
import * as nodePorts from './node-ports/index.js';
import * as nodePreferAvoidPods from './node-prefer-avoid-pods/index.js';
import * as nodeResourcesBalancedAllocation from './node-resources-balanced-allocation/index.js';
import * as nodeResourcesFit from './node-resources-fit/index.js';
import * as nodeResourceLimits from './node-resource-limits/index.js';
import * as nodeResourcesLeastAllocated from './node-resources-least-allocated/index.js';
import * as nodeResourcesMostAllocated from './node-resources-most-allocated/index.js';
import * as nodeUnschedulable from './node-unschedulable/index.js';
import * as podTopologySpread from './pod-topology-spread/index.js';
import * as prioritySort from './priority-sort/index.js';
import * as taintToleration from './taint-toleration/index.js';
import * as volumeBinding from './volume-binding/index.js';
import * as volumeRestrictions from './volume-restrictions/index.js';
import * as volumeZone from './volume-zone/index.js';

export interface PluginRegistration {
  readonly name: string;
  readonly factory: PluginFactory;
  /** Arguments the plugin gets when the configuration gives none (`pluginConfig[].args` merge over these). */
  readonly defaultArgs?: Readonly<Record<string, unknown>>;
}

export const pluginRegistry: readonly PluginRegistration[] = [
  { name: prioritySort.name, factory: prioritySort.factory },
  { name: nodeUnschedulable.name, factory: nodeUnschedulable.factory },
  { name: nodeName.name, factory: nodeName.factory },
  { name: nodePorts.name, factory: nodePorts.factory },
  { name: nodeAffinity.name, factory: nodeAffinity.factory },
  { name: taintToleration.name, factory: taintToleration.factory },
  { name: nodeResourcesFit.name, factory: nodeResourcesFit.factory, defaultArgs: { ignoredResources: [], ignoredResourceGroups: [] } },
  { name: nodeResourcesLeastAllocated.name, factory: nodeResourcesLeastAllocated.factory, defaultArgs: { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] } },
  { name: nodeResourcesMostAllocated.name, factory: nodeResourcesMostAllocated.factory, defaultArgs: { resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }] } },
  { name: nodeResourceLimits.name, factory: nodeResourceLimits.factory },
  { name: nodeResourcesBalancedAllocation.name, factory: nodeResourcesBalancedAllocation.factory },
  { name: imageLocality.name, factory: imageLocality.factory },
  { name: nodePreferAvoidPods.name, factory: nodePreferAvoidPods.factory },
  { name: interPodAffinity.name, factory: interPodAffinity.factory, defaultArgs: { hardPodAffinityWeight: interPodAffinity.DEFAULT_HARD_POD_AFFINITY_WEIGHT } },
  { name: podTopologySpread.name, factory: podTopologySpread.factory, defaultArgs: { defaultConstraints: [] } },
  { name: defaultPodTopologySpread.name, factory: defaultPodTopologySpread.factory },
  { name: volumeRestrictions.name, factory: volumeRestrictions.factory },
  { name: volumeBinding.name, factory: volumeBinding.factory, defaultArgs: { bindTimeoutSeconds: volumeBinding.DEFAULT_BIND_TIMEOUT_SECONDS } },
  { name: volumeZone.name, factory: volumeZone.factory },
  { name: defaultPreemption.name, factory: defaultPreemption.factory },
  { name: defaultBinder.name, factory: defaultBinder.factory },
];

const byName = new Map(pluginRegistry.map((r) => [r.name, r]));

export function pluginRegistration(name: string): PluginRegistration | undefined {
  return byName.get(name);
}
