// The admission webhooks' rules without a server: configuration defaults and validation, which
// hooks a request calls (rules, scope, selectors, matchPolicy), the AdmissionReview and the checks
// on its answer, and the refusal's wording.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  cronJobDefinition, cronJobV1beta1Definition, ingressDefinition, mutatingWebhookConfigurationDefinition, mutatingWebhookConfigurationV1beta1Definition,
  namespaceDefinition, nodeDefinition, podDefinition, validatingWebhookConfigurationDefinition,
} from '../../../src/api/kinds/index.js';
import type { ResourceDefinition, SvcObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/api/status.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import { ruleMatches, ruleAttributes, shouldCallHook, type MatchableWebhook } from '../../../src/apiserver/admission/webhook/matching.js';
import { applyReviewPatch, buildReview, chooseReviewVersion, verifyReview } from '../../../src/apiserver/admission/webhook/review.js';
import { deniedBy, matchingHooks, parseConfigurations } from '../../../src/apiserver/admission/webhook/dispatcher.js';

type Loose = Record<string, unknown>;
const USER = { username: 'alice', groups: ['devs', 'system:authenticated'] };

function attrs(def: ResourceDefinition, extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE',
    def,
    namespace: def.namespaced ? 'ns' : '',
    name: 'x',
    subresource: '',
    object: { apiVersion: def.group ? `${def.group}/${def.version}` : def.version, kind: def.kind, metadata: { name: 'x', ...(def.namespaced ? { namespace: 'ns' } : {}), labels: { app: 'web' } } },
    dryRun: false,
    user: USER,
    ...extra,
  };
}

const namespaces: Record<string, SvcObject> = { ns: { metadata: { name: 'ns', labels: { hooks: 'on' } } }, quiet: { metadata: { name: 'quiet' } } };
const ctx = {
  namespace: async (n: string) => namespaces[n],
  definitions: () => [podDefinition, cronJobDefinition, cronJobV1beta1Definition, nodeDefinition, namespaceDefinition, ingressDefinition],
};
const hook = (extra: Partial<MatchableWebhook>): MatchableWebhook => ({ name: 'h.example.com', matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, ...extra });

function validate(def: ResourceDefinition, webhooks: Loose[]): string[] {
  const obj: SvcObject = { apiVersion: `admissionregistration.svc.io/${def.version}`, kind: def.kind, metadata: { name: 'c' }, webhooks };
  def.defaults?.(obj);
  return (def.validate?.(obj) ?? []).map((e) => `${e.field}: ${e.message}`);
}

test('v1 defaults: Fail, Equivalent, {} selectors, 10 s, Never, scope *, port 443; v1beta1 keeps its older ones', () => {
  const o: SvcObject = { metadata: { name: 'c' }, webhooks: [{ name: 'a.b.c', clientConfig: { service: { namespace: 'n', name: 's' } }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }], sideEffects: 'None', admissionReviewVersions: ['v1'] }] };
  mutatingWebhookConfigurationDefinition.defaults!(o);
  const h = (o['webhooks'] as Loose[])[0]!;
  assert.equal([h['failurePolicy'], h['matchPolicy'], h['namespaceSelector'], h['objectSelector'], h['timeoutSeconds'], h['reinvocationPolicy']], ['Fail', 'Equivalent', {}, {}, 10, 'Never']);
  assert.equal(((h['rules'] as Loose[])[0]!)['scope'], '*');
  assert.equal((h['clientConfig'] as { service: Loose }).service['port'], 443);
  const b: SvcObject = { metadata: { name: 'c' }, webhooks: [{ name: 'a.b.c', clientConfig: { url: 'https://x' } }] };
  mutatingWebhookConfigurationV1beta1Definition.defaults!(b);
  const bh = (b['webhooks'] as Loose[])[0]!;
  assert.equal([bh['failurePolicy'], bh['matchPolicy'], bh['sideEffects'], bh['timeoutSeconds'], bh['admissionReviewVersions']], ['Ignore', 'Exact', 'Unknown', 30, ['v1beta1']]);
  assert.equal(validate(mutatingWebhookConfigurationV1beta1Definition, [{ name: 'a.b.c', clientConfig: { url: 'https://x' } }]), []);
});

test('v1 validation: sideEffects and admissionReviewVersions required, timeout 1-30, one of url or service, https, names', () => {
  const good = { name: 'a.b.c', clientConfig: { url: 'https://hook.example.com/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'] };
  assert.equal(validate(validatingWebhookConfigurationDefinition, [good]), []);
  const errs = (w: Loose) => validate(validatingWebhookConfigurationDefinition, [{ ...good, ...w }]);
  assert.equal(errs({ sideEffects: undefined }), ['webhooks[0].sideEffects: Unsupported value: "": supported values: "None", "NoneOnDryRun"']);
  assert.equal(errs({ sideEffects: 'Some' }), ['webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"']);
  assert.equal(errs({ admissionReviewVersions: undefined }), ['webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1']);
  assert.equal(errs({ timeoutSeconds: 31 }), ['webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds']);
  assert.equal(errs({ clientConfig: { url: 'http://x/y' } }), ['webhooks[0].clientConfig.url: Invalid value: "http://x/y": \'https\' is the only allowed URL scheme']);
  assert.equal(errs({ clientConfig: { url: 'https://x', service: { namespace: 'n', name: 's' } } }), ['webhooks[0].clientConfig: Required value: exactly one of url or service is required']);
  assert.equal(errs({ name: 'short.name' }), ['webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots']);
  assert.equal(validate(validatingWebhookConfigurationDefinition, [good, good]), ['webhooks[1].name: Duplicate value: "a.b.c"']);
  assert.equal(errs({ rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] }).length, 1);
  assert.equal(errs({ failurePolicy: 'Sometimes' }), ['webhooks[0].failurePolicy: Unsupported value: "Sometimes": supported values: "Fail", "Ignore"']);
});

test('an object stored through v1beta1 with sideEffects Some can still be updated (and deleted) through v1', () => {
  const old: SvcObject = { metadata: { name: 'c' }, webhooks: [{ name: 'a.b.c', clientConfig: { url: 'https://x' }, sideEffects: 'Some', admissionReviewVersions: ['v1beta1'] }] };
  const next = structuredClone(old);
  next.metadata.labels = { x: 'y' };
  assert.equal(validatingWebhookConfigurationDefinition.validate!(next, old), []);
  assert.equal(validatingWebhookConfigurationDefinition.validate!(next).length, 1, 'a create through v1 is refused');
});

test('rules: operations, groups in either spelling, versions, resources with subresources and *, scope', () => {
  const pods = ruleAttributes(podDefinition, { operation: 'CREATE', subresource: '' });
  const status = ruleAttributes(podDefinition, { operation: 'UPDATE', subresource: 'status' });
  const r = (x: Loose) => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], ...x });
  assert.ok(ruleMatches(r({}), pods));
  assert.not.ok(ruleMatches(r({}), status), '* is no subresource');
  assert.ok(ruleMatches(r({ resources: ['*/*'] }), status));
  assert.ok(ruleMatches(r({ resources: ['pods/*'] }), status));
  assert.ok(ruleMatches(r({ resources: ['pods/status'] }), status));
  assert.not.ok(ruleMatches(r({ resources: ['pods'] }), status));
  assert.not.ok(ruleMatches(r({ operations: ['UPDATE'] }), pods));
  assert.not.ok(ruleMatches(r({ apiVersions: ['v2'] }), pods));
  const ing = ruleAttributes(ingressDefinition, { operation: 'CREATE', subresource: '' });
  assert.ok(ruleMatches(r({ apiGroups: ['networking.k8s.io'] }), ing), 'the established spelling is the same group');
  assert.ok(ruleMatches(r({ apiGroups: ['networking.svc.io'] }), ing));
  assert.not.ok(ruleMatches(r({ apiGroups: [''] }), ing));
  assert.ok(ruleMatches(r({ scope: 'Namespaced' }), pods));
  assert.not.ok(ruleMatches(r({ scope: 'Cluster' }), pods));
  assert.ok(ruleMatches(r({ scope: 'Cluster' }), ruleAttributes(namespaceDefinition, { operation: 'CREATE', subresource: '' })), 'a namespace is cluster-scoped');
  assert.not.ok(ruleMatches(r({ scope: 'Namespaced' }), ruleAttributes(nodeDefinition, { operation: 'CREATE', subresource: '' })));
});

test('namespaceSelector: the namespace labels; a namespace itself by its own; cluster-scoped never exempt; a missing namespace is 404', async () => {
  const rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];
  const h = hook({ rules, namespaceSelector: { matchLabels: { hooks: 'on' } } });
  assert.ok(await shouldCallHook(h, attrs(podDefinition), ctx));
  assert.not.ok(await shouldCallHook(h, attrs(podDefinition, { namespace: 'quiet' }), ctx));
  assert.ok(await shouldCallHook(h, attrs(nodeDefinition), ctx), 'cluster-scoped: the selector does not apply');
  const ns = attrs(namespaceDefinition, { object: { metadata: { name: 'fresh', labels: { hooks: 'on' } } }, name: 'fresh' });
  assert.ok(await shouldCallHook(h, ns, ctx), 'a namespace being created is judged by its own labels');
  assert.not.ok(await shouldCallHook(h, attrs(namespaceDefinition, { object: { metadata: { name: 'fresh' } }, name: 'fresh' }), ctx));
  try {
    await shouldCallHook(h, attrs(podDefinition, { namespace: 'gone' }), ctx);
    assert.unreachable();
  } catch (e) {
    assert.ok(e instanceof StatusError);
    assert.equal(e.status.code, 404);
  }
  assert.not.ok(await shouldCallHook(hook({ rules: [{ ...rules[0]!, resources: ['nodes'] }], namespaceSelector: { matchLabels: { a: 'b' } } }), attrs(podDefinition, { namespace: 'gone' }), ctx), 'no error unless the rules match');
});

test('objectSelector: the object or the old object', async () => {
  const rules = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];
  const h = hook({ rules, objectSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } });
  assert.ok(await shouldCallHook(h, attrs(podDefinition), ctx));
  const other = attrs(podDefinition, { object: { metadata: { name: 'x', labels: { app: 'db' } } } });
  assert.not.ok(await shouldCallHook(h, other, ctx));
  assert.ok(await shouldCallHook(h, { ...other, operation: 'UPDATE', oldObject: { metadata: { name: 'x', labels: { app: 'web' } } } }, ctx));
});

test('matchPolicy Equivalent reaches the same objects through another version; Exact does not', async () => {
  const rules = [{ operations: ['CREATE'], apiGroups: ['batch'], apiVersions: ['v1beta1'], resources: ['cronjobs'] }];
  const a = attrs(cronJobDefinition);
  const inv = await shouldCallHook(hook({ rules }), a, ctx);
  assert.equal(inv?.def, cronJobV1beta1Definition);
  assert.not.ok(await shouldCallHook(hook({ rules, matchPolicy: 'Exact' }), a, ctx));
  const review = buildReview('v1', a, inv!, 'u1');
  const req = review.body['request'] as Loose;
  assert.equal(req['kind'], { group: 'batch', version: 'v1beta1', kind: 'CronJob' });
  assert.equal(req['requestKind'], { group: 'batch', version: 'v1', kind: 'CronJob' });
  assert.equal((req['object'] as SvcObject).apiVersion, 'batch/v1beta1');
});

test('the webhook configurations themselves never call webhooks', async () => {
  const hooks = parseConfigurations([{ metadata: { name: 'c', resourceVersion: '1' }, webhooks: [{ name: 'all.example.com', rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }] }] }]);
  assert.equal((await matchingHooks(hooks, attrs(validatingWebhookConfigurationDefinition), ctx)).length, 0);
  assert.equal((await matchingHooks(hooks, attrs(podDefinition), ctx)).length, 1);
});

test('configurations run in name order, hooks in order', () => {
  const cfg = (name: string, hooks: string[]): SvcObject => ({ metadata: { name, resourceVersion: '1' }, webhooks: hooks.map((h) => ({ name: h })) });
  assert.equal(parseConfigurations([cfg('b', ['b1', 'b2']), cfg('a', ['a1'])]).map((h) => h.name), ['a1', 'b1', 'b2']);
});

test('the review: established spelling, user, options, dry run; the answer checked as established', () => {
  const a = attrs(ingressDefinition, { dryRun: true });
  const review = buildReview('v1', a, { def: ingressDefinition, subresource: '' }, 'uid-1');
  assert.equal(review.body['apiVersion'], 'admission.k8s.io/v1');
  const req = review.body['request'] as Loose;
  assert.equal(req['resource'], { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' });
  assert.equal((req['object'] as SvcObject).apiVersion, 'networking.k8s.io/v1');
  assert.equal(req['userInfo'], { username: 'alice', groups: ['devs', 'system:authenticated'] });
  assert.equal(req['options'], { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', dryRun: ['All'] });
  assert.equal([req['operation'], req['dryRun'], req['namespace'], req['name'], req['oldObject']], ['CREATE', true, 'ns', 'x', null]);
  const ok = (response: Loose, extra: Loose = {}) => verifyReview(review, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-1', ...response }, ...extra }, true);
  assert.equal(ok({ allowed: true, warnings: ['careful'] }).warnings, ['careful']);
  assert.throws(() => ok({ allowed: true, uid: 'other' }), /expected response.uid="uid-1", got "other"/);
  assert.throws(() => ok({ allowed: true }, { apiVersion: 'admission.k8s.io/v1beta1' }), /expected webhook response of admission.k8s.io\/v1, Kind=AdmissionReview, got admission.k8s.io\/v1beta1, Kind=AdmissionReview/);
  const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels/x', value: 'y' }])).toString('base64');
  assert.throws(() => ok({ allowed: true, patch }), /webhook returned response.patch but not response.patchType/);
  assert.throws(() => verifyReview(review, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-1', allowed: true, patch, patchType: 'JSONPatch' } }, false), /validating webhook may not return response.patch/);
  const r = ok({ allowed: true, patch, patchType: 'JSONPatch' });
  assert.equal(applyReviewPatch(a.object!, r.patch!).metadata.labels, { app: 'web', x: 'y' });
  assert.throws(() => verifyReview(review, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, true), /webhook response was absent/);
  assert.equal(chooseReviewVersion(['v2', 'v1beta1', 'v1']), 'v1beta1');
  assert.equal(chooseReviewVersion(['v2']), undefined);
});

test('a denial: the webhook message after "denied the request", at least 400', () => {
  const e = deniedBy('deny.example.com', { message: 'no pods named x', code: 403, reason: 'Forbidden' });
  assert.equal([e.status.code, e.status.message], [403, 'admission webhook "deny.example.com" denied the request: no pods named x']);
  assert.equal(deniedBy('d.example.com', { code: 200 }).status.code, 400);
  assert.equal(deniedBy('d.example.com', undefined).status.message, 'admission webhook "d.example.com" denied the request without explanation');
});

test.run();
