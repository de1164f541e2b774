import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  configurationFromObject, defaultConfiguration, parseConfigurationFile, parseLegacyPolicy, profileFromAlgorithmProvider, profileFromPolicy,
  resolvePluginRefs, SchedulerConfigError, serializeConfiguration,
} from '../../src/scheduler/index.js';
import { applyFeatureGates, resolveSchedulerOptions, schedulerFeatures } from '../../src/cli/scheduler-options.js';
import { OptionsError } from '../../src/cli/common-options.js';
import { createSchedulerProgram } from '../../src/cli/scheduler-options.js';
import { explicitlySetFlags } from '../../src/cli/option-table.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const base = { apiVersion: 'scheduler.config.svc.io/v1beta1', kind: 'SchedulerConfiguration' };

function fieldOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof SchedulerConfigError) return e.field;
    throw e;
  }
  throw new Error('no error');
}

test('the defaults are the established ones', () => {
  const c = defaultConfiguration();
  assert.is(c.percentageOfNodesToScore, 0);
  assert.is(c.podInitialBackoffSeconds, 1);
  assert.is(c.podMaxBackoffSeconds, 10);
  assert.equal([c.leaderElection.resourceName, c.leaderElection.resourceNamespace, c.leaderElection.leaseDuration], ['svc-scheduler', 'svc-system', '15s']);
  assert.equal([c.clientConnection.qps, c.clientConnection.burst], [50, 100]);
  const refs = resolvePluginRefs(c.profiles[0]!, 'profiles[0]');
  assert.equal(refs.score.map((r) => `${r.name}:${r.weight}`), [
    'NodeResourcesBalancedAllocation:1', 'ImageLocality:1', 'InterPodAffinity:1', 'NodeResourcesLeastAllocated:1', 'NodeAffinity:1',
    'NodePreferAvoidPods:10000', 'PodTopologySpread:2', 'DefaultPodTopologySpread:1', 'TaintToleration:1',
  ]);
});

test('a bad file names the field', () => {
  assert.is(fieldOf(() => configurationFromObject({ ...base, percentageOfNodesToScore: 101 })), 'percentageOfNodesToScore');
  assert.is(fieldOf(() => configurationFromObject({ ...base, profiles: [] })), 'profiles');
  assert.is(fieldOf(() => configurationFromObject({ ...base, profiles: [{ schedulerName: 'a' }, { schedulerName: 'a' }] })), 'profiles[1].schedulerName');
  assert.is(fieldOf(() => configurationFromObject({ ...base, profiles: [{ schedulerName: 'a', plugins: { filter: { enabled: [{ name: 'ImageLocality' }] } } }] })), 'profiles[0].plugins.filter');
  assert.is(fieldOf(() => configurationFromObject({ ...base, profiles: [{ schedulerName: 'a', plugins: { score: { enabled: [{ name: 'ImageLocality', weight: 0 }] } } }] })), 'profiles[0].plugins.score.enabled[0].weight');
  assert.is(fieldOf(() => configurationFromObject({ ...base, leaderElection: { leaseDuration: 'soon' } })), 'leaderElection.leaseDuration');
  assert.is(fieldOf(() => configurationFromObject({ ...base, leaderElection: { leaseDuration: '5s', renewDeadline: '10s' } })), 'leaderElection.renewDeadline');
  assert.is(fieldOf(() => configurationFromObject({ ...base, podInitialBackoffSeconds: 5, podMaxBackoffSeconds: 2 })), 'podMaxBackoffSeconds');
  assert.is(fieldOf(() => configurationFromObject({ ...base, kind: 'Other' })), 'kind');
  assert.is(fieldOf(() => configurationFromObject({ ...base, extra: 1 })), 'extra');
  assert.is(fieldOf(() => parseConfigurationFile('a: [', 'f.yaml')), 'f.yaml');
  assert.is(fieldOf(() => parseConfigurationFile('apiVersion: x', 'f.yaml')), 'f.yaml: apiVersion');
});

test('the file written reads back to the same configuration', () => {
  const c = configurationFromObject({ ...base, percentageOfNodesToScore: 40, profiles: [{ schedulerName: 'x', plugins: { multiPoint: { enabled: [{ name: 'NodeResourcesMostAllocated', weight: 3 }] } } }] });
  assert.equal(parseConfigurationFile(serializeConfiguration(c), 'again'), c);
});

test('docs/scheduler.md: its configuration examples are valid files (the smallest, then the full one)', () => {
  const doc = readFileSync(join(ROOT, 'docs/scheduler.md'), 'utf8');
  const [smallest, full] = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => parseConfigurationFile(m[1]!, 'docs/scheduler.md'));
  assert.is(smallest!.clientConnection.svcconfig, 'data/certs/admin.svcconfig');
  assert.equal(smallest!.profiles.map((p) => p.schedulerName), ['default-scheduler']);
  assert.equal(full!.profiles.map((p) => p.schedulerName), ['default-scheduler', 'bin-packer']);
});

test('legacy policy: predicates and priorities map onto plugins; unknown names are refused', () => {
  const p = profileFromPolicy(parseLegacyPolicy(JSON.stringify({
    kind: 'Policy', predicates: [{ name: 'GeneralPredicates' }, { name: 'MatchInterPodAffinity' }], priorities: [{ name: 'SelectorSpreadPriority', weight: 3 }],
  }), 'p'), 'default-scheduler', 'p');
  const refs = resolvePluginRefs(p, 'profiles[0]');
  assert.equal(refs.filter.map((r) => r.name), ['NodeResourcesFit', 'NodeName', 'NodePorts', 'NodeAffinity', 'InterPodAffinity']);
  assert.equal(refs.score, [{ name: 'DefaultPodTopologySpread', weight: 3 }]);
  assert.equal(refs.preScore.map((r) => r.name), ['DefaultPodTopologySpread']);
  assert.equal(refs.bind.map((r) => r.name), ['DefaultBinder']);
  assert.is(fieldOf(() => profileFromPolicy({ priorities: [{ name: 'Nope' }] }, 'd', 'p')), 'p: priorities[0].name');
  const cas = resolvePluginRefs(profileFromAlgorithmProvider('ClusterAutoscalerProvider', 'd'), 'x');
  assert.ok(cas.score.some((r) => r.name === 'NodeResourcesMostAllocated'));
  assert.not.ok(cas.score.some((r) => r.name === 'NodeResourcesLeastAllocated'));
});

test('feature gates: EvenPodsSpread off removes PodTopologySpread; ResourceLimitsPriorityFunction adds NodeResourceLimits', () => {
  const f = schedulerFeatures({ EvenPodsSpread: false, ResourceLimitsPriorityFunction: true });
  const c = applyFeatureGates(defaultConfiguration(), f);
  const refs = resolvePluginRefs(c.profiles[0]!, 'p');
  assert.not.ok([...refs.filter, ...refs.score, ...refs.preFilter].some((r) => r.name === 'PodTopologySpread'));
  assert.ok(refs.score.some((r) => r.name === 'NodeResourceLimits'));
  assert.equal(schedulerFeatures({}), { evenPodsSpread: true, podOverhead: true, nonPreemptingPriority: false, resourceLimitsPriorityFunction: false });
});

function options(argv: string[]) {
  const cmd = createSchedulerProgram();
  cmd.parse(['node', 'scheduler', ...argv]);
  return resolveSchedulerOptions(cmd.opts(), explicitlySetFlags(cmd));
}

test('flags override the defaults; deprecated aliases apply and warn', () => {
  const o = options(['--master=https://x:1', '--lock-object-name=old', '--scheduler-name=mine', '--port=0', '--svc-api-qps=200']);
  assert.is(o.configuration.leaderElection.resourceName, 'old');
  assert.is(o.configuration.profiles[0]!.schedulerName, 'mine');
  assert.is(o.configuration.clientConnection.qps, 200);
  assert.equal(o.insecure, { port: 0, address: '' });
  assert.ok(o.warnings.some((w) => w.startsWith('--lock-object-name is deprecated')));
  // The deprecated plain port keeps the spec's default: 10251 on every interface (docs/scheduler.md
  // says how two schedulers share a host: --port=0).
  assert.equal(options(['--master=https://x:1']).insecure, { port: 10251, address: '0.0.0.0' });
  assert.throws(() => options([]), (e: unknown) => e instanceof OptionsError && /no API server given/.test((e as Error).message));
  assert.throws(() => options(['--master=https://x:1', '--leader-elect-renew-deadline=20s']), (e: unknown) => e instanceof OptionsError);
});

test.run();
