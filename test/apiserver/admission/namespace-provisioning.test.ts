// NamespaceAutoProvision and NamespaceExists (src/apiserver/admission/namespace-auto-provision.ts, namespace-exists.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configMapDefinition, namespaceDefinition } from '../../../src/api/kinds/index.js';
import { alreadyExists } from '../../../src/api/status.js';
import type { SvcObject } from '../../../src/api/types.js';
import { namespaceAutoProvision } from '../../../src/apiserver/admission/namespace-auto-provision.js';
import { namespaceExists } from '../../../src/apiserver/admission/namespace-exists.js';
import { admit, attrsFor, ns, refusal } from './plugin-harness.js';

const cm = (namespace: string): SvcObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace } });

function provisioning(existing: string[], fail?: Error) {
  const names = new Set(existing);
  const created: string[] = [];
  const plugin = namespaceAutoProvision({
    namespace: async (n) => (names.has(n) ? ns(n) : undefined),
    create: async (n) => {
      if (fail) throw fail;
      if (names.has(n)) throw alreadyExists({ group: '', resource: 'namespaces', name: n });
      names.add(n);
      created.push(n);
    },
  });
  return { plugin, created };
}

test('NamespaceAutoProvision creates a missing namespace, once, and not for a dry run or a namespace', async () => {
  const { plugin, created } = provisioning(['default']);
  await admit(plugin, attrsFor(configMapDefinition, cm('fresh')));
  await admit(plugin, attrsFor(configMapDefinition, cm('fresh')));
  await admit(plugin, attrsFor(configMapDefinition, cm('default')));
  await admit(plugin, attrsFor(configMapDefinition, cm('dry'), { dryRun: true }));
  assert.not.ok(plugin.handles(attrsFor(namespaceDefinition, ns('x'))));
  assert.not.ok(plugin.handles(attrsFor(configMapDefinition, cm('fresh'), { operation: 'UPDATE' })));
  assert.equal(created, ['fresh']);
  assert.is(plugin.sideEffects, 'NoneOnDryRun');
});

test('NamespaceAutoProvision: a failed create refuses with 403', async () => {
  const { plugin } = provisioning([], new Error('storage is read-only'));
  const err = await refusal(admit(plugin, attrsFor(configMapDefinition, cm('x'))));
  assert.is(err.code, 403);
  assert.is(err.message, 'configmaps "c" is forbidden: storage is read-only');
});

test('NamespaceExists refuses writes in a missing namespace with 404', async () => {
  const plugin = namespaceExists(async (n) => (n === 'here' ? ns(n) : undefined));
  await admit(plugin, attrsFor(configMapDefinition, cm('here')));
  for (const operation of ['CREATE', 'UPDATE', 'DELETE'] as const) {
    const err = await refusal(admit(plugin, attrsFor(configMapDefinition, cm('gone'), { operation })));
    assert.is(err.code, 404);
    assert.is(err.message, 'namespaces "gone" not found');
  }
  assert.not.ok(plugin.handles(attrsFor(namespaceDefinition, ns('gone'))));
});

test.run();
