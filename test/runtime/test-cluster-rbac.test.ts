/**
 * The test cluster runs a user's controller as its own service account bound to exactly the
 * permissions its definition declares: a write it forgot to declare fails its test with the
 * server's 403 (naming the account), the same controller with the permission declared succeeds,
 * and `svc rbac` would print that role (src/runtime/controller-permissions.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { defineController, done, type PolicyRule } from '../../src/runtime/index.js';
import { isForbidden, resources } from '../../src/client/index.js';
import type { ConfigMap } from '../../src/api/generated/kinds.js';
import { eventually } from '../helpers/client.js';

/** A controller that copies each ConfigMap's data into a Secret of the same name (a write it does not own). */
function secretWriter(name: string, permissions?: PolicyRule[]) {
  const outcomes: { key: string; error?: unknown }[] = [];
  const def = defineController<ConfigMap>({
    name,
    watches: resources.configmaps,
    selector: { labelSelector: `copy-to=${name}` },
    ...(permissions ? { permissions } : {}),
    async reconcile(key, { object, client }) {
      if (!object) return done();
      try {
        await client.create(resources.secrets, object.metadata.namespace!, { apiVersion: 'v1', kind: 'Secret', metadata: { name: object.metadata.name! }, stringData: object.data ?? {} });
        outcomes.push({ key });
      } catch (error) {
        outcomes.push({ key, error });
      }
      return done();
    },
  });
  return { def, outcomes };
}

let cluster: TestCluster | undefined;
test.after(async () => {
  await cluster?.stop();
});

test('a write the controller did not declare is a 403 for its account; declared, it succeeds', async () => {
  const forgot = secretWriter('forgetful');
  const declared = secretWriter('careful', [{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]);
  cluster = await startTestCluster({ scheduler: false, extraControllers: [forgot.def, declared.def] });
  for (const who of ['forgetful', 'careful']) {
    await cluster.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `from-${who}`, labels: { 'copy-to': who } }, data: { a: '1' } });
  }
  await eventually(() => forgot.outcomes.length > 0 && declared.outcomes.length > 0, 20_000);
  const refused = forgot.outcomes[0]!.error;
  assert.ok(isForbidden(refused), `expected a 403, got ${String(refused)}`);
  assert.match((refused as Error).message, /User "system:serviceaccount:default:forgetful" cannot create resource "secrets"/);
  assert.is(declared.outcomes[0]!.error, undefined, String(declared.outcomes[0]!.error));
  assert.is((await cluster.client.get(resources.secrets, 'default', 'from-careful')).metadata.name, 'from-careful');
  // The accounts and their roles are there for people to look at (kubectl against cluster.url).
  const role = await cluster.client.get(resources.clusterroles, '', 'svc-controller:default:careful');
  assert.ok(role.rules?.some((r) => r.resources?.includes('secrets') && r.verbs?.includes('create')));
});

test.run();
