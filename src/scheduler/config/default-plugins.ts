/**
 * The default profile's plugins per extension point, in order, with score weights: the
 * established v1beta1 defaults. A profile's `plugins` section edits this (enable appends,
 * disable removes). Plugin names must exist in plugins/registry.ts (a test checks).
 */
import type { ExtensionPoint, PluginRef } from './types.js';

export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';

export const DEFAULT_PLUGINS: Readonly<Record<ExtensionPoint, readonly PluginRef[]>> = {
  queueSort: [{ name: 'PrioritySort' }],
  preFilter: [
    { name: 'NodeResourcesFit' }, { name: 'NodePorts' }, { name: 'PodTopologySpread' }, { name: 'InterPodAffinity' }, { name: 'VolumeBinding' },
    { name: 'NodeAffinity' }, { name: 'NodeName' },
  ],
  filter: [
    { name: 'NodeUnschedulable' }, { name: 'NodeResourcesFit' }, { name: 'NodeName' }, { name: 'NodePorts' }, { name: 'NodeAffinity' },
    { name: 'VolumeRestrictions' }, { name: 'TaintToleration' }, { name: 'VolumeBinding' }, { name: 'VolumeZone' }, { name: 'PodTopologySpread' },
    { name: 'InterPodAffinity' },
  ],
  postFilter: [{ name: 'DefaultPreemption' }],
  preScore: [{ name: 'InterPodAffinity' }, { name: 'PodTopologySpread' }, { name: 'DefaultPodTopologySpread' }, { name: 'TaintToleration' }, { name: 'NodeAffinity' }],
  score: [
    { name: 'NodeResourcesBalancedAllocation', weight: 1 },
    { name: 'ImageLocality', weight: 1 },
    { name: 'InterPodAffinity', weight: 1 },
    { name: 'NodeResourcesLeastAllocated', weight: 1 },
    { name: 'NodeAffinity', weight: 1 },
    { name: 'NodePreferAvoidPods', weight: 10000 },
    { name: 'PodTopologySpread', weight: 2 },
    { name: 'DefaultPodTopologySpread', weight: 1 },
    { name: 'TaintToleration', weight: 1 },
  ],
  reserve: [{ name: 'VolumeBinding' }],
  preBind: [{ name: 'VolumeBinding' }],
  bind: [{ name: 'DefaultBinder' }],
};
