/**
 * The one list of admission plugins this server builds, in the established order the chain runs
 * them (whatever order the flags name them in), and the chain --enable/--disable-admission-plugins
 * make of them. A plugin the flags name explicitly but that is absent here is refused at start
 * (`admissionPluginsNotBuilt`), never accepted and skipped. The established default list still
 * names plugins not built here (LimitRanger, ServiceAccount, ...): those simply do not run, as
 * before this list existed; docs/security.md lists what runs.
 */
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import { AdmissionChain, type AdmissionPlugin } from './chain.js';
import { defaultTolerationSeconds, DEFAULT_TOLERATION_SECONDS, type DefaultTolerationSettings } from './default-toleration-seconds.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { nodeRestriction } from './node-restriction.js';
import { taintNodesByCondition } from './taint-nodes-by-condition.js';

/** The established default list (--enable-admission-plugins adds to it, --disable-admission-plugins removes). */
export const DEFAULT_ADMISSION_PLUGINS = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'Priority',
  'DefaultTolerationSeconds', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'PersistentVolumeClaimResize',
  'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'DefaultIngressClass',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota',
] as const;

/** Every plugin name the flags accept. */
export const ALL_ADMISSION_PLUGINS = [
  'AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning',
  'CertificateSubjectRestriction', 'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds',
  'DenyEscalatingExec', 'DenyExecOnPrivileged', 'EventRateLimit', 'ExtendedResourceToleration', 'ImagePolicyWebhook',
  'LimitPodHardAntiAffinityTopology', 'LimitRanger', 'MutatingAdmissionWebhook', 'NamespaceAutoProvision',
  'NamespaceExists', 'NamespaceLifecycle', 'NodeRestriction', 'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize', 'PersistentVolumeLabel', 'PodNodeSelector', 'PodPreset', 'PodSecurityPolicy',
  'PodTolerationRestriction', 'Priority', 'ResourceQuota', 'RuntimeClass', 'SecurityContextDeny', 'ServiceAccount',
  'StorageObjectInUseProtection', 'TaintNodesByCondition', 'ValidatingAdmissionWebhook',
] as const;

/** What a plugin may read: the server's stores (through their watch caches). */
export interface AdmissionContext {
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (absent: 300 and 300). */
  defaultTolerationSeconds?: DefaultTolerationSettings;
}

type PluginFactory = (ctx: AdmissionContext) => AdmissionPlugin;

/** Reads one object of a core kind from the cache (undefined when the kind is off or the object absent). */
function peeker(ctx: AdmissionContext, plural: string): (namespace: string, name: string) => Promise<import('../../api/types.js').SvcObject | undefined> {
  const def = ctx.registry.lookup('', 'v1', plural);
  if (!def) return async () => undefined;
  const store = ctx.storeFor(def);
  return (namespace, name) => store.peek(namespace, name);
}

/** Built plugins, in the established run order (NamespaceLifecycle, NodeRestriction, TaintNodesByCondition, DefaultTolerationSeconds). */
const FACTORIES: ReadonlyMap<string, PluginFactory> = new Map<string, PluginFactory>([
  ['NamespaceLifecycle', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    return namespaceLifecycle((name) => ns('', name));
  }],
  ['NodeRestriction', (ctx) => {
    const pod = peeker(ctx, 'pods');
    const node = peeker(ctx, 'nodes');
    return nodeRestriction({ pod, node: (name) => node('', name) });
  }],
  ['TaintNodesByCondition', () => taintNodesByCondition()],
  ['DefaultTolerationSeconds', (ctx) => defaultTolerationSeconds(ctx.defaultTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS)],
]);

/** The plugins this server builds, in run order. */
export function builtAdmissionPlugins(): string[] {
  return [...FACTORIES.keys()];
}

/** The plugins of `names` this server cannot build yet. */
export function admissionPluginsNotBuilt(names: readonly string[]): string[] {
  return names.filter((n) => !FACTORIES.has(n));
}

/** The chain of the enabled plugins this server builds, in run order. */
export function buildAdmission(enabled: readonly string[] = DEFAULT_ADMISSION_PLUGINS, ctx: AdmissionContext): AdmissionChain {
  return new AdmissionChain([...FACTORIES].filter(([name]) => enabled.includes(name)).map(([, make]) => make(ctx)));
}
