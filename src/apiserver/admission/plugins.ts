/**
 * The one list of admission plugins this server builds, in the established order the chain runs
 * them (whatever order the flags name them in), and the chain --enable/--disable-admission-plugins
 * make of them. A plugin the flags name explicitly but that is absent here is refused at start
 * (`admissionPluginsNotBuilt`), never accepted and skipped. Every plugin of the established
 * default list is built; docs/security.md lists what each does. The chain reports durations to the server's
 * admission metrics (./metrics.ts).
 */
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceDefinition } from '../../api/types.js';
import type { ResourceStore } from '../resource-store.js';
import { AdmissionChain, type AdmissionPlugin } from './chain.js';
import { defaultStorageClass } from './default-storage-class.js';
import { persistentVolumeClaimResize } from './persistent-volume-claim-resize.js';
import { storageObjectInUseProtection } from './storage-object-in-use-protection.js';
import { namespaceLifecycle } from './namespace-lifecycle.js';
import { nodeRestriction } from './node-restriction.js';
import { resourceQuotaAdmission, type QuotaAccess } from './resource-quota.js';
import type { ResourceQuota } from '../../api/generated/kinds.js';
import type { ObjectView } from '../resource-store.js';
import { serviceAccountAdmission } from './service-account.js';
import { certificateApproval } from './certificate-approval.js';
import { certificateSigning } from './certificate-signing.js';
import { certificateSubjectRestriction } from './certificate-subject-restriction.js';
import type { Authorizer } from '../auth/authorization.js';
import { defaultTolerationSeconds, DEFAULT_TOLERATION_SECONDS, type DefaultTolerationSettings } from './default-toleration-seconds.js';
import { taintNodesByCondition } from './taint-nodes-by-condition.js';
import { limitRanger } from './limit-ranger.js';
import { priorityAdmission } from './priority.js';
import { runtimeClassAdmission } from './runtime-class.js';
import { defaultIngressClass } from './default-ingress-class.js';
import { alwaysPullImages } from './always-pull-images.js';
import { extendedResourceToleration } from './extended-resource-toleration.js';
import { limitPodHardAntiAffinityTopology } from './limit-pod-hard-anti-affinity-topology.js';
import { securityContextDeny } from './security-context-deny.js';
import { alwaysAdmit } from './always-admit.js';
import { alwaysDeny } from './always-deny.js';
import { podPresetAdmission } from './pod-preset.js';
import { persistentVolumeLabel, type VolumeLabeler } from './persistent-volume-label.js';
import type { IngressClass, LimitRange, PriorityClass, RuntimeClass } from '../../api/generated/kinds.js';
import { pluginConfigError, type AdmissionPluginConfigurations, type PluginConfiguration } from './config-file.js';
import { eventRateLimit, parseEventRateLimitConfiguration } from './event-rate-limit.js';
import { parsePodNodeSelectorConfiguration, podNodeSelector } from './pod-node-selector.js';
import { parsePodTolerationRestrictionConfiguration, podTolerationRestriction } from './pod-toleration-restriction.js';
import { imagePolicyWebhook, parseImagePolicyConfiguration } from './image-policy-webhook.js';
import { namespaceAutoProvision } from './namespace-auto-provision.js';
import { namespaceExists } from './namespace-exists.js';
import { ownerReferencesPermissionEnforcement } from './owner-references-permission-enforcement.js';
import { denyEscalatingExec } from './deny-escalating-exec.js';
import { denyExecOnPrivileged } from './deny-exec-on-privileged.js';
import { prepareForCreate, validateOrThrow } from '../object-rules.js';
import { podSecurityPolicyAdmission } from './pod-security-policy.js';
import type { Logger } from 'pino';
import { mutatingAdmissionWebhook } from './mutating-admission-webhook.js';
import { validatingAdmissionWebhook } from './validating-admission-webhook.js';
import type { ClientIdentity } from './webhook/client.js';
import { webhookDeps, type WebhookDeps } from './webhook/dispatcher.js';
import { parseWebhookAdmissionConfiguration } from './webhook/credentials.js';
import type { AdmissionMetrics } from './metrics.js';

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

/** What a plugin may read: the server's stores (through their watch caches), and ask: its authorizer. */
export interface AdmissionContext {
  registry: ResourceRegistry;
  storeFor(def: ResourceDefinition): ResourceStore;
  /** The server's feature gates (absent: every gate at its default). */
  featureGates?: Readonly<Record<string, boolean>>;
  /** The server's authorization chain (the Certificate* plugins ask it about signers). */
  authorizer(): Authorizer;
  /** --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (absent: 300 and 300). */
  defaultTolerationSeconds?: DefaultTolerationSettings;
  /** The enabled plugins' sections of --admission-control-config-file (absent: no file). */
  pluginConfigurations?: AdmissionPluginConfigurations;
  /** --proxy-client-cert-file / --proxy-client-key-file (PEM): the certificate admission webhooks are called with. */
  proxyClient?: ClientIdentity;
  /** --cloud-provider's answer about volumes (PersistentVolumeLabel; absent: no cloud, the plugin does nothing). */
  volumeLabeler?: VolumeLabeler;
  /** The server's admission metrics (absent: none recorded). */
  metrics?: AdmissionMetrics;
  logger?: Logger;
}

type PluginFactory = (ctx: AdmissionContext) => AdmissionPlugin;

/** Reads one object of a core kind from the cache (undefined when the kind is off or the object absent). */
function peeker(ctx: AdmissionContext, plural: string): (namespace: string, name: string) => Promise<import('../../api/types.js').SvcObject | undefined> {
  const def = ctx.registry.lookup('', 'v1', plural);
  if (!def) return async () => undefined;
  const store = ctx.storeFor(def);
  return (namespace, name) => store.peek(namespace, name);
}

/** The store of a kind (undefined when the kind is not served). */
function storeOf(ctx: AdmissionContext, group: string, plural: string): ResourceStore | undefined {
  const def = ctx.registry.lookup(group, 'v1', plural);
  return def ? ctx.storeFor(def) : undefined;
}

/** Reads one object of a core kind from storage, bypassing the cache (undefined when absent). */
function liveReader(ctx: AdmissionContext, plural: string): (namespace: string, name: string) => Promise<import('../../api/types.js').SvcObject | undefined> {
  const def = ctx.registry.lookup('', 'v1', plural);
  if (!def) return async () => undefined;
  const store = ctx.storeFor(def);
  return async (namespace, name) => (await store.getForUpdate(namespace, name))?.object;
}

/**
 * The plugins that read --admission-control-config-file, each with how it reads its section
 * (throwing AdmissionConfigError naming the file and plugin). Run for the enabled ones before the
 * server starts (`checkAdmissionConfiguration`) and again by the factories below.
 */
const CONFIGURATION_READERS: ReadonlyMap<string, (cfg: PluginConfiguration | undefined) => unknown> = new Map<string, (cfg: PluginConfiguration | undefined) => unknown>([
  ['ImagePolicyWebhook', parseImagePolicyConfiguration],
  ['PodNodeSelector', parsePodNodeSelectorConfiguration],
  ['PodTolerationRestriction', parsePodTolerationRestrictionConfiguration],
  ['EventRateLimit', parseEventRateLimitConfiguration],
  ['MutatingAdmissionWebhook', (cfg) => parseWebhookAdmissionConfiguration('MutatingAdmissionWebhook', cfg)],
  ['ValidatingAdmissionWebhook', (cfg) => parseWebhookAdmissionConfiguration('ValidatingAdmissionWebhook', cfg)],
]);

/**
 * Reads the sections of the enabled plugins that take one: throws AdmissionConfigError on the first
 * bad one. A section for an enabled plugin that reads none here is refused too: it would be a
 * setting silently not applied (e.g. ResourceQuota's, which the established plugin reads).
 */
export function checkAdmissionConfiguration(enabled: readonly string[], configurations: AdmissionPluginConfigurations = {}): void {
  for (const [name, section] of Object.entries(configurations)) {
    if (enabled.includes(name) && !CONFIGURATION_READERS.has(name)) {
      throw pluginConfigError(name, section.source, `this server's ${name} takes no configuration, so this section would have no effect; remove it`);
    }
  }
  for (const [name, read] of CONFIGURATION_READERS) if (enabled.includes(name)) read(configurations[name]);
}

const sectionOf = (ctx: AdmissionContext, plugin: string): PluginConfiguration | undefined => ctx.pluginConfigurations?.[plugin];

/**
 * Built plugins, in the established run order (the established server's AllOrderedPlugins, of
 * which these are built): AlwaysAdmit, NamespaceAutoProvision, NamespaceLifecycle, NamespaceExists,
 * SecurityContextDeny, LimitPodHardAntiAffinityTopology, PodPreset, LimitRanger, ServiceAccount,
 * NodeRestriction, TaintNodesByCondition, AlwaysPullImages, ImagePolicyWebhook, PodSecurityPolicy,
 * PodNodeSelector, Priority, DefaultTolerationSeconds, PodTolerationRestriction, DenyEscalatingExec,
 * DenyExecOnPrivileged, EventRateLimit, ExtendedResourceToleration, PersistentVolumeLabel, DefaultStorageClass,
 * StorageObjectInUseProtection, OwnerReferencesPermissionEnforcement, PersistentVolumeClaimResize,
 * RuntimeClass, the Certificate* three, DefaultIngressClass, MutatingAdmissionWebhook,
 * ValidatingAdmissionWebhook, then ResourceQuota and AlwaysDeny last.
 */
const FACTORIES: ReadonlyMap<string, PluginFactory> = new Map<string, PluginFactory>([
  ['AlwaysAdmit', () => alwaysAdmit()],
  ['NamespaceAutoProvision', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    const def = ctx.registry.lookup('', 'v1', 'namespaces');
    return namespaceAutoProvision({
      namespace: (name) => ns('', name),
      create: async (name) => {
        if (!def) throw pluginConfigError('NamespaceAutoProvision', undefined, 'namespaces are not served');
        // Written as the system namespaces are (./system-objects.ts): defaults, validation, store.
        const obj = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
        prepareForCreate(def, obj, Date.now());
        validateOrThrow(def, obj);
        await ctx.storeFor(def).create(obj, false);
      },
    });
  }],
  ['NamespaceLifecycle', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    return namespaceLifecycle((name) => ns('', name));
  }],
  ['NamespaceExists', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    return namespaceExists((name) => ns('', name));
  }],
  ['SecurityContextDeny', () => securityContextDeny()],
  ['LimitPodHardAntiAffinityTopology', () => limitPodHardAntiAffinityTopology()],
  ['PodPreset', (ctx) => {
    const def = ctx.registry.lookup('settings.svc.io', 'v1alpha1', 'podpresets');
    // The options refuse PodPreset without the API (src/cli/apiserver-options.ts); this guards in-process configurations.
    if (!def) throw pluginConfigError('PodPreset', undefined, 'needs the settings.k8s.io/v1alpha1 API (an alpha API, off by default): add --runtime-config=settings.k8s.io/v1alpha1=true');
    const store = ctx.storeFor(def);
    return podPresetAdmission({
      // resourceVersion 0: from the watch cache, as the established plugin reads its informer.
      presets: async (namespace) => (await store.list({ namespace, resourceVersion: '0', filtered: false })).items.map((v) => v.object),
      ...(ctx.logger ? { logger: ctx.logger.child({ plugin: 'PodPreset' }) } : {}),
    });
  }],
  ['LimitRanger', (ctx) => {
    const store = storeOf(ctx, '', 'limitranges');
    return limitRanger({
      cached: async (namespace) => (store ? (await store.list({ namespace, resourceVersion: '0', filtered: false })).items.map((v) => v.object as LimitRange) : []),
      live: async (namespace) => (store ? (await store.list({ namespace, filtered: false })).items.map((v) => v.object as LimitRange) : []),
    });
  }],
  ['ServiceAccount', (ctx) => serviceAccountAdmission(
    { cached: peeker(ctx, 'serviceaccounts'), live: liveReader(ctx, 'serviceaccounts'), secret: peeker(ctx, 'secrets') },
    { boundTokenVolume: ctx.featureGates?.['BoundServiceAccountTokenVolume'] === true },
  )],
  ['NodeRestriction', (ctx) => {
    const pod = peeker(ctx, 'pods');
    const node = peeker(ctx, 'nodes');
    return nodeRestriction({ pod, node: (name) => node('', name) });
  }],
  ['TaintNodesByCondition', () => taintNodesByCondition()],
  ['AlwaysPullImages', () => alwaysPullImages()],
  ['ImagePolicyWebhook', (ctx) => imagePolicyWebhook(parseImagePolicyConfiguration(sectionOf(ctx, 'ImagePolicyWebhook')))],
  ['PodSecurityPolicy', (ctx) => {
    const def = ctx.registry.lookup('policy', 'v1beta1', 'podsecuritypolicies');
    const store = def ? ctx.storeFor(def) : undefined;
    return podSecurityPolicyAdmission({
      // resourceVersion 0: from the watch cache, as the established plugin reads its informer. With
      // the kind switched off (--runtime-config) there are no policies, and every pod is refused.
      policies: async () => (store ? (await store.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object) : []),
      authorizer: () => ctx.authorizer(),
    });
  }],
  ['PodNodeSelector', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    return podNodeSelector(parsePodNodeSelectorConfiguration(sectionOf(ctx, 'PodNodeSelector')), { namespace: (name) => ns('', name) });
  }],
  ['Priority', (ctx) => {
    const store = storeOf(ctx, 'scheduling.svc.io', 'priorityclasses');
    return priorityAdmission(
      {
        get: async (name) => (await store?.peek('', name)) as PriorityClass | undefined,
        list: async () => (store ? (await store.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object as PriorityClass) : []),
      },
      { nonPreemptingPriority: ctx.featureGates?.['NonPreemptingPriority'] === true },
    );
  }],
  ['DefaultTolerationSeconds', (ctx) => defaultTolerationSeconds(ctx.defaultTolerationSeconds ?? DEFAULT_TOLERATION_SECONDS)],
  ['PodTolerationRestriction', (ctx) => {
    const ns = peeker(ctx, 'namespaces');
    return podTolerationRestriction(parsePodTolerationRestrictionConfiguration(sectionOf(ctx, 'PodTolerationRestriction')), { namespace: (name) => ns('', name) });
  }],
  ['DenyEscalatingExec', (ctx) => denyEscalatingExec(liveReader(ctx, 'pods'))],
  ['DenyExecOnPrivileged', (ctx) => denyExecOnPrivileged(liveReader(ctx, 'pods'))],
  ['EventRateLimit', (ctx) => eventRateLimit(parseEventRateLimitConfiguration(sectionOf(ctx, 'EventRateLimit')))],
  ['ExtendedResourceToleration', () => extendedResourceToleration()],
  ['PersistentVolumeLabel', (ctx) => persistentVolumeLabel(ctx.volumeLabeler, ctx.logger?.child({ plugin: 'PersistentVolumeLabel' }))],
  ['DefaultStorageClass', (ctx) => {
    const def = ctx.registry.lookup('storage.svc.io', 'v1', 'storageclasses');
    const store = def ? ctx.storeFor(def) : undefined;
    return defaultStorageClass(async () => (store ? (await store.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object) : []));
  }],
  ['StorageObjectInUseProtection', () => storageObjectInUseProtection()],
  ['OwnerReferencesPermissionEnforcement', (ctx) => ownerReferencesPermissionEnforcement(ctx.registry, () => ctx.authorizer())],
  ['PersistentVolumeClaimResize', (ctx) => {
    const def = ctx.registry.lookup('storage.svc.io', 'v1', 'storageclasses');
    const store = def ? ctx.storeFor(def) : undefined;
    return persistentVolumeClaimResize(async (name) => store?.peek('', name));
  }],
  ['RuntimeClass', (ctx) => {
    const store = storeOf(ctx, 'node.svc.io', 'runtimeclasses');
    const plugin = runtimeClassAdmission(async (name) => (await store?.peek('', name)) as RuntimeClass | undefined, { podOverhead: ctx.featureGates?.['PodOverhead'] !== false });
    // With the RuntimeClass gate off the field has no meaning, and the plugin no work.
    return ctx.featureGates?.['RuntimeClass'] === false ? { ...plugin, handles: () => false } : plugin;
  }],
  ['CertificateApproval', (ctx) => certificateApproval(() => ctx.authorizer())],
  ['CertificateSigning', (ctx) => certificateSigning(() => ctx.authorizer())],
  ['CertificateSubjectRestriction', () => certificateSubjectRestriction()],
  ['DefaultIngressClass', (ctx) => {
    const store = storeOf(ctx, 'networking.svc.io', 'ingressclasses');
    return defaultIngressClass(async () => (store ? (await store.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object as IngressClass) : []));
  }],
  // As established, the webhooks come after every other built-in plugin but ResourceQuota (and AlwaysDeny).
  ['MutatingAdmissionWebhook', (ctx) => mutatingAdmissionWebhook(webhookDepsOf(ctx, 'MutatingAdmissionWebhook', 'mutatingwebhookconfigurations'))],
  ['ValidatingAdmissionWebhook', (ctx) => validatingAdmissionWebhook(webhookDepsOf(ctx, 'ValidatingAdmissionWebhook', 'validatingwebhookconfigurations'))],
  // Last but AlwaysDeny, as established: it charges usage, so it runs once every other plugin has admitted.
  ['ResourceQuota', (ctx) => resourceQuotaAdmission(quotaAccess(ctx))],
  ['AlwaysDeny', () => alwaysDeny()],
]);

/** The webhook plugins' reads: their configurations, namespaces, services and endpoints, all through the watch caches. */
function webhookDepsOf(ctx: AdmissionContext, plugin: string, plural: string): WebhookDeps {
  const credentials = parseWebhookAdmissionConfiguration(plugin, sectionOf(ctx, plugin));
  const store = (group: string, version: string, p: string) => {
    const def = ctx.registry.lookup(group, version, p);
    return def ? ctx.storeFor(def) : undefined;
  };
  return webhookDeps({
    configurationsStore: store('admissionregistration.svc.io', 'v1', plural),
    namespaces: store('', 'v1', 'namespaces'),
    services: store('', 'v1', 'services'),
    endpoints: store('', 'v1', 'endpoints'),
    definitions: () => ctx.registry.enabledResources(),
    ...(ctx.proxyClient ? { identity: ctx.proxyClient } : {}),
    ...(credentials ? { credentials } : {}),
    ...(ctx.metrics ? { metrics: ctx.metrics } : {}),
    ...(ctx.logger ? { logger: ctx.logger.child({ plugin }) } : {}),
  });
}

/** The ResourceQuota plugin's reads (names from the cache, quotas as stored) and precondition writes. */
function quotaAccess(ctx: AdmissionContext): QuotaAccess {
  const def = ctx.registry.lookup('', 'v1', 'resourcequotas');
  if (!def) return { cached: async () => [], read: async () => undefined, write: async () => undefined };
  const store = ctx.storeFor(def);
  return {
    // resourceVersion 0: from the watch cache, as the established plugin reads quotas from its informer.
    cached: async (namespace) => (await store.list({ namespace, resourceVersion: '0', filtered: false })).items.map((v) => v.object as ResourceQuota),
    read: async (namespace, name) => {
      const view = await store.getForUpdate(namespace, name);
      return view ? { quota: view.object as ResourceQuota, token: view } : undefined;
    },
    write: async (next, read) => {
      const current = read.token as ObjectView;
      // The stored object is frozen (shared with the cache): write a private copy with the new status.
      const draft = store.draft(current);
      draft['status'] = next.status;
      const { value, unchanged } = store.encode(draft, current);
      if (!unchanged) await store.replace(draft, value, current.revision, false);
    },
  };
}

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
  return new AdmissionChain([...FACTORIES].filter(([name]) => enabled.includes(name)).map(([, make]) => make(ctx)), ctx.metrics);
}
