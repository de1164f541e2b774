import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinResources, ResourceRegistry } from '../../src/api/index.js';

const gvs = (r: ResourceRegistry) => r.enabledGroupVersions().map((g) => (g.group ? `${g.group}/${g.version}` : g.version)).sort();

test('by default every built-in GA and beta group/version is served', () => {
  const r = new ResourceRegistry(builtinResources(), {});
  assert.equal(gvs(r), [
    'admissionregistration.svc.io/v1', 'admissionregistration.svc.io/v1beta1', 'apiextensions.svc.io/v1', 'apiregistration.svc.io/v1', 'apiregistration.svc.io/v1beta1', 'apps/v1', 'authentication.svc.io/v1', 'authorization.svc.io/v1', 'autoscaling/v1', 'autoscaling/v2', 'autoscaling/v2beta2', 'batch/v1', 'batch/v1beta1',
    'certificates.svc.io/v1', 'coordination.svc.io/v1', 'discovery.svc.io/v1', 'discovery.svc.io/v1beta1', 'events.svc.io/v1', 'flowcontrol.apiserver.svc.io/v1beta1', 'metrics.svc.io/v1beta1',
    'networking.svc.io/v1', 'node.svc.io/v1', 'node.svc.io/v1beta1', 'policy/v1', 'policy/v1beta1', 'rbac.authorization.svc.io/v1', 'scheduling.svc.io/v1',
    'storage.svc.io/v1', 'v1',
  ]);
  // Every kind but the alpha ones (AuditSink, PodPreset).
  assert.is(r.enabledResources().length, builtinResources().filter((d) => !/alpha/.test(d.version)).length);
});

test('an alpha group/version is served when asked for, its group in either spelling', () => {
  for (const key of ['auditregistration.k8s.io/v1alpha1', 'auditregistration.svc.io/v1alpha1']) {
    const r = new ResourceRegistry(builtinResources(), { [key]: 'true' });
    assert.ok(gvs(r).includes('auditregistration.svc.io/v1alpha1'), key);
  }
  for (const key of ['settings.k8s.io/v1alpha1', 'settings.svc.io/v1alpha1']) {
    const r = new ResourceRegistry(builtinResources(), { [key]: 'true' });
    assert.ok(r.lookup('settings.svc.io', 'v1alpha1', 'podpresets')?.namespaced, key);
    assert.not.ok(gvs(r).includes('auditregistration.svc.io/v1alpha1'), 'one alpha group/version does not bring the others');
  }
  assert.not.ok(new ResourceRegistry(builtinResources(), {}).lookup('settings.svc.io', 'v1alpha1', 'podpresets'), 'off by default');
  const off = new ResourceRegistry(builtinResources(), { 'flowcontrol.apiserver.k8s.io/v1beta1': 'false' });
  assert.not.ok(gvs(off).includes('flowcontrol.apiserver.svc.io/v1beta1'));
});

test('api/all=false with v1=true serves only the core group', () => {
  const r = new ResourceRegistry(builtinResources(), { 'api/all': 'false', v1: 'true' });
  assert.equal(gvs(r), ['v1']);
  assert.ok(r.lookup('', 'v1', 'pods'));
  assert.not.ok(r.lookup('apps', 'v1', 'deployments'));
});

test('a specific key wins over a broad one whatever the order', () => {
  const r = new ResourceRegistry(builtinResources(), { 'batch/v1beta1': 'true', 'api/beta': 'false' });
  assert.ok(gvs(r).includes('batch/v1beta1'));
  assert.not.ok(gvs(r).includes('policy/v1beta1'));
});

test('api/beta=false turns off only beta versions; the group keeps its GA version preferred', () => {
  const r = new ResourceRegistry(builtinResources(), { 'api/beta': 'false' });
  assert.not.ok(r.lookup('batch', 'v1beta1', 'cronjobs'));
  assert.ok(r.lookup('batch', 'v1', 'jobs'));
  assert.equal(r.groups().find((g) => g.name === 'batch'), { name: 'batch', versions: ['v1'], preferredVersion: 'v1' });
});

test('preferred versions are the established server\'s: batch v1, policy v1, autoscaling v2, discovery v1, node v1', () => {
  const r = new ResourceRegistry(builtinResources(), {});
  const preferred = Object.fromEntries(r.groups().map((g) => [g.name, g.preferredVersion]));
  assert.equal([preferred['batch'], preferred['policy'], preferred['autoscaling'], preferred['discovery.svc.io'], preferred['node.svc.io']], ['v1', 'v1', 'v2', 'v1', 'v1']);
  assert.equal(r.groups().find((g) => g.name === 'autoscaling')!.versions, ['v2', 'v1', 'v2beta2']);
});

test('turning off a kind\'s current version leaves its other versions served (batch/v1=false serves CronJobs at v1beta1 only)', () => {
  const r = new ResourceRegistry(builtinResources(), { 'batch/v1': 'false' });
  assert.not.ok(r.lookup('batch', 'v1', 'cronjobs'));
  assert.ok(r.lookup('batch', 'v1beta1', 'cronjobs'));
  assert.equal(r.groups().find((g) => g.name === 'batch'), { name: 'batch', versions: ['v1beta1'], preferredVersion: 'v1beta1' });
});

test('groups list core first and prefer GA over beta', () => {
  const r = new ResourceRegistry(builtinResources(), {});
  const groups = r.groups();
  assert.is(groups[0]!.name, '');
  assert.equal(groups.find((g) => g.name === 'batch')!.versions, ['v1', 'v1beta1']);
});

test('a group/version/resource key turns off one resource', () => {
  const r = new ResourceRegistry(builtinResources(), { 'apps/v1/daemonsets': 'false' });
  assert.not.ok(r.lookup('apps', 'v1', 'daemonsets'));
  assert.ok(r.lookup('apps', 'v1', 'deployments'));
});

test('an unknown key is an error naming the key', () => {
  assert.throws(() => new ResourceRegistry(builtinResources(), { 'frobs/v9': 'true' }), /unknown key "frobs\/v9"/);
  assert.throws(() => new ResourceRegistry(builtinResources(), { 'apps/v1': 'maybe' }), /invalid value "maybe" for key "apps\/v1"/);
});

test('lookups by plural, kind and typed name', () => {
  const r = new ResourceRegistry(builtinResources(), {});
  assert.is(r.byKind('apps', 'v1', 'Deployment')?.plural, 'deployments');
  assert.is(r.resolveName('deploy')[0]?.kind, 'Deployment');
  assert.is(r.resolveName('po')[0]?.kind, 'Pod');
  // A kind served in several versions resolves to the preferred one first, as kubectl's mapper does.
  assert.is(r.resolveName('cronjobs.batch')[0]?.version, 'v1');
  assert.equal(r.resolveName('cronjobs').map((d) => d.version), ['v1', 'v1beta1']);
  assert.equal(r.resolveName('hpa').map((d) => d.version), ['v2', 'v1', 'v2beta2']);
  assert.is(r.resourcesFor('rbac.authorization.svc.io', 'v1').length, 4);
});

test('duplicate definitions are rejected', () => {
  const defs = builtinResources();
  assert.throws(() => new ResourceRegistry([...defs, defs[0]!], {}), /duplicate resource definition/);
});

test.run();
