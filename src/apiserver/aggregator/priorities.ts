/**
 * The local APIServices: one per served group/version, named `<version>.<group>` (`v1.` for the
 * core group), with the established discovery priorities (the aggregator's table of built-in
 * group/versions, in our group names), and those of custom resources (as the established CRD
 * registration: groupPriorityMinimum 1000, versionPriority 100).
 *
 * Established rules kept: a built-in group/version missing from the table gets no APIService
 * (it would otherwise stay listed forever); two additions of ours, documented in
 * docs/aggregation.md: apiregistration itself (the established server lists it as Local too) and
 * metrics.svc.io, built in here but an extension server's group elsewhere, at the figures that
 * server registers with (100/100).
 */
import { isBuiltinResource, type ResourceRegistry } from '../../api/registry.js';

export interface ApiServicePriority {
  group: number;
  version: number;
}

/** `<group>/<version>` (our names; `v1` for core) -> priorities. */
const PRIORITIES: Readonly<Record<string, ApiServicePriority>> = {
  v1: { group: 18000, version: 1 },
  'apiregistration.svc.io/v1': { group: 18000, version: 15 },
  'apiregistration.svc.io/v1beta1': { group: 18000, version: 9 },
  'apps/v1': { group: 17800, version: 15 },
  'events.svc.io/v1': { group: 17750, version: 15 },
  'events.svc.io/v1beta1': { group: 17750, version: 5 },
  'authentication.svc.io/v1': { group: 17700, version: 15 },
  'authentication.svc.io/v1beta1': { group: 17700, version: 9 },
  'authentication.svc.io/v1alpha1': { group: 17700, version: 1 },
  'authorization.svc.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v2beta1': { group: 17500, version: 9 },
  'autoscaling/v2beta2': { group: 17500, version: 1 },
  'batch/v1': { group: 17400, version: 15 },
  'batch/v1beta1': { group: 17400, version: 9 },
  'batch/v2alpha1': { group: 17400, version: 9 },
  'certificates.svc.io/v1': { group: 17300, version: 15 },
  'certificates.svc.io/v1alpha1': { group: 17300, version: 1 },
  'networking.svc.io/v1': { group: 17200, version: 15 },
  'networking.svc.io/v1alpha1': { group: 17200, version: 1 },
  'policy/v1': { group: 17100, version: 15 },
  'policy/v1beta1': { group: 17100, version: 9 },
  'rbac.authorization.svc.io/v1': { group: 17000, version: 15 },
  'settings.svc.io/v1alpha1': { group: 16900, version: 9 },
  'storage.svc.io/v1': { group: 16800, version: 15 },
  'storage.svc.io/v1beta1': { group: 16800, version: 9 },
  'storage.svc.io/v1alpha1': { group: 16800, version: 1 },
  'apiextensions.svc.io/v1': { group: 16700, version: 15 },
  'admissionregistration.svc.io/v1': { group: 16700, version: 15 },
  'admissionregistration.svc.io/v1beta1': { group: 16700, version: 12 },
  'admissionregistration.svc.io/v1alpha1': { group: 16700, version: 9 },
  'scheduling.svc.io/v1': { group: 16600, version: 15 },
  'coordination.svc.io/v1': { group: 16500, version: 15 },
  'node.svc.io/v1': { group: 16300, version: 15 },
  'node.svc.io/v1alpha1': { group: 16300, version: 1 },
  'node.svc.io/v1beta1': { group: 16300, version: 9 },
  'discovery.svc.io/v1': { group: 16200, version: 15 },
  'discovery.svc.io/v1beta1': { group: 16200, version: 12 },
  'flowcontrol.apiserver.svc.io/v1beta3': { group: 16100, version: 18 },
  'flowcontrol.apiserver.svc.io/v1beta2': { group: 16100, version: 15 },
  'flowcontrol.apiserver.svc.io/v1beta1': { group: 16100, version: 12 },
  'flowcontrol.apiserver.svc.io/v1alpha1': { group: 16100, version: 9 },
  'auditregistration.svc.io/v1alpha1': { group: 950, version: 400 },
  'internal.apiserver.svc.io/v1alpha1': { group: 16000, version: 9 },
  'resource.svc.io/v1alpha2': { group: 15900, version: 9 },
  'metrics.svc.io/v1beta1': { group: 100, version: 100 },
};

/** The established CRD registration's figures. */
export const CUSTOM_RESOURCE_PRIORITY: ApiServicePriority = Object.freeze({ group: 1000, version: 100 });

/** The label that marks an APIService this server keeps (the established `kube-aggregator.kubernetes.io/automanaged`). */
export const AUTOMANAGED_LABEL = 'svc-aggregator.svc.io/automanaged';

/** The built-in priorities of a group/version, if it has any. */
export function builtinPriority(group: string, version: string): ApiServicePriority | undefined {
  return PRIORITIES[group ? `${group}/${version}` : version];
}

/** `<version>.<group>`: an APIService's name. */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** A local APIService this server wants to exist. */
export interface LocalApiService {
  name: string;
  group: string;
  version: string;
  priority: ApiServicePriority;
  /** 'onstart' for built-in group/versions, 'true' for custom resources (the established label values). */
  managed: 'onstart' | 'true';
}

/** Every local APIService for what the registry serves now. */
export function localApiServices(registry: ResourceRegistry): LocalApiService[] {
  const out: LocalApiService[] = [];
  for (const { group, version } of registry.enabledGroupVersions()) {
    const builtin = registry.resourcesFor(group, version).some(isBuiltinResource);
    const priority = builtin ? builtinPriority(group, version) : CUSTOM_RESOURCE_PRIORITY;
    if (!priority) continue;
    out.push({ name: apiServiceName(group, version), group, version, priority, managed: builtin ? 'onstart' : 'true' });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The discovery priority of a group served here (its highest groupPriorityMinimum; 0: none). */
export function localGroupPriority(registry: ResourceRegistry, group: string): number {
  let best = 0;
  for (const gv of registry.enabledGroupVersions()) {
    if (gv.group !== group) continue;
    const builtin = registry.resourcesFor(group, gv.version).some(isBuiltinResource);
    const p = builtin ? builtinPriority(group, gv.version) : CUSTOM_RESOURCE_PRIORITY;
    if (p && p.group > best) best = p.group;
  }
  return best;
}
