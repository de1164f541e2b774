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
  /** Sent over a plain TLS socket as written: it carries bytes an HTTP client refuses to send (HTTP/1.1 only). */
  raw?: boolean;
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

// ---------------------------------------------------------------------------------------------
// The surfaces added since the first round (issue 23): strategic merge patch directives, Protobuf
// envelopes with hostile inner messages, the `.k8s.io` group aliases, OpenAPI, eviction, binding
// and access reviews, watch-list parameters, and text outside Latin-1 (or control characters) in
// every name, key, label, annotation, header and patch path. The requests aim at the namespace
// FUZZ_NS and its seeded objects (SURFACE_SEEDS); `raw` requests carry bytes a conforming HTTP
// client refuses to send (control characters in a header) and go over a plain TLS socket.

export const FUZZ_NS = 'fuzz';
const NSP = `/api/v1/namespaces/${FUZZ_NS}`;
export const FUZZ_CM = `${NSP}/configmaps`;
export const FUZZ_POD = `${NSP}/pods`;
export const FUZZ_DEPLOY = `/apis/apps/v1/namespaces/${FUZZ_NS}/deployments`;
const leases = (g: string) => `/apis/${g}/v1/namespaces/${FUZZ_NS}/leases`;
const roles = (g: string) => `/apis/${g}/v1/namespaces/${FUZZ_NS}/roles`;

/** Objects in FUZZ_NS the new families aim at, with the body each is (re)created from. */
export const SURFACE_SEEDS: Record<string, { collection: string; body: Record<string, unknown> }> = {
  [`${FUZZ_CM}/seed-cm`]: { collection: FUZZ_CM, body: { metadata: { name: 'seed-cm', labels: { a: 'b' }, finalizers: ['fuzz.example.com/keep'] }, data: { a: 'b' } } },
  [`${FUZZ_DEPLOY}/seed-deploy`]: {
    collection: FUZZ_DEPLOY,
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'seed-deploy', finalizers: ['fuzz.example.com/keep'] },
      spec: {
        selector: { matchLabels: { app: 'seed' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
        template: {
          metadata: { labels: { app: 'seed' } },
          spec: {
            containers: [
              { name: 'app', image: 'nginx', args: ['a', 'b'], env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
              { name: 'side', image: 'busybox' },
            ],
            volumes: [{ name: 'v', emptyDir: {} }],
          },
        },
      },
    },
  },
  [`${FUZZ_POD}/seed-pod`]: {
    collection: FUZZ_POD,
    body: { metadata: { name: 'seed-pod', labels: { app: 'seed' } }, spec: { containers: [{ name: 'app', image: 'nginx', env: [{ name: 'A', value: '1' }] }] } },
  },
  [`${leases('coordination.k8s.io')}/seed-lease`]: {
    collection: leases('coordination.k8s.io'),
    body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'seed-lease', finalizers: ['fuzz.example.com/keep'] }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
  },
  [`${roles('rbac.authorization.k8s.io')}/seed-role`]: {
    collection: roles('rbac.authorization.k8s.io'),
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'seed-role', finalizers: ['fuzz.example.com/keep'] }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  },
};
const SEED_PATHS = Object.keys(SURFACE_SEEDS);

/** Text outside Latin-1, control characters, BOMs, combining marks, bidi overrides, lone surrogates. */
export const unicodeText = fc.oneof(
  fc.constantFrom('😀', '€', 'é', 'a\u0301', '\u0085', '\u00ff', '\u0100', '\ufeff', '\ufeffkind', '\u2028', '\u202e', 'ｆｕｌｌ', '中文', 'Ω', '\u0000', '\u0001', '\u001b[31m', '\x7f', '\t', '\r\n', 'a\nb', '\ud83d', '\ude00', 'x'.repeat(64) + '😀'),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
  fc.tuple(fc.constantFrom('ok-', 'a.b/', 'example.com/', ''), fc.string({ unit: 'grapheme', maxLength: 8 })).map(([a, b]) => a + b),
);
const uniOrName = fc.oneof({ weight: 2, arbitrary: unicodeText }, { weight: 1, arbitrary: fc.constantFrom('seed-cm', 'fuzz-a', 'fuzz-b', 'a', '') });

// --- strategic merge patch directives --------------------------------------------------------

const directiveKey = fc.oneof(
  fc.constantFrom(
    '$patch', '$retainKeys', '$deleteFromPrimitiveList/finalizers', '$deleteFromPrimitiveList/args', '$deleteFromPrimitiveList/containers', '$deleteFromPrimitiveList/',
    '$setElementOrder/containers', '$setElementOrder/env', '$setElementOrder/ports', '$setElementOrder/finalizers', '$setElementOrder/volumes', '$setElementOrder/', '$setElementOrder/nope',
    '$patch/x', '$unknown', '$',
  ),
  unicodeText.map((u) => `$setElementOrder/${u}`),
  unicodeText.map((u) => `$deleteFromPrimitiveList/${u}`),
);
const directiveValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('replace', 'delete', 'merge', 'Replace', 'DELETE', '', 'retainKeys') },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom('name', 'env', 'A', 'app', 'side', 'a', 'type', 'rollingUpdate'), unicodeText), { maxLength: 4 }) },
  { weight: 2, arbitrary: fc.array(fc.oneof(fc.record({ name: uniOrName }), fc.record({ containerPort: fc.integer({ min: -1, max: 70000 }), protocol: fc.constantFrom('TCP', 'UDP', 'x') }), hostileValue), { maxLength: 4 }) },
  { weight: 2, arbitrary: hostileValue },
);
const directives = fc.dictionary(directiveKey, directiveValue, { maxKeys: 3 });
const maybeDirectives = fc.oneof({ weight: 1, arbitrary: fc.constant({}) }, { weight: 2, arbitrary: directives });

const envEntry = fc.tuple(fc.record({ name: fc.oneof(fc.constantFrom('A', 'B', 'C'), unicodeText, hostileValue), value: fc.oneof(fc.string({ maxLength: 8 }), hostileValue) }, { requiredKeys: [] }), maybeDirectives).map(([e, d]) => ({ ...e, ...d }));
const container = fc
  .tuple(
    fc.record({
      name: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('app', 'side', 'new') }, { weight: 1, arbitrary: unicodeText }, { weight: 1, arbitrary: hostileValue }),
      image: fc.oneof(fc.constant('nginx'), unicodeText),
      env: fc.oneof(fc.array(envEntry, { maxLength: 4 }), hostileValue),
      args: fc.oneof(fc.array(fc.oneof(fc.constantFrom('a', 'b'), unicodeText), { maxLength: 3 }), hostileValue),
      ports: fc.array(fc.record({ containerPort: fc.oneof(fc.integer({ min: 0, max: 70000 }), hostileValue), protocol: fc.constantFrom('TCP', 'UDP', 'SCTP', '') }, { requiredKeys: [] }), { maxLength: 3 }),
    }, { requiredKeys: [] }),
    maybeDirectives,
  )
  .map(([c, d]) => ({ ...c, ...d }));
const podSpec = fc
  .tuple(fc.record({ containers: fc.oneof(fc.array(container, { maxLength: 3 }), hostileValue), volumes: fc.array(fc.record({ name: uniOrName, emptyDir: fc.constant({}) }), { maxLength: 2 }) }, { requiredKeys: [] }), maybeDirectives)
  .map(([s, d]) => ({ ...s, ...d }));
const smpMetadata = fc
  .tuple(
    fc.record({
      finalizers: fc.oneof(fc.array(fc.oneof(fc.constantFrom('fuzz.example.com/keep', 'x/y'), unicodeText), { maxLength: 3 }), hostileValue),
      labels: fc.oneof(fc.dictionary(unicodeText, fc.oneof(unicodeText, fc.constant(null), hostileValue), { maxKeys: 3 }), hostileValue),
      annotations: fc.dictionary(unicodeText, fc.oneof(unicodeText, fc.constant(null)), { maxKeys: 3 }),
    }, { requiredKeys: [] }),
    maybeDirectives,
  )
  .map(([m, d]) => ({ ...m, ...d }));

/** A strategic merge patch with directives in their places, in wrong places, and of wrong types. */
export const smpBody = fc.oneof(
  // Deployment shape.
  fc.tuple(smpMetadata, podSpec, maybeDirectives, maybeDirectives, maybeDirectives, fc.option(hostileValue)).map(([metadata, spec, dTop, dSpec, dStrategy, replicas]) => ({
    metadata,
    spec: { ...(replicas === null ? {} : { replicas }), strategy: { type: 'RollingUpdate', ...dStrategy }, template: { spec }, ...dSpec },
    ...dTop,
  })),
  // Pod / ConfigMap shape.
  fc.tuple(smpMetadata, podSpec, maybeDirectives, fc.dictionary(unicodeText, fc.oneof(unicodeText, fc.constant(null)), { maxKeys: 3 })).map(([metadata, spec, d, data]) => ({ metadata, spec, data, ...d })),
  // A directive alone, anywhere.
  fc.tuple(directiveKey, directiveValue).map(([k, v]) => ({ [k]: v })),
  fc.tuple(directiveKey, directiveValue).map(([k, v]) => ({ spec: { template: { spec: { containers: { [k]: v } } } } })),
  fc.tuple(directiveKey, directiveValue).map(([k, v]) => [{ [k]: v }]),
);

// --- Protobuf ----------------------------------------------------------------------------------

function varint(n: bigint | number): Buffer {
  let v = BigInt(n);
  if (v < 0n) v = BigInt.asUintN(64, v);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}
const tag = (field: number, wire: number) => varint((BigInt(field) << 3n) | BigInt(wire));
const lenField = (field: number, payload: Buffer) => Buffer.concat([tag(field, 2), varint(payload.length), payload]);
const strField = (field: number, s: string) => lenField(field, Buffer.from(s, 'utf8'));
const mapEntry = (field: number, k: string, v: string) => lenField(field, Buffer.concat([strField(1, k), strField(2, v)]));

/** One hostile field: wrong wire types, truncated varints, lengths far past the end, unknown and huge field numbers. */
const hostileField: fc.Arbitrary<Buffer> = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 0, max: 7 }), fc.uint8Array({ maxLength: 12 })).map(([f, w, b]) => Buffer.concat([tag(f, w), Buffer.from(b)])),
  fc.integer({ min: 1, max: 20 }).map((f) => Buffer.concat([tag(f, 0), Buffer.from([0xff, 0xff, 0xff])])),
  fc.tuple(fc.integer({ min: 1, max: 20 }), fc.constantFrom(2n ** 31n, 2n ** 32n + 5n, 2n ** 63n, 2n ** 64n - 1n, 0x7fffffffn, 4096n)).map(([f, n]) => Buffer.concat([tag(f, 2), varint(n), Buffer.from('abc')])),
  fc.tuple(fc.constantFrom(999, 2 ** 29 - 1, 536870911, 19000, 0), fc.uint8Array({ maxLength: 8 })).map(([f, b]) => lenField(f, Buffer.from(b))),
  fc.constant(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01])),
  fc.integer({ min: 50, max: 3000 }).map((d) => {
    let m = strField(1, 'deep');
    for (let i = 0; i < d; i++) m = lenField(1, m);
    return m;
  }),
  fc.tuple(unicodeText, unicodeText).map(([k, v]) => lenField(1, Buffer.concat([mapEntry(11, k, v), mapEntry(12, v, k)]))),
  fc.uint8Array({ minLength: 1, maxLength: 6 }).map((b) => lenField(1, Buffer.concat([tag(1, 2), Buffer.from([0xc3, 0x28, 0xa0, 0xa1]), Buffer.from(b)]))),
);

/** A ConfigMap-shaped inner message (metadata, data) with hostile names and keys, then hostile fields. */
const innerMessage = fc.oneof(
  fc.tuple(uniOrName, fc.array(fc.tuple(unicodeText, unicodeText), { maxLength: 3 }), fc.array(hostileField, { maxLength: 3 })).map(([name, data, extra]) =>
    Buffer.concat([lenField(1, Buffer.concat([strField(1, name), ...data.map(([k, v]) => mapEntry(11, k, v))])), ...data.map(([k, v]) => mapEntry(2, k, v)), ...extra]),
  ),
  fc.array(hostileField, { minLength: 1, maxLength: 4 }).map((fs) => Buffer.concat(fs)),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
);

const PB_TYPES = fc.constantFrom('application/vnd.kubernetes.protobuf', 'application/vnd.svc.protobuf', 'application/vnd.kubernetes.protobuf;stream=watch', 'application/vnd.svc.protobuf; charset=utf-8', 'application/vnd.kubernetes.protobuf;x=😀');
const PB_KINDS = fc.constantFrom(['v1', 'ConfigMap'], ['v1', 'ConfigMap'], ['v1', 'ConfigMap'], ['v1', 'Pod'], ['apps/v1', 'Deployment'], ['coordination.k8s.io/v1', 'Lease'], ['v1', 'Status'], ['v1', 'WatchEvent'], ['', ''], ['v9', 'Nope']);

/** `k8s\0` + runtime.Unknown{typeMeta, raw, contentEncoding, contentType}, or one with a broken envelope. */
const protobufBody = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(PB_KINDS, innerMessage, fc.constantFrom('', '', '', '', 'gzip', '😀'), fc.constantFrom('', '', '', 'application/json', 'application/vnd.kubernetes.protobuf')).map(([[av, kind], raw, enc, ct]) =>
    Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(1, Buffer.concat([strField(1, av), strField(2, kind)])), lenField(2, raw), ...(enc ? [strField(3, enc)] : []), ...(ct ? [strField(4, ct)] : [])]),
  ) },
  { weight: 2, arbitrary: fc.array(hostileField, { maxLength: 4 }).map((fs) => Buffer.concat([Buffer.from('k8s\0', 'latin1'), ...fs])) },
  { weight: 1, arbitrary: fc.tuple(PB_KINDS, innerMessage, fc.integer({ min: 0, max: 40 })).map(([[av, kind], raw, cut]) => {
    const full = Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(1, Buffer.concat([strField(1, av), strField(2, kind)])), lenField(2, raw)]);
    return full.subarray(0, Math.max(0, full.length - cut));
  }) },
  { weight: 1, arbitrary: fc.constantFrom(Buffer.from('k8s'), Buffer.from('k8s\0'), Buffer.from('K8S\0'), Buffer.from('k8s\0{"kind":"ConfigMap"}')) },
);

// --- the request families ----------------------------------------------------------------------

const ALIASES: ReadonlyArray<readonly [string, string, string, string, boolean]> = [
  // [established group, our spelling, version, resource, namespaced]
  ['rbac.authorization.k8s.io', 'rbac.authorization.svc.io', 'v1', 'roles', true],
  ['rbac.authorization.k8s.io', 'rbac.authorization.svc.io', 'v1', 'clusterroles', false],
  ['coordination.k8s.io', 'coordination.svc.io', 'v1', 'leases', true],
  ['scheduling.k8s.io', 'scheduling.svc.io', 'v1', 'priorityclasses', false],
  ['networking.k8s.io', 'networking.svc.io', 'v1', 'networkpolicies', true],
  ['storage.k8s.io', 'storage.svc.io', 'v1', 'storageclasses', false],
  ['node.k8s.io', 'node.svc.io', 'v1beta1', 'runtimeclasses', false],
  ['discovery.k8s.io', 'discovery.svc.io', 'v1', 'endpointslices', true],
  ['events.k8s.io', 'events.svc.io', 'v1', 'events', true],
  ['certificates.k8s.io', 'certificates.svc.io', 'v1', 'certificatesigningrequests', false],
  ['metrics.k8s.io', 'metrics.svc.io', 'v1beta1', 'pods', true],
  ['authorization.k8s.io', 'authorization.svc.io', 'v1', 'selfsubjectaccessreviews', false],
];
const KIND_OF: Record<string, string> = { roles: 'Role', clusterroles: 'ClusterRole', leases: 'Lease', priorityclasses: 'PriorityClass', networkpolicies: 'NetworkPolicy', storageclasses: 'StorageClass', runtimeclasses: 'RuntimeClass', endpointslices: 'EndpointSlice', events: 'Event', certificatesigningrequests: 'CertificateSigningRequest', pods: 'PodMetrics', selfsubjectaccessreviews: 'SelfSubjectAccessReview' };

const aliasRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom(...ALIASES), fc.boolean(), fc.boolean(), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.oneof(fc.constantFrom('seed-lease', 'seed-role', 'fuzz-a'), unicodeText),
    fc.constantFrom('', '/status', '/😀', '/%F0%9F%98%80'), hostileMetadata, hostileValue, fc.option(fc.constantFrom('?fieldValidation=Warn', '?fieldValidation=Strict', '?dryRun=All', '?watch=1&timeoutSeconds=1')),
  )
  .map(([[k8s, svc, v, res, namespaced], useK8s, otherApiVersion, method, name, sub, meta, spec, q]) => {
    const group = useK8s ? k8s : svc;
    const coll = `/apis/${group}/${v}/${namespaced ? `namespaces/${FUZZ_NS}/` : ''}${res}`;
    const path = method === 'POST' ? coll : `${coll}/${enc(name)}${sub}`;
    const body = { apiVersion: `${useK8s !== otherApiVersion ? k8s : svc}/${v}`, kind: KIND_OF[res], metadata: { name, ...meta }, spec, rules: spec, [name]: 1 };
    const isWrite = method !== 'GET' && method !== 'DELETE';
    const ct = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const canonical = `${coll.replace(svc, k8s)}/${enc(name)}`;
    return { method, path: path + (q ?? ''), headers: (isWrite ? { 'content-type': ct } : {}) as Record<string, string>, body: isWrite ? safeJson(body) : undefined, target: SEED_PATHS.includes(canonical) ? canonical : undefined };
  });

const smpRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.constantFrom(...SEED_PATHS.slice(0, 3)), fc.constantFrom('', '', '/status'), smpBody, fc.constantFrom('', '?fieldValidation=Strict', '?fieldValidation=Warn', '?dryRun=All', '?fieldManager=%F0%9F%98%80'))
  .map(([target, sub, body, q]) => ({ method: 'PATCH', path: target + sub + q, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: safeJson(body), target }));

const protobufRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(fc.constantFrom('POST', 'PUT', 'PATCH'), fc.constantFrom(FUZZ_CM, FUZZ_POD, FUZZ_DEPLOY, leases('coordination.k8s.io'), leases('coordination.svc.io')), protobufBody, PB_TYPES, fc.boolean(), fc.constantFrom('', '/status'))
  .map(([method, coll, body, ct, acceptPb, sub]) => {
    const seed = SEED_PATHS.find((p) => p.startsWith(coll.replace('coordination.svc.io', 'coordination.k8s.io') + '/'));
    const target = method === 'POST' ? undefined : seed;
    return { method, path: method === 'POST' ? coll : `${target ?? `${coll}/x`}${sub}`, headers: { 'content-type': ct, ...(acceptPb ? { accept: 'application/vnd.kubernetes.protobuf, application/json' } : {}) }, body, target };
  });

const openapiRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE'),
    fc.oneof(
      fc.constantFrom('/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1', '/openapi/v3/apis/apps/v1', '/openapi/v3/apis/rbac.authorization.k8s.io/v1', '/openapi/v3/apis/coordination.svc.io/v1', '/openapi/v3/apis/fuzz.example.com/v1', '/openapi/v3/', '/openapi/v3/apis', '/openapi/v3/apis/apps', '/openapi/v3/apis/apps/v1/extra', '/openapi/v2/x', '/openapi', '/swagger.json'),
      fc.tuple(fc.oneof(fc.constantFrom('apps', 'rbac.authorization.k8s.io', '..', '.', '%00', '%2F', '%2e%2e'), unicodeText.map(enc)), fc.oneof(fc.constantFrom('v1', 'v1beta1', 'v9', '', '..'), unicodeText.map(enc))).map(([g, v]) => `/openapi/v3/apis/${g}/${v}`),
    ),
    fc.oneof(
      fc.constant(''),
      fc.constantFrom('?hash=', '?hash=0', '?hash=' + 'F'.repeat(128), '?hash=' + 'F'.repeat(5000), '?hash=a&hash=b', '?timeout=1s', '?hash=%00', '?hash=%F0%9F%98%80'),
      unicodeText.map((u) => `?hash=${enc(u)}`),
    ),
    fc.constantFrom<Record<string, string>>(
      {}, { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' }, { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' }, { accept: 'application/json;q=0' },
      { accept: 'application/vnd.kubernetes.protobuf' }, { accept: 'text/plain' }, { 'if-none-match': '"x"' }, { 'if-none-match': '😀' }, { 'if-modified-since': 'yesterday' }, { 'accept-encoding': 'gzip' },
    ),
  )
  .map(([method, path, q, headers]) => ({ method, path: path + q, headers }));

const reviewRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  // Eviction of the seeded pod.
  fc.tuple(fc.constantFrom('policy/v1', 'policy/v1beta1', 'v1', '😀/v1'), fc.oneof(fc.constant('seed-pod'), unicodeText), fc.record({ gracePeriodSeconds: hostileValue, preconditions: hostileValue, propagationPolicy: fc.oneof(fc.constantFrom('Foreground', 'Orphan'), hostileValue), dryRun: fc.oneof(fc.constant(['All']), hostileValue) }, { requiredKeys: [] }), fc.constantFrom('seed-pod', 'nope'), fc.constantFrom('', '?dryRun=All', '?dryRun=All&dryRun=x'))
    .map(([apiVersion, name, deleteOptions, pod, q]) => ({ method: 'POST', path: `${FUZZ_POD}/${pod}/eviction${q}`, headers: { 'content-type': 'application/json' }, body: safeJson({ apiVersion, kind: 'Eviction', metadata: { name, namespace: name }, deleteOptions }), target: `${FUZZ_POD}/seed-pod` })),
  // Binding of the seeded pod (subresource and the namespaced bindings collection).
  fc.tuple(fc.constantFrom(`${FUZZ_POD}/seed-pod/binding`, `${NSP}/bindings`, `${FUZZ_POD}/nope/binding`), fc.oneof(fc.constant('seed-pod'), unicodeText), fc.record({ kind: fc.oneof(fc.constant('Node'), hostileValue), name: fc.oneof(fc.constantFrom('node-1', ''), unicodeText, hostileValue), apiVersion: hostileValue, namespace: hostileValue }, { requiredKeys: [] }), hostileMetadata)
    .map(([path, name, target, meta]) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: safeJson({ apiVersion: 'v1', kind: 'Binding', metadata: { name, ...meta }, target }), target: `${FUZZ_POD}/seed-pod` })),
  // Access reviews (both group spellings): the only verb is create.
  fc.tuple(fc.constantFrom('authorization.k8s.io', 'authorization.svc.io'), fc.constantFrom('selfsubjectaccessreviews', 'selfsubjectrulesreviews', 'subjectaccessreviews', 'localsubjectaccessreviews'), fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
    fc.record({ resourceAttributes: fc.oneof(fc.record({ namespace: fc.oneof(fc.constant(FUZZ_NS), unicodeText), verb: fc.oneof(fc.constantFrom('get', 'list', '*'), unicodeText), group: fc.oneof(fc.constantFrom('', 'apps'), unicodeText), resource: fc.oneof(fc.constantFrom('pods', '*'), unicodeText), subresource: unicodeText, name: unicodeText }, { requiredKeys: [] }), hostileValue), nonResourceAttributes: fc.oneof(fc.record({ path: fc.oneof(fc.constant('/healthz'), unicodeText), verb: unicodeText }), hostileValue), namespace: fc.oneof(unicodeText, hostileValue) }, { requiredKeys: [] }))
    .map(([g, res, method, spec]) => ({ method, path: `/apis/${g}/v1/${res}`, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : safeJson({ apiVersion: `${g}/v1`, kind: 'SelfSubjectAccessReview', spec }) })),
);

/** Mostly values the server takes (so that combinations get past the first check), now and then not. */
const boolish = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('true', 'false', '1', '0') }, { weight: 1, arbitrary: fc.oneof(fc.constantFrom('', 'True', 'yes'), unicodeText.map(enc)) });
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: bad });
const watchListRequest: fc.Arbitrary<HostileRequest> = fc
  .tuple(
    fc.constantFrom(FUZZ_CM, FUZZ_POD, FUZZ_DEPLOY, leases('coordination.k8s.io'), leases('coordination.svc.io'), '/api/v1/configmaps', CR, `/api/v1/watch/namespaces/${FUZZ_NS}/configmaps`, `${FUZZ_CM}/seed-cm`),
    fc.record({
      watch: boolish,
      sendInitialEvents: boolish,
      resourceVersionMatch: mostly(fc.constantFrom('NotOlderThan', 'Exact'), fc.oneof(fc.constantFrom('', 'notolderthan'), unicodeText.map(enc))),
      resourceVersion: mostly(fc.constantFrom('', '0', '1', '2', '20'), fc.oneof(fc.constantFrom('99999999', '-1', '18446744073709551616'), unicodeText.map(enc))),
      allowWatchBookmarks: boolish,
      timeoutSeconds: mostly(fc.constantFrom('0', '1', '2'), fc.oneof(fc.constantFrom('-1', '1e9', '99999999999999999999', '0.5'), unicodeText.map(enc))),
      limit: mostly(fc.constantFrom('0', '1', '500'), fc.constant('-1')),
      labelSelector: mostly(fc.constantFrom('a=b', 'a in (b,c)', '!a', 'app=seed'), unicodeText).map(enc),
      fieldSelector: mostly(fc.constantFrom('metadata.name=seed-cm', 'metadata.namespace!=x', 'metadata.name='), unicodeText).map(enc),
    }, { requiredKeys: [] }),
    fc.constantFrom<Record<string, string>>({}, { accept: 'application/json;stream=watch' }, { accept: 'application/vnd.kubernetes.protobuf;stream=watch' }, { accept: 'application/vnd.svc.protobuf;stream=watch' }, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' }),
  )
  .map(([path, params, headers]) => ({ method: 'GET', path: `${path}?${Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&')}`, headers }));

/** Header values with text outside Latin-1 (sent as their UTF-8 bytes) and, in `raw` requests, control characters. */
const hostileHeaders = fc.oneof(
  fc.dictionary(fc.constantFrom('user-agent', 'accept', 'content-type', 'x-custom', 'impersonate-user', 'audit-id', 'x-request-id', 'if-none-match', 'accept-language', 'origin', 'authorization'), unicodeText, { maxKeys: 3 }),
  fc.constantFrom<Record<string, string>>({ accept: 'application/json;😀=1' }, { 'content-type': 'application/json; charset=😀' }, { 'x-€': '1' }),
);

const unicodeRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  // Creates and updates whose names, data keys, labels, annotations and unknown field names are not Latin-1.
  fc.tuple(fc.constantFrom('POST', 'PUT'), uniOrName, fc.dictionary(unicodeText, unicodeText, { maxKeys: 3 }), fc.dictionary(unicodeText, unicodeText, { maxKeys: 3 }), fc.dictionary(unicodeText, unicodeText, { maxKeys: 2 }), fc.dictionary(unicodeText, hostileValue, { maxKeys: 2 }), fc.constantFrom('json', 'yaml', 'yaml-bom'), fc.constantFrom('', '?fieldValidation=Warn', '?fieldValidation=Strict', '?fieldValidation=Ignore', '?dryRun=All&fieldValidation=Warn'), hostileHeaders)
    .map(([method, name, data, labels, annotations, unknown, how, q, h]) => {
      const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels, annotations }, data, ...unknown };
      const body = how === 'json' ? safeJson(obj) : `${how === 'yaml-bom' ? '\ufeff' : ''}${Object.entries(obj).map(([k, v]) => `${how === 'yaml-bom' && k === 'kind' ? '\ufeff' : ''}${safeJson(k)}: ${safeJson(v)}`).join('\n')}\n`;
      const target = method === 'PUT' ? `${FUZZ_CM}/${enc(name)}` : undefined;
      return { method, path: (target ?? FUZZ_CM) + q, headers: { 'content-type': how === 'json' ? 'application/json' : 'application/yaml', ...h }, body, target: target && SEED_PATHS.includes(target) ? target : undefined };
    }),
  // JSON patches and merge patches whose paths and keys are not Latin-1.
  fc.tuple(fc.constantFrom(...SEED_PATHS), fc.array(fc.record({ op: fc.constantFrom('add', 'replace', 'remove', 'test', 'move', 'copy'), path: fc.oneof(fc.constantFrom('/😀', '/metadata/labels/😀', '/data/€', '/metadata/annotations/a~1😀', '/spec/😀/x', '/metadata/name', '/\ufeffkind', '/data/\u0000'), unicodeText.map((u) => `/data/${u}`), unicodeText.map((u) => `/${u}`)), from: fc.constantFrom('/data', '/😀', '/metadata/labels'), value: fc.oneof(unicodeText, hostileValue) }, { requiredKeys: ['op', 'path'] }), { minLength: 1, maxLength: 4 }), fc.constantFrom('', '?fieldValidation=Warn', '?fieldValidation=Strict'))
    .map(([target, ops, q]) => ({ method: 'PATCH', path: target + q, headers: { 'content-type': 'application/json-patch+json' }, body: safeJson(ops), target })),
  fc.tuple(fc.constantFrom(...SEED_PATHS), fc.dictionary(unicodeText, fc.oneof(unicodeText, hostileValue), { maxKeys: 3 }), fc.constantFrom('application/merge-patch+json', 'application/apply-patch+yaml'), fc.constantFrom('?fieldValidation=Warn', '?fieldValidation=Strict', ''), fc.oneof(fc.constant('fuzz'), unicodeText))
    .map(([target, extra, ct, q, fm]) => ({ method: 'PATCH', path: `${target}${q}${q ? '&' : '?'}fieldManager=${enc(fm)}`, headers: { 'content-type': ct }, body: ct.includes('yaml') ? `\ufeff${safeJson({ ...SURFACE_SEEDS[target]!.body, ...extra, metadata: { name: target.split('/').pop(), labels: extra } })}\n` : safeJson({ ...extra, metadata: { labels: extra, annotations: extra } }), target })),
  // Reads with a name or selector outside Latin-1, and any header.
  fc.tuple(fc.constantFrom(FUZZ_CM, FUZZ_POD, leases('coordination.k8s.io')), uniOrName, hostileHeaders).map(([coll, name, h]) => ({ method: 'GET', path: `${coll}/${enc(name)}`, headers: h })),
  // Control characters and raw bytes where a conforming client refuses to put them: header values and names.
  fc.tuple(fc.constantFrom('\u0000', '\u0001', '\u001b', '\x7f', '\r', 'é', '😀'), fc.constantFrom('x-custom', 'user-agent', 'accept', 'content-type', 'x-😀', 'x\u0001')).map(([c, name]) => ({ method: 'GET', path: `${FUZZ_CM}/seed-cm`, headers: { [name]: `a${c}b` }, raw: true })),
);

/** One request against a surface added since the first round. */
export const surfaceRequest: fc.Arbitrary<HostileRequest> = fc.oneof(
  { weight: 3, arbitrary: smpRequest },
  { weight: 3, arbitrary: protobufRequest },
  { weight: 2, arbitrary: aliasRequest },
  { weight: 1, arbitrary: openapiRequest },
  { weight: 2, arbitrary: reviewRequest },
  { weight: 2, arbitrary: watchListRequest },
  { weight: 3, arbitrary: unicodeRequest },
);
