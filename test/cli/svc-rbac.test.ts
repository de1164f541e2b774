/**
 * The permissions a controller needs, read off its definition (src/runtime/controller-permissions.ts),
 * and `svc rbac <module>` printing them as a ClusterRole (and binding) for kubectl apply.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAllDocuments } from 'yaml';
import { controllerPolicyRules } from '../../src/runtime/controller-permissions.js';
import { resources } from '../../src/client/typed.js';

const svc = fileURLToPath(new URL('../../src/cli/svc.js', import.meta.url));
const mirrorModule = fileURLToPath(new URL('../../docs/examples/mirror-controller.js', import.meta.url));

test('watches are read, owned resources written, triggers read, Events recorded, declared permissions added and merged', () => {
  const rules = controllerPolicyRules({
    watches: resources.replicasets,
    owns: [resources.pods],
    triggers: [{ resource: resources.nodes, keysFor: () => [] }],
    permissions: [
      { apiGroups: ['apps'], resources: ['replicasets/status'], verbs: ['update'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['deletecollection'] },
      { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    ],
  });
  assert.equal(rules, [
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] },
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['apps'], resources: ['replicasets/status'], verbs: ['update'] },
    { nonResourceURLs: ['/healthz'], verbs: ['get'] },
  ]);
});

test('svc rbac prints the ClusterRole, ServiceAccount and binding of a module; a bad --service-account is one error line', () => {
  const r = spawnSync(process.execPath, [svc, 'rbac', '--service-account', 'mirror/mirror-controller', mirrorModule], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string }; rules?: unknown[] });
  assert.equal(docs.map((d) => d.kind), ['ClusterRole', 'ServiceAccount', 'ClusterRoleBinding']);
  assert.is(docs[0]!.metadata.name, 'configmap-mirror');
  assert.equal(docs[0]!.rules, [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
  ]);
  const bad = spawnSync(process.execPath, [svc, 'rbac', '--service-account', 'no-slash', mirrorModule], { encoding: 'utf8' });
  assert.is(bad.status, 1);
  assert.match(bad.stderr, /^svc rbac: error: invalid value "no-slash" for --service-account: expected <namespace>\/<name>/);
});

test.run();
