/**
 * fast-check generators of hostile requests for the API server: random and adversarial bodies for
 * every verb and content type (JSON, YAML, Protobuf with and without its magic prefix, each patch
 * type), wrong types in every metadata field, deep and wide nesting, huge numbers, odd Unicode,
 * and header and query abuse. Each generated request names the seeded object it may touch.
 */
import fc from 'fast-check';

export const CM = '/api/v1/namespaces/default/configmaps';
export const FUZZ_GROUP = 'fuzz.example.com';
export const CR = `/apis/${FUZZ_GROUP}/v1/namespaces/default/widgets`;
/** Objects created before the run; requests aimed at them must leave them as they were unless they succeed. */
export const SEEDED = [`${CM}/seed-cm`, `${CR}/seed-cr`, '/api/v1/namespaces/fuzz-ns'] as const;

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** The seeded object this request may change (its path), if any. */
  target?: string;
}

const oddStrings = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('\u0000', '\ud800', '\udfff', '\u202e', '\ufeff', '𝔘𝔫𝔦', '../..', '%2e%2e', 'a'.repeat(300), '${x}', '<script>', '\r\nX-Injected: 1'),
);

const hugeNumbers = fc.oneof(
  fc.double(),
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -0, 5e-324, 123456789012345678901234567890),
  fc.bigInt().map((b) => Number(b)),
);

/** Deep or wide nesting: arrays/objects down to 2,000 levels, or a thousand siblings. */
const nesting = fc.oneof(
  fc.integer({ min: 200, max: 2000 }).map((n) => JSON.parse('{"a":'.repeat(n) + '1' + '}'.repeat(n)) as unknown),
  fc.integer({ min: 200, max: 2000 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown),
  fc.integer({ min: 100, max: 2000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: oddStrings },
  { weight: 2, arbitrary: hugeNumbers },
  { weight: 1, arbitrary: nesting },
  { weight: 1, arbitrary: fc.constantFrom(null, true, [], {}, [null], { '': '' }) },
);

/** Every ObjectMeta field, with a value of any type (mostly the wrong one). */
const METADATA_FIELDS = ['name', 'generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields', 'selfLink'];
export const hostileMetadata = fc.dictionary(fc.constantFrom(...METADATA_FIELDS), hostileValue, { maxKeys: 4 });

const objectBody = (kind: string, apiVersion: string, name: fc.Arbitrary<string>) =>
  fc.record({
    apiVersion: fc.oneof(fc.constant(apiVersion), hostileValue),
    kind: fc.oneof(fc.constant(kind), hostileValue),
    metadata: fc.oneof({ weight: 3, arbitrary: fc.tuple(name, hostileMetadata).map(([n, m]) => ({ name: n, ...m })) }, { weight: 1, arbitrary: hostileValue }),
    data: hostileValue,
    spec: hostileValue,
    status: hostileValue,
    extra: hostileValue,
  }, { requiredKeys: ['metadata'] });

/** encodeURIComponent, or for text it refuses (lone surrogates) an invalid UTF-8 percent-encoding. */
function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
}

const names = fc.oneof(fc.constantFrom('seed-cm', 'seed-cr', 'fuzz-a', 'fuzz-b'), oddStrings);

const encode = fc.constantFrom('json', 'yaml', 'protobuf', 'protobuf-raw', 'garbage');

/** Serialises a value in a content type (Protobuf: the envelope prefix with random bytes, or bytes alone). */
function serialise(value: unknown, how: string, bytes: Uint8Array): { body: string | Buffer; contentType: string } {
  switch (how) {
    case 'yaml':
      return { body: toYamlish(value), contentType: 'application/yaml' };
    case 'protobuf':
      return { body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(bytes)]), contentType: 'application/vnd.svc.protobuf' };
    case 'protobuf-raw':
      return { body: Buffer.from(bytes), contentType: 'application/vnd.svc.protobuf' };
    case 'garbage':
      return { body: Buffer.from(bytes), contentType: 'application/json' };
    default:
      return { body: safeJson(value), contentType: 'application/json' };
  }
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '{}';
  }
}

/** YAML flow style is a superset of JSON, plus hostile YAML constructs now and then. */
function toYamlish(v: unknown): string {
  return `${safeJson(v)}\n`;
}

const yamlAttacks = fc.constantFrom(
  'a: &a [*a]\n',
  'metadata: &m {name: *m}\n',
  'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n',
  '!!binary AAAA\n',
  'metadata: {name: !!js/function "function(){}"}\n',
  `${'['.repeat(5000)}${']'.repeat(5000)}\n`,
  '? [a, b]\n: c\n',
  '--- a\n--- b\n',
);

const jsonPatch = fc.array(
  fc.record({
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
    path: fc.oneof(fc.constantFrom('/data', '/data/x', '/metadata/labels', '/metadata/finalizers', '/metadata/name', '/spec', '/', '', '/status', '/metadata/finalizers/-'), oddStrings),
    from: fc.constantFrom('/data', '/metadata', '/spec', '/', '/nope'),
    value: hostileValue,
  }, { requiredKeys: ['op', 'path'] }),
  { maxLength: 30 },
);

const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?limit=-1', '?limit=abc', '?limit=1&continue=bnVsbA==', '?limit=1&continue=%%%', '?continue=eyJ2IjoxfQ', '?resourceVersion=abc',
    '?resourceVersion=99999999999999999999', '?resourceVersionMatch=Exact', '?timeoutSeconds=-5', '?timeoutSeconds=1e99', '?fieldManager=' + 'x'.repeat(300),
    '?dryRun=Nope', '?dryRun=All&dryRun=All', '?fieldValidation=Bogus', '?labelSelector=a%20in%20(', '?fieldSelector=a%3D%3Db', '?watch=maybe',
    '?propagationPolicy=Sideways', '?gracePeriodSeconds=-1', '?gracePeriodSeconds=x', '?pretty=2', '?force=yes', '?limit=1&limit=2',
  ),
  fc.string({ maxLength: 30 }).map((s) => `?${enc(s)}=${enc(s)}`),
);

const headerAbuse = fc.oneof(
  fc.constant({} as Record<string, string>),
  fc.constantFrom<Record<string, string>>(
    { accept: 'text/html' },
    { accept: 'application/json;as=Table;g=meta.svc;v=v1' },
    { accept: 'application/json;as=Table;v=v9' },
    { accept: 'application/vnd.svc.protobuf;stream=watch' },
    { accept: '*/*;q=abc' },
    { accept: ','.repeat(500) },
    { 'content-type': 'application/json; charset=utf-16' },
    { 'content-type': 'application/json;;;=' },
    { 'content-encoding': 'gzip' },
    { 'x-long': 'x'.repeat(8000) },
  ),
);

const bytes = fc.uint8Array({ maxLength: 200 });

/** One hostile request against the seeded objects and their collections. */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  // Create / update with a body in any content type.
  fc.tuple(fc.constantFrom('POST', 'PUT'), fc.constantFrom(CM, CR), names, objectBody('ConfigMap', 'v1', names), encode, bytes, query, headerAbuse).map(([method, coll, name, obj, how, raw, q, h]) => {
    const path = method === 'PUT' ? `${coll}/${enc(name)}` : coll;
    const { body, contentType } = serialise(obj, how, raw);
    return { method, path: path + q, headers: { 'content-type': contentType, ...h }, body, target: method === 'PUT' ? path : undefined };
  }),
  // Patches of every type at a seeded object (and its status subresource).
  fc.tuple(fc.constantFrom(...SEEDED), fc.constantFrom('', '/status'), fc.constantFrom('merge', 'json', 'apply', 'strategic'), hostileValue, objectBody('ConfigMap', 'v1', names), jsonPatch, yamlAttacks, fc.boolean(), query, headerAbuse).map(
    ([target, sub, type, value, obj, ops, yaml, useYamlAttack, q, h]) => {
      const ct = { merge: 'application/merge-patch+json', json: 'application/json-patch+json', apply: 'application/apply-patch+yaml', strategic: 'application/strategic-merge-patch+json' }[type]!;
      const body = type === 'json' ? safeJson(ops) : type === 'apply' && useYamlAttack ? yaml : safeJson(type === 'apply' ? obj : { metadata: value, data: value, spec: value });
      const fm = type === 'apply' && !q.includes('fieldManager') ? `${q ? '&' : '?'}fieldManager=fuzz` : '';
      return { method: 'PATCH', path: `${target}${sub}${q}${fm}`, headers: { 'content-type': ct, ...h }, body, target };
    },
  ),
  // Reads, lists and watches with query and header abuse.
  fc.tuple(fc.constantFrom('GET', 'HEAD', 'OPTIONS'), fc.constantFrom(CM, CR, ...SEEDED, '/api/v1/namespaces', '/apis', '/api/v1/namespaces/default/configmaps/%2F', '/api/v1/nodes/x/status'), query, headerAbuse).map(([method, path, q, h]) => ({
    method,
    path: path + q,
    headers: h,
  })),
  // Deletes with hostile DeleteOptions bodies (the seeded objects are protected by a finalizer).
  fc.tuple(fc.constantFrom(...SEEDED), hostileValue, encode, bytes, query).map(([target, opts, how, raw, q]) => {
    const { body, contentType } = serialise({ kind: 'DeleteOptions', preconditions: opts, gracePeriodSeconds: opts, propagationPolicy: opts }, how, raw);
    return { method: 'DELETE', path: target + q, headers: { 'content-type': contentType }, body, target };
  }),
);
