/**
 * The audit rules in unit form: policy parsing and evaluation (first matching rule, every selector,
 * wildcards and subresources, omitStages union, omitManagedFields), the event's wire form (JSON and
 * legacy) and source addresses, the log writer's rotation and retention, and the batch and
 * truncation wrappers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { evaluatePolicy, parsePolicy, PolicyError } from '../../../src/apiserver/audit/policy.js';
import { type AuditEvent, encodeEventJson, encodeEventLegacy, formatMicroTime, sourceIPs } from '../../../src/apiserver/audit/event.js';
import { backupName, backupTime, LogBackend } from '../../../src/apiserver/audit/log-backend.js';
import { type AuditBackend, BufferedBackend, TRUNCATED_ANNOTATION, TruncateBackend } from '../../../src/apiserver/audit/backend.js';
import type { RequestInfo } from '../../../src/apiserver/request-info.js';
import { addAuditAnnotation, RequestAudit } from '../../../src/apiserver/audit/auditor.js';
import type { Response } from '../../../src/apiserver/http.js';
import { StatusError } from '../../../src/api/status.js';

const logger = pino({ level: 'silent' });

const POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods/log", "*/status"]
  - level: Request
    userGroups: ["editors"]
    namespaces: ["team"]
    omitStages: [ResponseStarted]
    omitManagedFields: true
  - level: Metadata
    resources:
      - group: rbac.authorization.k8s.io
        resources: ["roles"]
        resourceNames: ["admin"]
      - group: apps
        resources: ["deployments/*"]
  - level: Request
    resources: [{ group: "" , resources: ["secrets"] }]
    verbs: [get]
  - level: Metadata
    verbs: [create, delete]
`;

const res = (verb: string, resource: string, o: Partial<{ group: string; namespace: string; name: string; subresource: string }> = {}): RequestInfo => ({
  isResourceRequest: true,
  path: '/x',
  verb: verb as 'get',
  apiPrefix: 'api',
  group: o.group ?? '',
  spelling: 'svc',
  version: 'v1',
  namespace: o.namespace ?? '',
  resource,
  name: o.name ?? '',
  subresource: o.subresource ?? '',
});
const nonRes = (path: string, verb = 'get'): RequestInfo => ({ isResourceRequest: false, path, verb });
const user = (username: string, groups: string[] = []) => ({ username, groups });

test('policy: the first matching rule decides, each selector as established', () => {
  const p = parsePolicy(POLICY, 'policy.yaml');
  const lv = (u: ReturnType<typeof user> | undefined, i: RequestInfo) => evaluatePolicy(p, u, i).level;
  assert.is(lv(user('system:kube-proxy'), res('watch', 'endpoints')), 'None');
  assert.is(lv(user('system:kube-proxy'), res('create', 'pods')), 'Metadata', 'users and verbs must both match');
  assert.is(lv(user('a'), nonRes('/healthz/etcd')), 'None', 'prefix wildcard');
  assert.is(lv(user('a'), nonRes('/version')), 'None');
  assert.is(lv(user('a'), nonRes('/versions', 'post')), 'None', 'no rule matches -> None');
  assert.is(lv(user('a'), res('get', 'pods', { subresource: 'log', namespace: 'x', name: 'p' })), 'RequestResponse', 'pods/log');
  assert.is(lv(user('a'), res('update', 'nodes', { subresource: 'status', name: 'n' })), 'RequestResponse', '*/status');
  assert.is(lv(user('a'), res('get', 'pods', { namespace: 'x', name: 'p' })), 'None');
  assert.is(lv(user('b', ['editors']), res('get', 'configmaps', { namespace: 'team' })), 'Request', 'userGroups + namespaces');
  assert.is(lv(user('b', ['editors']), res('get', 'configmaps', { namespace: 'other' })), 'None');
  assert.is(lv(user('b'), res('get', 'roles', { group: 'rbac.authorization.svc.io', namespace: 'x', name: 'admin' })), 'Metadata', 'established group spelling and resourceNames');
  assert.is(lv(user('b'), res('get', 'roles', { group: 'rbac.authorization.svc.io', namespace: 'x', name: 'viewer' })), 'None');
  assert.is(lv(user('b'), res('patch', 'deployments', { group: 'apps', namespace: 'x', name: 'd', subresource: 'scale' })), 'Metadata', 'resource/*');
  assert.is(lv(user('b'), res('get', 'secrets', { namespace: 'x', name: 's' })), 'Request');
  assert.is(lv(user('b'), res('list', 'secrets', { namespace: 'x' })), 'None', 'verbs narrow a resource rule');
  assert.is(lv(user('b'), res('create', 'configmaps', { namespace: 'x' })), 'Metadata');
  assert.is(lv(undefined, res('delete', 'configmaps', { namespace: 'x', name: 'c' })), 'Metadata', 'no user: only rules without users/groups');
  assert.is(lv(undefined, res('get', 'configmaps', { namespace: 'team' })), 'None');
});

test('policy: omitted stages are the policy\'s plus the rule\'s; omitManagedFields the rule\'s over the policy\'s', () => {
  const p = parsePolicy(POLICY, 'policy.yaml');
  const c = evaluatePolicy(p, user('b', ['editors']), res('get', 'configmaps', { namespace: 'team' }));
  assert.equal([...c.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.is(c.omitManagedFields, true);
  const d = evaluatePolicy(p, user('b'), res('create', 'configmaps', { namespace: 'x' }));
  assert.equal([...d.omitStages], ['RequestReceived']);
  assert.is(d.omitManagedFields, false);
  const q = parsePolicy('{"apiVersion":"audit.svc.io/v1","kind":"Policy","omitManagedFields":true,"rules":[{"level":"Metadata"}]}', 'p.json');
  assert.is(evaluatePolicy(q, user('x'), nonRes('/metrics')).omitManagedFields, true, 'policy default, JSON accepted');
});

test('policy: bad files are refused with the reason', () => {
  const bad: [string, RegExp][] = [
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []', /0 rules/],
    ['apiVersion: audit.k8s.io/v1beta9\nkind: Policy\nrules: [{level: Metadata}]', /apiVersion "audit.k8s.io\/v1beta9" is not supported/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]', /rules\[0\].level: Unsupported value: "Everything"/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{}]', /rules\[0\].level: Required value/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, omitStages: [Done]}]', /Unsupported value: "Done"/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, nonResourceURLs: ["/x"], namespaces: [a]}]', /both regular resources and non-resource URLs/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, nonResourceURLs: ["/x*y"]}]', /only allowed as the last character/],
    ['apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata, resources: [{resources: ["*"], resourceNames: [a]}]}]', /resourceNames with a wildcard/],
    ['kind: [', /not a YAML or JSON document/],
  ];
  for (const [text, re] of bad) {
    try {
      parsePolicy(text, 'p.yaml');
      assert.unreachable(text);
    } catch (err) {
      assert.instance(err, PolicyError, text);
      assert.match((err as Error).message, re, text);
    }
  }
});

const event = (over: Partial<AuditEvent> = {}): AuditEvent => ({
  level: 'Metadata',
  auditID: 'a1',
  stage: 'ResponseComplete',
  requestURI: '/api/v1/namespaces/x/pods?limit=5',
  verb: 'list',
  user: { username: 'alice', groups: ['g1', 'system:authenticated'] },
  sourceIPs: ['10.0.0.1'],
  userAgent: 'kubectl/v1.35',
  objectRef: { resource: 'pods', namespace: 'x', apiVersion: 'v1' },
  responseStatus: { code: 200 },
  requestReceivedTimestamp: Date.UTC(2026, 0, 2, 15, 4, 5, 123) + 0.456,
  stageTimestamp: Date.UTC(2026, 0, 2, 15, 4, 5, 124),
  ...over,
});

test('event: JSON field order, omissions and MicroTime as established', () => {
  const line = encodeEventJson(event({ annotations: { 'authorization.svc.io/decision': 'allow' } }), 'audit.svc.io/v1');
  assert.is(
    line,
    '{"kind":"Event","apiVersion":"audit.svc.io/v1","level":"Metadata","auditID":"a1","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/x/pods?limit=5","verb":"list",' +
      '"user":{"username":"alice","groups":["g1","system:authenticated"]},"sourceIPs":["10.0.0.1"],"userAgent":"kubectl/v1.35",' +
      '"objectRef":{"resource":"pods","namespace":"x","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":200},' +
      '"requestReceivedTimestamp":"2026-01-02T15:04:05.123456Z","stageTimestamp":"2026-01-02T15:04:05.124000Z","annotations":{"authorization.svc.io/decision":"allow"}}',
  );
  assert.is(formatMicroTime(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00.000000Z');
});

test('event: the legacy line', () => {
  assert.is(
    encodeEventLegacy(event({ impersonatedUser: { username: 'bob', groups: ['x'] } })),
    '2026-01-02T15:04:05.123456Z AUDIT: id="a1" stage="ResponseComplete" ip="10.0.0.1" method="list" user="alice" groups="\\"g1\\",\\"system:authenticated\\"" as="bob" asgroups="\\"x\\"" user-agent="kubectl/v1.35" namespace="x" uri="/api/v1/namespaces/x/pods?limit=5" response="200"',
  );
  const bare = encodeEventLegacy(event({ user: {}, sourceIPs: [], objectRef: undefined, responseStatus: undefined, requestReceivedTimestamp: Date.UTC(2026, 0, 2) }));
  assert.match(bare, /^2026-01-02T00:00:00Z AUDIT: id="a1" .* ip="<unknown>" method="list" user="<none>" groups="<none>" as="<self>" asgroups="<lookup>" .* namespace="<none>" .* response="<deferred>"$/);
});

test('sourceIPs: X-Forwarded-For, X-Real-Ip, then the connection (not repeated)', () => {
  assert.equal(sourceIPs({}, '::ffff:127.0.0.1'), ['127.0.0.1']);
  assert.equal(sourceIPs({ 'x-forwarded-for': '1.2.3.4, bogus, 5.6.7.8' }, '9.9.9.9'), ['1.2.3.4', '5.6.7.8', '9.9.9.9']);
  assert.equal(sourceIPs({ 'x-forwarded-for': '1.2.3.4', 'x-real-ip': '1.2.3.4' }, '1.2.3.4'), ['1.2.3.4']);
  assert.equal(sourceIPs({ 'x-real-ip': '2001:db8::1' }, '10.0.0.2'), ['2001:db8::1', '10.0.0.2']);
});

test('log backend: rotation at maxsize keeps every line; maxbackup removes the oldest backups', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  try {
    const path = join(dir, 'audit.log');
    // Old backups (by name): one beyond the age limit, two recent.
    writeFileSync(backupName(path, Date.now() - 40 * 86400_000), 'old\n');
    const b = new LogBackend({ path, format: 'json', apiVersion: 'audit.svc.io/v1', maxAgeDays: 30, maxBackups: 3, maxSizeMB: 1 }, logger);
    const big = 'x'.repeat(2000);
    let n = 0;
    // Written concurrently (group commit), each acknowledged.
    const acks: (boolean | Promise<boolean>)[] = [];
    for (let i = 0; i < 1500; i++) acks.push(b.processEvents([event({ auditID: `id-${n++}`, userAgent: big }), event({ auditID: `id-${n++}`, userAgent: big })]));
    assert.ok((await Promise.all(acks)).every(Boolean));
    await b.shutdown();
    const files = readdirSync(dir);
    const backups = files.filter((f) => backupTime(path, f) !== undefined);
    assert.is(backups.length, 3, `files: ${files.join(' ')}`);
    assert.not.ok(files.some((f) => readFileSync(join(dir, f), 'utf8') === 'old\n'), 'the 40-day-old backup is gone');
    for (const f of files) assert.ok(readFileSync(join(dir, f)).length <= 1024 * 1024, `${f} within 1 MB`);
    // Nothing lost in the files kept: the ids are consecutive up to the last one written.
    const ids = files.flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).map((l) => Number((JSON.parse(l) as { auditID: string }).auditID.slice(3)))).sort((x, y) => x - y);
    for (let i = 1; i < ids.length; i++) assert.is(ids[i], ids[i - 1]! + 1);
    assert.is(ids[ids.length - 1], n - 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('log backend: an event larger than the file limit is refused (false)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-log-'));
  try {
    const b = new LogBackend({ path: join(dir, 'a.log'), format: 'json', apiVersion: 'audit.svc.io/v1', maxAgeDays: 0, maxBackups: 0, maxSizeMB: 1 }, logger);
    assert.is(await b.processEvents([event({ userAgent: 'x'.repeat(1024 * 1024 + 1) })]), false);
    assert.is(await b.processEvents([event()]), true);
    await b.shutdown();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.is(backupTime('/a/audit.log', 'audit-2026-01-02T15-04-05.000.log'), Date.UTC(2026, 0, 2, 15, 4, 5));
  assert.is(backupName('/a/audit.log', Date.UTC(2026, 0, 2, 15, 4, 5, 7)), '/a/audit-2026-01-02T15-04-05.007.log');
  void utimesSync;
});

class Recorder implements AuditBackend {
  readonly batches: AuditEvent[][] = [];
  processEvents(events: readonly AuditEvent[]): boolean {
    this.batches.push([...events]);
    return true;
  }
  async shutdown(): Promise<void> {}
}

test('batch: max size, max wait, a full buffer drops, shutdown sends the rest', async () => {
  const r = new Recorder();
  const b = new BufferedBackend(r, { bufferSize: 5, maxBatchSize: 2, maxBatchWaitMs: 50, throttleEnable: false, throttleQps: 0, throttleBurst: 0 }, logger, 'test');
  for (let i = 0; i < 7; i++) b.processEvents([event({ auditID: String(i) })]);
  await new Promise((res) => setTimeout(res, 10));
  assert.equal(r.batches.map((x) => x.map((e) => e.auditID)), [['0', '1'], ['2', '3']], 'two full batches at once; 5 and 6 dropped (buffer of 5)');
  await new Promise((res) => setTimeout(res, 100));
  assert.equal(r.batches.map((x) => x.length), [2, 2, 1], 'the partial batch after max wait');
  b.processEvents([event({ auditID: 'last' })]);
  await b.shutdown();
  assert.is(r.batches.at(-1)?.[0]?.auditID, 'last');
});

test('batch: throttling spaces batches at qps', async () => {
  const r = new Recorder();
  const b = new BufferedBackend(r, { bufferSize: 100, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: true, throttleQps: 20, throttleBurst: 1 }, logger, 'test');
  const t0 = Date.now();
  for (let i = 0; i < 5; i++) b.processEvents([event()]);
  await b.shutdown();
  assert.is(r.batches.length, 5);
  // Shutdown stops throttling; wait for the ones sent before.
  const r2 = new Recorder();
  const b2 = new BufferedBackend(r2, { bufferSize: 100, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: true, throttleQps: 20, throttleBurst: 1 }, logger, 'test');
  for (let i = 0; i < 5; i++) b2.processEvents([event()]);
  await new Promise((res) => setTimeout(res, 120));
  assert.ok(r2.batches.length >= 2 && r2.batches.length <= 4, `about 20/s: ${r2.batches.length} in 120 ms`);
  await b2.shutdown();
  assert.ok(Date.now() - t0 < 2000);
});

test('truncate: objects dropped first (annotated), then the event; batches split by size', () => {
  const r = new Recorder();
  const t = new TruncateBackend(r, { enabled: true, maxEventSize: 1000, maxBatchSize: 1000 }, 'audit.svc.io/v1', logger);
  t.processEvents([
    event({ auditID: 'small' }),
    event({ auditID: 'objects', requestObject: { big: 'y'.repeat(3000) } }),
    event({ auditID: 'huge', userAgent: 'z'.repeat(3000) }),
  ]);
  assert.equal(r.batches.map((b) => b.map((e) => e.auditID)), [['small'], ['objects']]);
  const truncated = r.batches[1]![0]!;
  assert.is(truncated.requestObject, undefined);
  assert.is(truncated.annotations?.[TRUNCATED_ANNOTATION], 'true');
});

class Failing implements AuditBackend {
  readonly stages: string[] = [];
  constructor(private readonly failOn: string) {}
  processEvents(events: readonly AuditEvent[]): boolean {
    this.stages.push(...events.map((e) => e.stage));
    return !events.some((e) => e.stage === this.failOn);
  }
  async shutdown(): Promise<void> {}
}

function fakeResponse() {
  const calls: string[] = [];
  const res = {
    statusCode: 201,
    headersSent: false,
    writableEnded: false,
    setHeader: () => undefined,
    writeHead: () => calls.push('writeHead'),
    write: () => true,
    end: () => calls.push('end'),
    on: () => undefined,
    stream: { close: () => calls.push('reset') },
  };
  return { res: res as unknown as Response, calls };
}

test('blocking-strict: RequestReceived not stored fails the request (500); ResponseComplete not stored resets instead of answering', async () => {
  const cfg = { level: 'Metadata' as const, omitStages: new Set<never>(), omitManagedFields: false };
  const a = new RequestAudit(new Failing('RequestReceived'), cfg, event({ stage: 'RequestReceived' }), false, logger);
  try {
    await a.received();
    assert.unreachable('must fail');
  } catch (err) {
    assert.instance(err, StatusError);
    assert.is((err as StatusError).status.code, 500);
    assert.is((err as StatusError).status.message, 'Internal error occurred: failed to store audit event');
  }
  // The response written after it does not produce more events.
  const failing = new Failing('ResponseComplete');
  const b = new RequestAudit(failing, cfg, event({ stage: 'RequestReceived' }), false, logger);
  const { res, calls } = fakeResponse();
  b.attach({} as never, res);
  await b.received();
  res.writeHead(201, {});
  res.end('{}');
  assert.equal(calls, ['writeHead', 'reset'], 'no answer without its event');
  assert.equal(failing.stages, ['RequestReceived', 'ResponseComplete']);
  // A backend that stores it: the answer goes out after the event.
  const ok = new Failing('none');
  const c = new RequestAudit(ok, cfg, event({ stage: 'RequestReceived' }), false, logger);
  const second = fakeResponse();
  c.attach({} as never, second.res);
  second.res.end('{}');
  assert.equal(second.calls, ['end']);
  assert.equal(ok.stages, ['ResponseComplete']);
});

test('annotations: the first value of a key stays; they reach the events after RequestReceived', async () => {
  const cfg = { level: 'Metadata' as const, omitStages: new Set<never>(), omitManagedFields: false };
  const rec = new Recorder();
  const a = new RequestAudit(rec, cfg, event({ stage: 'RequestReceived', annotations: undefined }), false, logger);
  const req = {} as never;
  const { res } = fakeResponse();
  a.attach(req, res);
  await a.received();
  addAuditAnnotation(req, 'mutation.webhook.admission.svc.io/round_0_index_0', '{"configuration":"c"}');
  addAuditAnnotation(req, 'mutation.webhook.admission.svc.io/round_0_index_0', 'second');
  addAuditAnnotation({} as never, 'elsewhere', 'x');
  res.end();
  assert.equal(rec.batches.map((b) => b[0]!.annotations), [undefined, { 'mutation.webhook.admission.svc.io/round_0_index_0': '{"configuration":"c"}' }]);
});

test.run();
