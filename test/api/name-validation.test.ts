import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  configMapDefinition, isConfigMapKey, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, isValidPathSegmentName,
  namespaceDefinition, roleDefinition, validateObjectMeta, type SvcObject,
} from '../../src/api/index.js';

test('a DNS-1123 label is lower-case alphanumerics and dashes, at most 63 characters', () => {
  assert.equal(isDNS1123Label('my-name'), []);
  assert.equal(isDNS1123Label('123-abc'), []);
  assert.is(isDNS1123Label('My_Name').length, 1);
  assert.is(isDNS1123Label('-a').length, 1);
  assert.is(isDNS1123Label('a.b').length, 1);
  assert.equal(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('a DNS-1123 subdomain allows dots, at most 253 characters', () => {
  assert.equal(isDNS1123Subdomain('example.com'), []);
  assert.is(isDNS1123Subdomain('a..b').length, 1);
  assert.ok(isDNS1123Subdomain('a'.repeat(254)).includes('must be no more than 253 characters'));
  assert.match(isDNS1123Subdomain('Foo_')[0]!, /^a lowercase RFC 1123 subdomain must consist of/);
});

test('a path segment name may not be . or .. nor contain / or %', () => {
  assert.equal(isValidPathSegmentName('system:controller:x'), []);
  assert.equal(isValidPathSegmentName('..'), ["may not be '..'"]);
  assert.equal(isValidPathSegmentName('a/b'), ["may not contain '/'"]);
  assert.equal(isValidPathSegmentName('a%b'), ["may not contain '%'"]);
});

test('a qualified name has an optional DNS prefix and a 63-character name part', () => {
  assert.equal(isQualifiedName('example.com/My_Name.1'), []);
  assert.equal(isQualifiedName('/x'), ['prefix part must be non-empty']);
  assert.ok(isQualifiedName('a/b/c')[0]!.includes("with an optional DNS subdomain prefix and '/'"));
  assert.equal(isQualifiedName(`x/${'a'.repeat(64)}`), ['name part must be no more than 63 characters']);
  assert.match(isQualifiedName('Bad_Prefix/x')[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
});

test('a label value is empty or a 63-character qualified name part', () => {
  assert.equal(isValidLabelValue(''), []);
  assert.equal(isValidLabelValue('v1.2_x'), []);
  assert.is(isValidLabelValue('-x').length, 1);
  assert.ok(isValidLabelValue('a'.repeat(64)).includes('must be no more than 63 characters'));
});

test('configmap keys are [-._a-zA-Z0-9]+ and not . or ..', () => {
  assert.equal(isConfigMapKey('app.properties'), []);
  assert.is(isConfigMapKey('a/b').length, 1);
  assert.ok(isConfigMapKey('..').includes("must not be '..'"));
});

const meta = (m: SvcObject['metadata']): SvcObject => ({ metadata: m });

test('metadata.name is checked with the established message', () => {
  const errs = validateObjectMeta(meta({ name: 'Foo_', namespace: 'default' }), configMapDefinition, { isCreate: true });
  assert.is(errs.length, 1);
  assert.is(errs[0]!.field, 'metadata.name');
  assert.is(errs[0]!.type, 'FieldValueInvalid');
  assert.ok(errs[0]!.message.startsWith('Invalid value: "Foo_": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'));
  assert.ok(errs[0]!.message.endsWith("regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
});

test('namespaces use the DNS-1123 label rule; rbac roles the path-segment rule', () => {
  assert.is(validateObjectMeta(meta({ name: 'a.b' }), namespaceDefinition, { isCreate: true }).length, 1);
  assert.is(validateObjectMeta(meta({ name: 'system:a.B', namespace: 'x' }), roleDefinition, { isCreate: true }).length, 0);
});

test('name or generateName is required on create; generateName may end in a dash', () => {
  const none = validateObjectMeta(meta({ namespace: 'd' }), configMapDefinition, { isCreate: true });
  assert.equal(none, [{ field: 'metadata.name', type: 'FieldValueRequired', message: 'Required value: name or generateName is required' }]);
  assert.equal(validateObjectMeta(meta({ generateName: 'web-', namespace: 'd' }), configMapDefinition, { isCreate: true }), []);
  assert.is(validateObjectMeta(meta({ generateName: 'Web-', namespace: 'd' }), configMapDefinition, { isCreate: true })[0]!.field, 'metadata.generateName');
  assert.is(validateObjectMeta(meta({ generateName: 'web-', namespace: 'd' }), configMapDefinition, { isCreate: false })[0]!.field, 'metadata.name');
});

test('namespace is required for namespaced kinds and forbidden for cluster-scoped ones', () => {
  assert.is(validateObjectMeta(meta({ name: 'a' }), configMapDefinition, { isCreate: true })[0]!.message, 'Required value');
  assert.is(validateObjectMeta(meta({ name: 'a', namespace: 'x' }), namespaceDefinition, { isCreate: true })[0]!.type, 'FieldValueForbidden');
});

test('label keys and values are validated under metadata.labels', () => {
  const errs = validateObjectMeta(meta({ name: 'a', namespace: 'd', labels: { 'bad key': 'x', ok: '-bad' } }), configMapDefinition, { isCreate: true });
  assert.is(errs.length, 2);
  assert.ok(errs.every((e) => e.field === 'metadata.labels'));
});

test('annotations may total at most 256KiB', () => {
  const errs = validateObjectMeta(meta({ name: 'a', namespace: 'd', annotations: { big: 'x'.repeat(256 * 1024) } }), configMapDefinition, { isCreate: true });
  assert.equal(errs, [{ field: 'metadata.annotations', type: 'FieldValueTooLong', message: 'Too long: must have at most 262144 bytes' }]);
});

test('finalizers must be qualified names, standard or with a domain', () => {
  assert.equal(validateObjectMeta(meta({ name: 'a', namespace: 'd', finalizers: ['svc', 'example.com/x', 'orphan'] }), configMapDefinition, { isCreate: true }), []);
  const errs = validateObjectMeta(meta({ name: 'a', namespace: 'd', finalizers: ['custom'] }), configMapDefinition, { isCreate: true });
  assert.is(errs[0]!.field, 'metadata.finalizers[0]');
  assert.match(errs[0]!.message, /neither a standard finalizer name nor is it fully qualified/);
});

test('ownerReferences need apiVersion, kind, name and uid, and at most one controller', () => {
  const errs = validateObjectMeta(
    meta({
      name: 'a',
      namespace: 'd',
      ownerReferences: [
        { apiVersion: '', kind: 'ReplicaSet', name: 'r', uid: '1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: '', uid: '', controller: true },
      ],
    }),
    configMapDefinition,
    { isCreate: true },
  );
  const fields = errs.map((e) => e.field);
  assert.ok(fields.includes('metadata.ownerReferences[0].apiVersion'));
  assert.ok(fields.includes('metadata.ownerReferences[1].name'));
  assert.ok(fields.includes('metadata.ownerReferences[1].uid'));
  assert.ok(errs.some((e) => e.field === 'metadata.ownerReferences' && /Only one reference can have Controller set to true/.test(e.message)));
});

test.run();
