/**
 * Audit through a real apiserver process over HTTPS (issue 26 "Proof"):
 *
 * 1. A policy with rules at every level (None, Metadata, Request, RequestResponse; omitStages at
 *    the policy's rule level, omitManagedFields, users, userGroups, verbs, resources with
 *    resourceNames, namespaces, nonResourceURLs), 1,000 mixed requests from four users (a token
 *    file; RBAC): the log holds exactly the events the policy asks for, field by field, and the
 *    webhook backend (batch mode) receives the same events as EventLists. The log rotates at 1 MB
 *    (--audit-log-maxsize=1) during the load and no event is lost across the files.
 * 2. The same server (--audit-log-mode=blocking-strict), writers creating objects as fast as they
 *    can, kill -9: every create that was acknowledged (201) has its ResponseComplete event in the log.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiServerProcess, freePort, startApiServer } from '../../helpers/apiserver.js';
import { eventually } from '../../helpers/client.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
const servers: ApiServerProcess[] = [];
/** The first test's server and log folder, killed by the second (one server start saved). */
let shared: { s: ApiServerProcess; logDir: string } | undefined;
let hook: Server | undefined;
test.after(async () => {
  for (const s of servers) {
    await s.stop('SIGKILL');
    s.cleanup();
  }
  hook?.close();
  rmSync(dir, { recursive: true, force: true });
});

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  # None: health probes, and carol's gets
  - level: None
    nonResourceURLs: ["/healthz*", "/readyz*", "/livez*"]
  - level: None
    users: ["carol"]
    verbs: ["get"]
  # RequestResponse: configmaps in team, without RequestReceived, managedFields left out
  - level: RequestResponse
    namespaces: ["team"]
    resources: [{ group: "", resources: ["configmaps"] }]
    omitStages: ["RequestReceived"]
    omitManagedFields: true
  # Request: secrets, one named secret's reads excepted (Metadata)
  - level: Metadata
    resources: [{ group: "", resources: ["secrets"], resourceNames: ["quiet"] }]
  - level: Request
    resources: [{ group: "", resources: ["secrets"] }]
  # Metadata: the devs group, and RBAC writes (established group spelling)
  - level: Metadata
    userGroups: ["devs"]
  - level: Metadata
    verbs: ["create"]
    resources: [{ group: "rbac.authorization.k8s.io", resources: ["rolebindings"] }]
  - level: None
`;

const TOKENS = ['tok-admin,admin,u-admin,"system:masters"', 'tok-alice,alice,u-alice,"devs"', 'tok-bob,bob,u-bob,', 'tok-carol,carol,u-carol,"testers"'].join('\n');

interface AuditEventJson {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; uid?: string; groups?: string[] };
  impersonatedUser?: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { code?: number; reason?: string };
  requestObject?: { metadata?: Record<string, unknown> };
  responseObject?: { kind?: string; metadata?: Record<string, unknown> };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** One request of the mix, with what the policy must make of it. */
interface Planned {
  user: 'admin' | 'alice' | 'bob' | 'carol';
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  level: 'None' | 'Metadata' | 'Request' | 'RequestResponse';
  stages: string[];
  verb: string;
  objectRef?: Record<string, string>;
}

const readLog = (paths: string[]): AuditEventJson[] =>
  paths.flatMap((p) => readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditEventJson));

const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const big = 'x'.repeat(3000);

test('a policy with rules at every level: the log and the webhook hold exactly the events it asks for, field by field; rotation loses nothing', async () => {
  const policyFile = join(dir, 'policy.yaml');
  const tokenFile = join(dir, 'tokens.csv');
  const logPath = join(dir, 'log', 'audit.log');
  writeFileSync(policyFile, POLICY);
  writeFileSync(tokenFile, TOKENS);
  // The webhook: a plain HTTP receiver of EventLists.
  const received: AuditEventJson[] = [];
  const batches: { kind: string; apiVersion: string }[] = [];
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const list = JSON.parse(body) as { kind: string; apiVersion: string; items: AuditEventJson[] };
      batches.push({ kind: list.kind, apiVersion: list.apiVersion });
      received.push(...list.items);
      res.writeHead(200).end();
    });
  });
  const hookPort = await freePort();
  await new Promise<void>((r) => hook!.listen(hookPort, '127.0.0.1', r));
  const hookConfig = join(dir, 'hook.svcconfig');
  writeFileSync(
    hookConfig,
    `apiVersion: v1\nkind: Config\nclusters: [{name: hook, cluster: {server: "http://127.0.0.1:${hookPort}/audit"}}]\nusers: [{name: api, user: {}}]\ncontexts: [{name: c, context: {cluster: hook, user: api}}]\ncurrent-context: c\n`,
  );
  const s = await startApiServer({
    args: [
      '--anonymous-auth=false',
      '--authorization-mode=RBAC',
      `--token-auth-file=${tokenFile}`,
      `--audit-policy-file=${policyFile}`,
      `--audit-log-path=${logPath}`,
      '--audit-log-maxsize=1',
      '--audit-log-mode=blocking-strict',
      `--audit-webhook-config-file=${hookConfig}`,
      '--audit-webhook-batch-max-wait=200ms',
      '--audit-webhook-version=audit.k8s.io/v1',
    ],
    readyStatus: 401,
  });
  servers.push(s);
  shared = { s, logDir: join(dir, 'log') };
  const as = (user: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer tok-${user}`, 'user-agent': `audit-test/${user}`, ...extra });

  // Set-up (admin): the namespace is not audited (the last rule), alice's RoleBinding is (Metadata).
  assert.is((await s.request('POST', '/api/v1/namespaces', { metadata: { name: 'team' } }, as('admin'))).status, 201);
  const role = { metadata: { name: 'editor' }, rules: [{ apiGroups: [''], resources: ['configmaps', 'pods'], verbs: ['*'] }] };
  assert.is((await s.request('POST', '/apis/rbac.authorization.svc.io/v1/namespaces/team/roles', role, as('admin'))).status, 201);
  const plan: Planned[] = [];
  plan.push({
    user: 'admin',
    method: 'POST',
    path: '/apis/rbac.authorization.svc.io/v1/namespaces/team/rolebindings',
    body: { metadata: { name: 'alice-edit' }, roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'editor' }, subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.svc.io' }] },
    level: 'Metadata',
    stages: ['RequestReceived', 'ResponseComplete'],
    verb: 'create',
    objectRef: { resource: 'rolebindings', namespace: 'team', name: 'alice-edit', apiGroup: 'rbac.authorization.svc.io', apiVersion: 'v1' },
  });
  const answers: { p: Planned; status: number; auditID: string; body: unknown }[] = [];
  const run = async (p: Planned) => {
    const r = await s.request(p.method, p.path, p.body, as(p.user, p.headers));
    const auditID = String(r.headers['audit-id'] ?? '');
    answers.push({ p, status: r.status, auditID, body: r.json });
    return r;
  };
  await run(plan[0]!);
  // RBAC sees the binding shortly: probed as admin acting as alice, at level None (no events).
  assert.is(answers[0]!.status, 201, JSON.stringify(answers[0]!.body));
  await eventually(async () => (await s.request('GET', '/api/v1/namespaces/team/pods', undefined, as('admin', { 'impersonate-user': 'alice' }))).status === 200, 20_000, 'alice\'s RoleBinding in force');

  // The mix: 1,000 requests, ten per configmap, in blocks of 100: the ten creates at once, then
  // the 90 other requests at once.
  const mix: Planned[] = [];
  for (let i = 0; mix.length < 1000; i++) {
    const cm = `cm-${i}`;
    const rr = ['ResponseComplete'];
    const both = ['RequestReceived', 'ResponseComplete'];
    mix.push(
      { user: 'alice', method: 'POST', path: '/api/v1/namespaces/team/configmaps', body: { metadata: { name: cm }, data: { big } }, level: 'RequestResponse', stages: rr, verb: 'create', objectRef: { resource: 'configmaps', namespace: 'team', name: cm, apiVersion: 'v1' } },
      { user: 'alice', method: 'GET', path: `/api/v1/namespaces/team/configmaps/${cm}`, level: 'RequestResponse', stages: rr, verb: 'get', objectRef: { resource: 'configmaps', namespace: 'team', name: cm, apiVersion: 'v1' }, headers: { 'audit-id': `mine-${i}` } },
      { user: 'bob', method: 'GET', path: `/api/v1/namespaces/team/configmaps/${cm}`, level: 'RequestResponse', stages: rr, verb: 'get', objectRef: { resource: 'configmaps', namespace: 'team', name: cm, apiVersion: 'v1' }, headers: { 'x-forwarded-for': '10.1.2.3' } },
      { user: 'carol', method: 'GET', path: `/api/v1/namespaces/team/configmaps/${cm}`, level: 'None', stages: [], verb: 'get' },
      { user: 'alice', method: 'GET', path: '/api/v1/namespaces/team/pods', level: 'Metadata', stages: both, verb: 'list', objectRef: { resource: 'pods', namespace: 'team', apiVersion: 'v1' } },
      { user: 'bob', method: 'GET', path: '/api/v1/namespaces/team/pods', level: 'None', stages: [], verb: 'list' },
      { user: 'admin', method: 'POST', path: '/api/v1/namespaces/team/secrets', body: { metadata: { name: `s-${i}` }, stringData: { k: 'v' } }, level: 'Request', stages: both, verb: 'create', objectRef: { resource: 'secrets', namespace: 'team', name: `s-${i}`, apiVersion: 'v1' } },
      { user: 'admin', method: 'GET', path: '/api/v1/namespaces/team/secrets/quiet', level: 'Metadata', stages: both, verb: 'get', objectRef: { resource: 'secrets', namespace: 'team', name: 'quiet', apiVersion: 'v1' } },
      { user: 'admin', method: 'GET', path: `/api/v1/namespaces/team/configmaps/${cm}`, level: 'RequestResponse', stages: rr, verb: 'get', objectRef: { resource: 'configmaps', namespace: 'team', name: cm, apiVersion: 'v1' }, headers: { 'impersonate-user': 'alice' } },
      { user: 'alice', method: 'GET', path: '/healthz', level: 'None', stages: [], verb: 'get' },
    );
  }
  for (let start = 0; start < mix.length; start += 100) {
    const block = mix.slice(start, start + 100);
    await Promise.all(block.filter((_, i) => i % 10 === 0).map(run));
    await Promise.all(block.filter((_, i) => i % 10 !== 0).map(run));
  }
  // Expected answers (the server did what the requests asked).
  for (const a of answers) {
    assert.ok(a.auditID, `every answer carries Audit-ID: ${a.p.method} ${a.p.path}`);
    if (a.p.headers?.['audit-id']) assert.is(a.auditID, a.p.headers['audit-id'], 'the client\'s Audit-ID is kept');
  }
  const statusOf = (p: Planned) => (p.user === 'bob' || p.user === 'carol' ? 403 : p.path.includes('/secrets/quiet') ? 404 : p.method === 'POST' ? 201 : 200);
  for (const a of answers) assert.is(a.status, statusOf(a.p), `${a.p.user} ${a.p.method} ${a.p.path}: ${JSON.stringify(a.body ?? null).slice(0, 300)}`);

  // The log: every file (the current one and the rotated ones) together.
  const logFiles = () => readdirSync(join(dir, 'log')).map((f) => join(dir, 'log', f));
  const expectedCount = answers.reduce((n, a) => n + a.p.stages.length, 0);
  await eventually(() => readLog(logFiles()).length >= expectedCount, 20_000, 'the log to hold every event');
  const files = logFiles();
  assert.ok(files.length >= 2, `the log rotated at 1 MB under load (files: ${files.length})`);
  for (const f of files) assert.ok(readFileSync(f).length <= 1024 * 1024, `${f} within --audit-log-maxsize`);
  const events = readLog(files);
  assert.is(events.length, expectedCount, 'exactly the events the policy asks for, none more');
  const byId = new Map<string, AuditEventJson[]>();
  for (const e of events) byId.set(e.auditID, [...(byId.get(e.auditID) ?? []), e]);

  for (const a of answers) {
    const { p } = a;
    const evs = byId.get(a.auditID) ?? [];
    const what = `${p.user} ${p.method} ${p.path}`;
    assert.equal(evs.map((e) => e.stage), p.stages, `${what}: stages`);
    for (const e of evs) {
      assert.is(e.kind, 'Event');
      assert.is(e.apiVersion, 'audit.svc.io/v1');
      assert.is(e.level, p.level, `${what}: level`);
      assert.is(e.verb, p.verb, `${what}: verb`);
      assert.is(e.requestURI, p.path, `${what}: requestURI`);
      // The authenticated user; an impersonating request names both.
      assert.is(e.user.username, p.user, `${what}: user`);
      assert.is(e.user.uid, `u-${p.user}`);
      assert.ok(e.user.groups?.includes('system:authenticated'), `${what}: groups`);
      if (p.headers?.['impersonate-user']) assert.is(e.impersonatedUser?.username, 'alice', `${what}: impersonatedUser`);
      else assert.is(e.impersonatedUser, undefined);
      assert.equal(e.sourceIPs, p.headers?.['x-forwarded-for'] ? ['10.1.2.3', '127.0.0.1'] : ['127.0.0.1'], `${what}: sourceIPs`);
      assert.is(e.userAgent, `audit-test/${p.user}`);
      assert.match(e.requestReceivedTimestamp, MICRO_TIME);
      assert.match(e.stageTimestamp, MICRO_TIME);
      assert.ok(e.stageTimestamp >= e.requestReceivedTimestamp, `${what}: stage after receipt`);
      const ref = { ...e.objectRef };
      delete ref['uid'];
      delete ref['resourceVersion'];
      const expectedRef: Record<string, string> = { ...p.objectRef };
      // A create's name comes from its body, read after RequestReceived (as established).
      if (e.stage === 'RequestReceived' && p.method === 'POST') delete expectedRef['name'];
      assert.equal(ref, p.objectRef ? expectedRef : {}, `${what}: objectRef`);
      if (e.stage === 'RequestReceived') {
        assert.is(e.responseStatus, undefined, `${what}: no status yet`);
        assert.is(e.annotations, undefined, `${what}: authorization has not run yet`);
        continue;
      }
      assert.is(e.responseStatus?.code, a.status, `${what}: responseStatus`);
      const decision = a.status === 403 ? 'forbid' : 'allow';
      assert.is(e.annotations?.['authorization.svc.io/decision'], decision, `${what}: decision annotation`);
      assert.ok('authorization.svc.io/reason' in (e.annotations ?? {}), `${what}: reason annotation`);
      if (p.user === 'alice' && decision === 'allow' && p.path.includes('configmaps')) assert.match(e.annotations!['authorization.svc.io/reason']!, /RoleBinding "alice-edit/);
      // Objects at the levels that ask for them.
      const hasRequestBody = p.body !== undefined;
      assert.is(e.requestObject !== undefined, hasRequestBody && (p.level === 'Request' || p.level === 'RequestResponse'), `${what}: requestObject`);
      assert.is(e.responseObject !== undefined, p.level === 'RequestResponse', `${what}: responseObject`);
      if (p.level === 'RequestResponse') {
        if (a.status < 300) {
          assert.is(e.responseObject!.kind, 'ConfigMap');
          assert.is((e.responseObject!.metadata as { name?: string }).name, p.objectRef!['name']);
          assert.not.ok('managedFields' in e.responseObject!.metadata!, `${what}: omitManagedFields`);
        } else {
          assert.is(e.responseObject!.kind, 'Status');
          assert.is(e.responseStatus!.reason, 'Forbidden');
        }
      }
      if (p.level === 'Request') assert.is((e.requestObject!.metadata as { name?: string }).name, p.objectRef!['name']);
    }
  }

  // The webhook (batch mode) got the same events, as audit.k8s.io/v1 EventLists.
  await eventually(() => received.length >= expectedCount, 20_000, 'the webhook to receive every event');
  assert.ok(batches.every((b) => b.kind === 'EventList' && b.apiVersion === 'audit.k8s.io/v1'));
  assert.ok(batches.length < expectedCount / 2, `events went in batches (${batches.length} batches)`);
  const key = (e: AuditEventJson) => `${e.auditID}/${e.stage}`;
  assert.equal(received.map(key).sort(), events.map(key).sort());
  assert.ok(received.every((e) => e.apiVersion === 'audit.k8s.io/v1'));
});

test('blocking-strict, kill -9 during writes: every acknowledged create has its ResponseComplete event', async () => {
  // The first test's server (--audit-log-mode=blocking-strict), its admin creating ConfigMaps in
  // team (RequestResponse) from eight writers until it is killed.
  assert.ok(shared, 'the first test started the server');
  const { s, logDir } = shared!;
  const acked = new Map<string, string>();
  let stop = false;
  let n = 0;
  const writer = async (w: number) => {
    while (!stop) {
      const name = `kill-w${w}-${n++}`;
      try {
        const r = await s.request('POST', '/api/v1/namespaces/team/configmaps', { metadata: { name } }, { authorization: 'Bearer tok-admin' });
        if (r.status === 201) acked.set(String(r.headers['audit-id']), name);
      } catch {
        return; // the server is gone: this write was not acknowledged
      }
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w));
  await eventually(() => acked.size >= 150, 30_000, '150 acknowledged creates');
  s.proc.kill('SIGKILL');
  stop = true;
  await Promise.all(writers);
  const complete = new Map<string, AuditEventJson>();
  const files = readdirSync(logDir).map((f) => join(logDir, f));
  for (const e of readLog(files)) if (e.stage === 'ResponseComplete') complete.set(e.auditID, e);
  let missing = 0;
  for (const [id, name] of acked) {
    const e = complete.get(id);
    if (!e) {
      missing++;
      continue;
    }
    assert.is(e.objectRef?.['name'], name);
    assert.is(e.responseStatus?.code, 201);
  }
  assert.is(missing, 0, `${missing} of ${acked.size} acknowledged creates have no ResponseComplete event`);
});

test.run();
