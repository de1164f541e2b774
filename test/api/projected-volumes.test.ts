// Projected volume defaults and validation (TokenRequestProjection), in pods and pod templates.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPodSpec, validatePodSpec, validatePodTemplate } from '../../src/api/kinds/core/pod-spec.js';

type Loose = Record<string, unknown>;
const spec = (projected: Loose): Loose => ({ containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'v', projected }] });
const errors = (s: Loose) => validatePodSpec(s, 'spec').map((e) => `${e.field}: ${e.type}: ${e.message ?? ''}`);

test('defaults: expirationSeconds 3600, defaultMode 0644', () => {
  const s = spec({ sources: [{ serviceAccountToken: { path: 'token' } }] });
  defaultPodSpec(s);
  const p = ((s['volumes'] as Loose[])[0]!['projected'] as Loose);
  assert.is(p['defaultMode'], 0o644);
  assert.equal(p['sources'], [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }]);
  assert.equal(errors(s), []);
});

test('serviceAccountToken: expiration bounds, path required and relative', () => {
  const e = (token: Loose) => errors(spec({ sources: [{ serviceAccountToken: token }] })).join('\n');
  assert.match(e({ path: 't', expirationSeconds: 599 }), 'spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds: FieldValueInvalid: Invalid value: 599: may not specify a duration less than 10 minutes');
  assert.match(e({ path: 't', expirationSeconds: 2 ** 32 + 1 }), 'may not specify a duration larger than 2^32 seconds');
  assert.is(e({ path: 't', expirationSeconds: 600 }), '');
  assert.is(e({ path: 't', expirationSeconds: 2 ** 32, audience: 'vault' }), '');
  assert.match(e({ expirationSeconds: 3600 }), 'spec.volumes[0].projected.path: FieldValueRequired');
  assert.match(e({ path: '/abs' }), 'serviceAccountToken.path: FieldValueInvalid: Invalid value: "/abs": must be a relative path');
  assert.match(e({ path: 'a/../b' }), "must not contain '..'");
});

test('one type per source, duplicate paths, names and items', () => {
  const e = errors(
    spec({
      sources: [
        { serviceAccountToken: { path: 'token' }, configMap: { name: 'c' } },
        { configMap: { name: 'c', items: [{ key: 'k', path: 'token' }] } },
        { secret: { items: [{ key: '', path: 'x' }] } },
        { downwardAPI: { items: [{ path: 'ns', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
      ],
    }),
  ).join('\n');
  assert.match(e, 'spec.volumes[0].projected.sources[0]: FieldValueForbidden: Forbidden: may not specify more than 1 volume type');
  assert.match(e, 'spec.volumes[0].projected: FieldValueInvalid: Invalid value: "c": conflicting duplicate paths');
  assert.match(e, 'spec.volumes[0].projected.sources[2].secret.name: FieldValueRequired');
  assert.match(e, 'spec.volumes[0].projected.sources[2].secret.items[0].key: FieldValueRequired');
  assert.not.match(e, 'downwardAPI');
});

test('pod templates are validated the same way', () => {
  const e = validatePodTemplate({ metadata: {}, spec: spec({ sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 10 } }] }) }, 'spec.template');
  assert.is(e.length, 1);
  assert.is(e[0]!.field, 'spec.template.spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds');
});

test.run();
