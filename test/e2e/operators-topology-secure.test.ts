// The operators' topology (test/helpers/topology.ts) secured as an established cluster runs it:
// `startTopology({ secure: true })` — the apiserver under `--authorization-mode=Node,RBAC
// --anonymous-auth=false` with client certificates, service-account signing and NodeRestriction;
// each daemon with its own certificate (schedulers `system:svc-scheduler`, controller managers
// `system:svc-controller-manager` with `--use-service-account-credentials`, `svc nodes`
// `system:svc-nodes` with `--node-identity=impersonate`), the test and kubectl 1.35 as a
// `system:masters` certificate. A subset of the workload checks of ./operators-topology.ts passes
// against it, and a node identity that tries to change another node is refused (403).
import * as assert from 'uvu/assert';
import { suite } from 'uvu';
import { Agent, fetch } from 'undici';
import type { Node } from '../../src/api/generated/kinds.js';
import { connect, type Connection } from '../../src/client/connect.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { eventually } from '../helpers/client.js';
import type { IssuedCertificate } from '../helpers/pki.js';
import { SVC_BIN } from '../helpers/svc-process.js';
import { startTopology } from '../helpers/topology.js';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Deployment } from '../../src/api/generated/kinds.js';
import type { LifecycleFacts, LifecycleObjectFacts } from '../../src/runtime/lifecycle-tracker.js';
import { prepareChecks, topologyChecks, type CheckContext } from './operators-topology.js';

const test = suite("operators' topology, secure (Node,RBAC, an identity per daemon)");
const ctx = {} as CheckContext;
const checks = topologyChecks(ctx);
const startedAt = Date.now();

/** The error a call fails with (it must fail). */
async function refusal(call: () => Promise<unknown>): Promise<ApiError> {
  try {
    await call();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('the call was allowed');
}

test.before(async () => {
  ctx.topo = await startTopology({ secure: true });
  console.log(`  secure topology up in ${Date.now() - startedAt} ms`);
  await prepareChecks(ctx);
});

test.after(async () => {
  await ctx.topo?.stop();
  console.log(`  secure suite: ${Date.now() - startedAt} ms`);
});

test('the apiserver refuses anonymous requests; each daemon is its own user, not an administrator', async () => {
  const anonymous = await ctx.topo.server.request('GET', '/api/v1/namespaces');
  assert.is(anonymous.status, 401, anonymous.text);
  const ids = ctx.topo.identities!;
  for (const [file, user] of [[ids.scheduler, 'system:svc-scheduler'], [ids.controllerManager, 'system:svc-controller-manager'], [ids.nodes, 'system:svc-nodes']] as const) {
    const c = connect({ svcconfig: file });
    try {
      const e = await refusal(() => c.client.create(resources.namespaces, '', { metadata: { name: 'not-yours' } }));
      assert.is(e.code, 403, e.message);
      assert.match(e.message, `User "${user}" cannot create resource "namespaces"`);
    } finally {
      await c.close();
    }
  }
});

test(checks.daemonsRun.title, () => checks.daemonsRun.run());

test('the controllers run as their own service accounts (--use-service-account-credentials)', async () => {
  for (const m of ctx.topo.managers) assert.ok(m.process.lines.some((l) => l.msg === 'controllers use their own service-account credentials'), m.process.output());
  for (const account of ['replicaset-controller', 'deployment-controller', 'generic-garbage-collector', 'job-controller', 'namespace-controller']) {
    await ctx.topo.api.client.get(resources.serviceaccounts, 'svc-system', account);
  }
});

for (const check of [checks.garbageCollectorSyncs, checks.deploymentsRollOut, checks.deleting, checks.jobCompletes]) {
  test(check.title, () => check.run());
}

test("a node identity that tries to change another node is refused (Node mode + NodeRestriction); its own node it may label", async () => {
  const names = (await ctx.topo.api.client.list<Node>(resources.nodes)).items.map((n) => n.metadata.name!).sort();
  assert.ok(names.length >= 2, `two nodes at least: ${names.join(', ')}`);
  const [self, other] = names as [string, string];
  // The fleet's own credential, impersonating one node, as `svc nodes --node-identity=impersonate` does.
  const asNode: Connection = connect({ svcconfig: ctx.topo.identities!.nodes, impersonate: { user: `system:node:${self}`, groups: ['system:nodes'] } });
  const fleet: Connection = connect({ svcconfig: ctx.topo.identities!.nodes });
  try {
    const labels = { metadata: { labels: { 'example.com/touched-by': self } } };
    const e = await refusal(() => asNode.client.patch(resources.nodes, '', other, 'merge', labels));
    assert.is(e.code, 403, e.message);
    assert.match(e.message, `node "${self}" is not allowed to modify node "${other}"`);
    const status = await refusal(() =>
      asNode.client.patch(resources.nodes, '', other, 'merge', { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Hijacked' }] } }, { subresource: 'status' }),
    );
    assert.is(status.code, 403, status.message);
    assert.match(status.message, `node "${self}" is not allowed to modify node "${other}"`);
    const untouched = await ctx.topo.api.client.get<Node>(resources.nodes, '', other);
    assert.is(untouched.metadata.labels?.['example.com/touched-by'], undefined);
    assert.ok(untouched.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'), 'the other node is still Ready');
    // The same identity may change its own Node, so the refusal above is about the other node.
    await asNode.client.patch(resources.nodes, '', self, 'merge', labels);
    assert.is((await ctx.topo.api.client.get<Node>(resources.nodes, '', self)).metadata.labels?.['example.com/touched-by'], self);
    // Without impersonating, the fleet's own credential only reads nodes.
    const own = await refusal(() => fleet.client.patch(resources.nodes, '', other, 'merge', labels));
    assert.is(own.code, 403, own.message);
    assert.match(own.message, 'User "system:svc-nodes" cannot patch resource "nodes"');
    // The nodes keep heartbeating as themselves meanwhile.
    await eventually(async () => (await ctx.topo.api.client.list<Node>(resources.nodes)).items.length === names.length, 10_000, 'nodes still there');
  } finally {
    await asNode.close();
    await fleet.close();
  }
});

test("the daemons' own ports: /healthz open, /metrics by SubjectAccessReview with the daemon's own credential", async () => {
  const ids = ctx.topo.identities!;
  const admin = await ids.ca.issue({ cn: 'metrics-admin', orgs: ['system:masters'] });
  const stranger = await ids.ca.issue({ cn: 'stranger', orgs: ['devs'] });
  const agent = (cert?: IssuedCertificate) => new Agent({ connect: { rejectUnauthorized: false, ...(cert ? { cert: cert.certPem, key: cert.keyPem } : {}) } });
  const [anonymous, asAdmin, asStranger] = [agent(), agent(admin), agent(stranger)];
  try {
    for (const r of [...ctx.topo.schedulers, ...ctx.topo.managers]) {
      const get = async (path: string, dispatcher: Agent) => {
        const res = await fetch(`https://127.0.0.1:${r.port}${path}`, { dispatcher });
        return { status: res.status, text: await res.text() };
      };
      assert.is((await get('/healthz', anonymous)).status, 200);
      assert.is((await get('/metrics', asAdmin)).status, 200);
      const refused = await get('/metrics', asStranger);
      assert.is(refused.status, 403, refused.text);
      assert.match((JSON.parse(refused.text) as { message: string }).message, 'User "stranger" cannot get path "/metrics"', refused.text);
      assert.is((await get('/metrics', anonymous)).status, 403);
    }
  } finally {
    await Promise.all([anonymous.close(), asAdmin.close(), asStranger.close()]);
  }
});

test('a rollout held by readiness: /debug/controllers, /debug/machines and svc explain show its state and what holds it, then complete', async () => {
  const cm = await ctx.topo.leaderOf(ctx.topo.managers, 'svc-controller-manager');
  assert.ok(cm, 'a leading controller manager');
  const admin = await ctx.topo.identities!.ca.issue({ cn: 'explainer', orgs: ['system:masters'] });
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false, cert: admin.certPem, key: admin.keyPem } });
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`https://127.0.0.1:${cm.port}${path}`, { dispatcher });
    return { status: res.status, body: (await res.json()) as T };
  };
  const explain = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, [SVC_BIN, 'explain', ...args, '--svcconfig', ctx.topo.adminConfig, '--controller-manager', `https://127.0.0.1:${cm.port}`, '--insecure-skip-tls-verify'])).stdout;
  try {
    const d: Deployment = {
      metadata: { name: 'held', namespace: 'ops' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'held' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: { metadata: { labels: { app: 'held' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      },
    };
    await ctx.topo.api.client.create(resources.deployments, 'ops', d);
    await eventually(async () => (await get<LifecycleObjectFacts>('/debug/controllers/deployment/objects/ops/held')).body.state === 'complete', 60_000, 'first complete');
    // The new template's pods become ready 8 s after they start: the rollout waits on each, one surge at a time.
    await ctx.topo.api.client.patch(resources.deployments, 'ops', 'held', 'merge', {
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28', readinessProbe: { httpGet: { port: 80 }, initialDelaySeconds: 8, periodSeconds: 1 } }] } } },
    });
    let held: LifecycleObjectFacts | undefined;
    await eventually(async () => {
      const r = await get<LifecycleObjectFacts>('/debug/controllers/deployment/objects/ops/held');
      if (r.status === 200 && r.body.state === 'progressing.waitingForAvailable') held = r.body;
      return held !== undefined;
    }, 60_000, 'the Deployment waiting on available pods');
    assert.match(held!.holds ?? '', /^waiting: [01] of 2 new pods available, maxUnavailable 0, [12] old pods left$/);
    assert.ok(held!.transitions.some((t) => t.from === 'complete' && t.to.startsWith('progressing.')), JSON.stringify(held));
    // svc explain says the same, from the command line.
    const text = await explain('deployment/held', '-n', 'ops');
    assert.match(text, /^Deployment ops\/held \(controller deployment\)$/m);
    assert.match(text, /^State: +progressing\.(waitingForAvailable|surging|drainingOld) for \d+s/m, text);
    assert.match(text, /^Held by: +(waiting: [01] of 2 new pods available, maxUnavailable 0, [12] old pods left|.*maxSurge 1.*|.*maxUnavailable 0.*)$/m, text);
    // The machines page's JSON carries the same per controller.
    const machines = await get<{ actors: Array<{ live?: { controller?: string; lifecycle?: LifecycleFacts } }> }>('/debug/machines');
    const live = machines.body.actors.find((a) => a.live?.controller === 'deployment')?.live?.lifecycle;
    assert.ok(live, 'the deployment controller reports its lifecycle');
    assert.is(live.chart, 'lifecycle/deployment');
    assert.is((await fetch(`https://127.0.0.1:${cm.port}/debug/machines/charts/${encodeURIComponent('lifecycle/deployment')}.svg`, { dispatcher })).status, 200);
    // Once every pod is ready: complete, and explain says so.
    await eventually(async () => (await get<LifecycleObjectFacts>('/debug/controllers/deployment/objects/ops/held')).body.state === 'complete', 60_000, 'complete');
    assert.match(await explain('deploy/held', '-n', 'ops'), /^State: +complete for \d+s/m);
    assert.match(await explain('deploy/held', '-n', 'ops', '-o', 'json'), /"holds": "2 of 2 available on the current template"/);
    // An object it does not follow, and a type without a lifecycle, are refused with a reason.
    const missing = await explain('deployment/nope', '-n', 'ops').then(() => '', (e: { stderr: string }) => e.stderr);
    assert.match(missing, /follows no Deployment "ops\/nope"/);
    const noLifecycle = await explain('configmap/x').then(() => '', (e: { stderr: string }) => e.stderr);
    assert.match(noLifecycle, /no built-in controller follows ConfigMap objects through a lifecycle/);
  } finally {
    await dispatcher.close();
  }
});

test('no daemon was refused anything by RBAC: the default policy covers what each does', () => {
  for (const p of ctx.topo.processes()) {
    const refused = p.output().split('\n').filter((l) => /is forbidden: User /.test(l));
    assert.equal(refused.map((l) => l.slice(0, 400)), [], `pid ${p.pid}`);
  }
});

test.run();
