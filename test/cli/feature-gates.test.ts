import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkGatePrerequisites, defaultFeatureGates, FEATURE_GATES, parseFeatureGates } from '../../src/cli/feature-gates.js';

test('every gate of the spec table is known with its stage and default', () => {
  assert.equal(FEATURE_GATES['ServerSideApply'], { stage: 'BETA', default: true });
  assert.equal(FEATURE_GATES['AllBeta'], { stage: 'BETA', default: false });
  assert.equal(FEATURE_GATES['LegacyNodeRoleBehavior'], { stage: 'ALPHA', default: true });
  assert.equal(FEATURE_GATES['APIPriorityAndFairness'], { stage: 'ALPHA', default: false });
  assert.equal(FEATURE_GATES['CSIMigrationProviderA'], { stage: 'BETA', default: false });
  assert.equal(FEATURE_GATES['CSIMigrationProviderBFileComplete'], { stage: 'ALPHA', default: false });
  assert.is(Object.keys(FEATURE_GATES).length, 37 + 5 + 1 + 38);
});

test('an empty setting gives every gate its default', () => {
  assert.equal(parseFeatureGates(''), defaultFeatureGates());
});

test('explicit settings win and later ones override earlier ones', () => {
  const g = parseFeatureGates(['APIPriorityAndFairness=true,DryRun=false', 'DryRun=true']);
  assert.is(g['APIPriorityAndFairness'], true);
  assert.is(g['DryRun'], true);
  assert.is(g['ServerSideApply'], true);
});

test('an unknown gate is an error naming it', () => {
  assert.throws(() => parseFeatureGates('NoSuchGate=true'), /--feature-gates.*unrecognized feature gate: NoSuchGate/);
});

test('a non-boolean value is an error naming the gate', () => {
  assert.throws(() => parseFeatureGates('DryRun=maybe'), /--feature-gates.*DryRun/);
  assert.throws(() => parseFeatureGates('DryRun'), /--feature-gates.*Gate=true\|false/);
});

test('AllAlpha turns on every alpha gate not set explicitly', () => {
  const g = parseFeatureGates('AllAlpha=true,DynamicAuditing=false');
  assert.is(g['APIPriorityAndFairness'], true);
  assert.is(g['CSIMigrationProviderDComplete'], true);
  assert.is(g['DynamicAuditing'], false);
  assert.is(g['AllAlpha'], true);
  assert.is(g['AllBeta'], false);
  assert.is(g['ExperimentalHostUserNamespaceDefaulting'], false, 'beta gates are untouched');
});

test('AllBeta=false turns off every beta gate not set explicitly', () => {
  const g = parseFeatureGates('AllBeta=false,DryRun=true');
  assert.is(g['ServerSideApply'], false);
  assert.is(g['DryRun'], true);
  assert.is(g['LegacyNodeRoleBehavior'], true, 'alpha gates are untouched');
});

test('options needing a gate are errors or ignored while the gate is off', () => {
  const off = defaultFeatureGates();
  const r = checkGatePrerequisites(off, new Set(['--audit-dynamic-configuration', '--enable-priority-and-fairness']));
  assert.is(r.errors.length, 1);
  assert.match(r.errors[0] as string, /--audit-dynamic-configuration needs the DynamicAuditing feature gate/);
  assert.is(r.ignored.length, 1);
  assert.match(r.ignored[0] as string, /APIPriorityAndFairness/);
  const on = parseFeatureGates('DynamicAuditing=true,APIPriorityAndFairness=true');
  assert.equal(checkGatePrerequisites(on, new Set(['--audit-dynamic-configuration', '--enable-priority-and-fairness'])), { errors: [], ignored: [] });
  assert.equal(checkGatePrerequisites(off, new Set(['--service-account-signing-key-file'])).errors.length, 0, 'TokenRequest is on by default');
});

test.run();
