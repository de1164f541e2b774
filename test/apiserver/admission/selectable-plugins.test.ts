// DefaultIngressClass and the selectable pod plugins on their own: AlwaysPullImages,
// ExtendedResourceToleration, LimitPodHardAntiAffinityTopology, SecurityContextDeny, AlwaysAdmit,
// AlwaysDeny; and the run order of the one list.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IngressClass, Pod } from '../../../src/api/generated/kinds.js';
import { ingressDefinition, namespaceDefinition, podDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/api/status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../../src/apiserver/admission/chain.js';
import { defaultIngressClass } from '../../../src/apiserver/admission/default-ingress-class.js';
import { alwaysPullImages } from '../../../src/apiserver/admission/always-pull-images.js';
import { extendedResourceToleration, isExtendedResourceName } from '../../../src/apiserver/admission/extended-resource-toleration.js';
import { limitPodHardAntiAffinityTopology } from '../../../src/apiserver/admission/limit-pod-hard-anti-affinity-topology.js';
import { securityContextDeny } from '../../../src/apiserver/admission/security-context-deny.js';
import { alwaysAdmit } from '../../../src/apiserver/admission/always-admit.js';
import { alwaysDeny } from '../../../src/apiserver/admission/always-deny.js';
import { builtAdmissionPlugins } from '../../../src/apiserver/admission/plugins.js';

const USER = { username: 'alice', groups: ['system:authenticated'] };
const pod = (spec: Pod['spec'] = {}): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'x:1' }], ...spec } });

function attrs(def: AdmissionAttributes['def'], object: SvcObject | undefined, operation: AdmissionAttributes['operation'] = 'CREATE', oldObject?: SvcObject): AdmissionAttributes {
  return { operation, def, namespace: 'ns', name: object?.metadata.name ?? 'gone', subresource: '', ...(object ? { object } : {}), ...(oldObject ? { oldObject } : {}), dryRun: false, user: USER };
}

async function admit(p: AdmissionPlugin, a: AdmissionAttributes): Promise<string | undefined> {
  try {
    if (!p.handles(a)) return 'not handled';
    await p.mutate?.(a);
    await p.validate?.(a);
    return undefined;
  } catch (e) {
    assert.instance(e, StatusError);
    assert.is((e as StatusError).code, 403);
    return (e as Error).message;
  }
}

const ingressClass = (name: string, isDefault: string | undefined, key = 'ingressclass.svc.io/is-default-class'): IngressClass =>
  ({ apiVersion: 'networking.svc.io/v1', kind: 'IngressClass', metadata: { name, ...(isDefault ? { annotations: { [key]: isDefault } } : {}) }, spec: { controller: 'example.com/c' } });
const ingress = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): SvcObject =>
  ({ apiVersion: 'networking.svc.io/v1', kind: 'Ingress', metadata: { name: 'web', namespace: 'ns', ...(annotations ? { annotations } : {}) }, spec }) as SvcObject;

test('DefaultIngressClass: the default class named on Ingresses without one; two defaults refused', async () => {
  const p = defaultIngressClass(async () => [ingressClass('nginx', 'true'), ingressClass('other', 'false')]);
  const none = ingress();
  assert.is(await admit(p, attrs(ingressDefinition, none)), undefined);
  assert.is((none.spec as { ingressClassName?: string }).ingressClassName, 'nginx');
  const own = ingress({ ingressClassName: 'mine' });
  await admit(p, attrs(ingressDefinition, own));
  assert.is((own.spec as { ingressClassName?: string }).ingressClassName, 'mine');
  const annotated = ingress({}, { 'kubernetes.io/ingress.class': 'legacy' });
  await admit(p, attrs(ingressDefinition, annotated));
  assert.is((annotated.spec as { ingressClassName?: string }).ingressClassName, undefined, 'the deprecated annotation names a class already');
  const alias = defaultIngressClass(async () => [ingressClass('a', 'true', 'ingressclass.kubernetes.io/is-default-class')]);
  const viaAlias = ingress();
  await admit(alias, attrs(ingressDefinition, viaAlias));
  assert.is((viaAlias.spec as { ingressClassName?: string }).ingressClassName, 'a');
  const two = defaultIngressClass(async () => [ingressClass('a', 'true'), ingressClass('b', 'true')]);
  assert.is(await admit(two, attrs(ingressDefinition, ingress())), 'ingresses.networking.svc.io "web" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed');
});

test('AlwaysPullImages: every container pulls always; an update with no new image is left alone', async () => {
  const p = alwaysPullImages();
  const po = pod({ initContainers: [{ name: 'i', image: 'y:1', imagePullPolicy: 'IfNotPresent' }], containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'Never' }] });
  assert.is(await admit(p, attrs(podDefinition, po)), undefined);
  assert.equal([po.spec!.initContainers![0]!.imagePullPolicy, po.spec!.containers![0]!.imagePullPolicy], ['Always', 'Always']);
  const old = pod({ containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'IfNotPresent' }] });
  assert.is(await admit(p, attrs(podDefinition, pod({ containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'IfNotPresent' }] }), 'UPDATE', old)), 'not handled');
  const bumped = pod({ containers: [{ name: 'c', image: 'x:2', imagePullPolicy: 'IfNotPresent' }] });
  await admit(p, attrs(podDefinition, bumped, 'UPDATE', old));
  assert.is(bumped.spec!.containers![0]!.imagePullPolicy, 'Always');
  // A policy changed after the mutating phase is refused with the field error.
  const later = pod({ containers: [{ name: 'c', image: 'x:1', imagePullPolicy: 'IfNotPresent' }] });
  try {
    p.validate!(attrs(podDefinition, later));
    assert.unreachable('refused');
  } catch (e) {
    assert.is((e as Error).message, 'pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
  }
});

test('ExtendedResourceToleration: a toleration per extended resource requested, once', async () => {
  assert.ok(isExtendedResourceName('example.com/gpu'));
  assert.not.ok(isExtendedResourceName('cpu'));
  assert.not.ok(isExtendedResourceName('svc.io/something'));
  assert.not.ok(isExtendedResourceName('hugepages-2Mi'));
  const p = extendedResourceToleration();
  const po = pod({
    containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '1', 'example.com/gpu': '1' } } }],
    initContainers: [{ name: 'i', image: 'x', resources: { requests: { 'acme.io/fpga': '1' } } }],
    tolerations: [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
  });
  assert.is(await admit(p, attrs(podDefinition, po)), undefined);
  assert.equal(po.spec!.tolerations, [{ key: 'example.com/gpu', operator: 'Exists', effect: 'NoSchedule' }, { key: 'acme.io/fpga', operator: 'Exists', effect: 'NoSchedule' }]);
});

test('LimitPodHardAntiAffinityTopology: required anti-affinity only by hostname', async () => {
  const p = limitPodHardAntiAffinityTopology();
  const term = (topologyKey: string) => pod({ affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { a: 'b' } }, topologyKey }] } } });
  assert.is(await admit(p, attrs(podDefinition, term('svc.io/hostname'))), undefined);
  assert.is(await admit(p, attrs(podDefinition, term('topology.svc.io/zone'))), 'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.svc.io/zone but only key svc.io/hostname is allowed');
});

test('SecurityContextDeny: pod and container security settings refused by name', async () => {
  const p = securityContextDeny();
  assert.is(await admit(p, attrs(podDefinition, pod({ securityContext: {} }))), undefined);
  assert.is(await admit(p, attrs(podDefinition, pod({ securityContext: { runAsUser: 1000 } }))), 'pods "p" is forbidden: pod.Spec.SecurityContext.RunAsUser is forbidden');
  assert.is(await admit(p, attrs(podDefinition, pod({ securityContext: { supplementalGroups: [5] } }))), 'pods "p" is forbidden: pod.Spec.SecurityContext.SupplementalGroups is forbidden');
  assert.is(await admit(p, attrs(podDefinition, pod({ containers: [{ name: 'c', image: 'x', securityContext: { seLinuxOptions: { level: 's0' } } }] }))), 'pods "p" is forbidden: SecurityContext.SELinuxOptions is forbidden');
  assert.is(await admit(p, attrs(podDefinition, pod({ initContainers: [{ name: 'i', image: 'x', securityContext: { runAsUser: 0 } }] }))), 'pods "p" is forbidden: SecurityContext.RunAsUser is forbidden');
});

test('AlwaysAdmit admits; AlwaysDeny refuses every write, deletes too', async () => {
  assert.is(await admit(alwaysAdmit(), attrs(podDefinition, pod())), 'not handled');
  assert.is(await admit(alwaysDeny(), attrs(podDefinition, pod())), 'pods "p" is forbidden: admission control is denying all modifications');
  assert.is(await admit(alwaysDeny(), attrs(namespaceDefinition, undefined, 'DELETE')), 'namespaces "gone" is forbidden: admission control is denying all modifications');
});

test('the one list runs in the established order', () => {
  const order = builtAdmissionPlugins();
  // The established AllOrderedPlugins (every one is built).
  const established = [
    'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists', 'SecurityContextDeny', 'LimitPodHardAntiAffinityTopology',
    'PodPreset', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'TaintNodesByCondition', 'AlwaysPullImages', 'ImagePolicyWebhook', 'PodSecurityPolicy',
    'PodNodeSelector', 'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction', 'DenyEscalatingExec', 'DenyExecOnPrivileged',
    'EventRateLimit', 'ExtendedResourceToleration', 'PersistentVolumeLabel', 'DefaultStorageClass', 'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement',
    'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
    'DefaultIngressClass', 'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
  ];
  assert.equal(order, established);
});

test.run();
