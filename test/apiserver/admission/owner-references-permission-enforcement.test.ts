// OwnerReferencesPermissionEnforcement: delete permission to change owner references, update of
// <owner>/finalizers to set blockOwnerDeletion (src/apiserver/admission/owner-references-permission-enforcement.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinResources, ResourceRegistry } from '../../../src/api/index.js';
import { configMapDefinition, podDefinition } from '../../../src/api/kinds/index.js';
import type { OwnerReference, SvcObject } from '../../../src/api/types.js';
import type { AccessAttributes, Authorizer } from '../../../src/apiserver/auth/authorization.js';
import { ownerReferencesPermissionEnforcement } from '../../../src/apiserver/admission/owner-references-permission-enforcement.js';
import { admit, attrsFor, refusal } from './plugin-harness.js';

const registry = new ResourceRegistry(builtinResources());
const asked: AccessAttributes[] = [];
let allow: (a: AccessAttributes) => boolean = () => true;
const authorizer: Authorizer = {
  mode: 'Test',
  authorize: (_u, a) => {
    asked.push(a);
    return { allowed: allow(a), reason: allow(a) ? 'ok' : '' };
  },
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};
const plugin = ownerReferencesPermissionEnforcement(registry, () => authorizer);

const owner = (extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-rs', ...extra });
const cm = (refs?: OwnerReference[]): SvcObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns', ...(refs ? { ownerReferences: refs } : {}) } });

test('a create may set owner references; blockOwnerDeletion needs update on <owner>/finalizers', async () => {
  asked.length = 0;
  allow = () => true;
  await admit(plugin, attrsFor(configMapDefinition, cm([owner()])));
  assert.equal(asked, []);
  await admit(plugin, attrsFor(configMapDefinition, cm([owner({ blockOwnerDeletion: true })])));
  assert.equal(asked, [{ kind: 'resource', verb: 'update', group: 'apps', version: 'v1', resource: 'replicasets', subresource: 'finalizers', namespace: 'ns', name: 'rs' }]);
  allow = (a) => !(a.kind === 'resource' && a.subresource === 'finalizers');
  const err = await refusal(admit(plugin, attrsFor(configMapDefinition, cm([owner({ blockOwnerDeletion: true })]))));
  assert.is(err.code, 403);
  assert.is(err.message, 'configmaps "c" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can\'t set finalizers on: , <nil>');
});

test('an update that changes owner references needs delete on the object; unchanged ones pass', async () => {
  allow = (a) => a.verb !== 'delete';
  const before = cm([owner()]);
  await admit(plugin, attrsFor(configMapDefinition, cm([owner()]), { operation: 'UPDATE', oldObject: before }));
  const err = await refusal(admit(plugin, attrsFor(configMapDefinition, cm([]), { operation: 'UPDATE', oldObject: before })));
  assert.is(err.message, "configmaps \"c\" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>");
  // Turning blockOwnerDeletion on for a kept reference needs the finalizers permission too.
  allow = (a) => a.verb === 'delete';
  await refusal(admit(plugin, attrsFor(configMapDefinition, cm([owner({ blockOwnerDeletion: true })]), { operation: 'UPDATE', oldObject: before })));
  // pods/status is whitelisted.
  assert.not.ok(plugin.handles(attrsFor(podDefinition, cm([owner()]), { operation: 'UPDATE', subresource: 'status' })));
});

test('an owner kind the server does not serve cannot block deletion', async () => {
  allow = () => true;
  const err = await refusal(admit(plugin, attrsFor(configMapDefinition, cm([owner({ apiVersion: 'example.com/v1', kind: 'Widget', blockOwnerDeletion: true })]))));
  assert.is(err.message, 'configmaps "c" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"');
  // The established spelling of a group maps to ours; a cluster-scoped owner has no namespace.
  asked.length = 0;
  await admit(plugin, attrsFor(configMapDefinition, cm([{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'r', uid: 'u-r', blockOwnerDeletion: true }])));
  assert.equal(asked, [{ kind: 'resource', verb: 'update', group: 'rbac.authorization.svc.io', version: 'v1', resource: 'clusterroles', subresource: 'finalizers', namespace: '', name: 'r' }]);
});

test.run();
