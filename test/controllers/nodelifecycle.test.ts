// The nodelifecycle controller (with the taint manager) and the ttl controller against real
// daemons: the API server (TaintNodesByCondition and DefaultTolerationSeconds on), the controller
// manager (`--controllers=nodelifecycle,replicaset,ttl`, short grace periods by flag), the
// scheduler and `svc nodes` (four nodes over three zones), all processes over HTTPS.
//
// - New nodes come up with the not-ready NoSchedule taint, lifted once Ready; pods get the default
//   NoExecute tolerations of 300 s; every node gets the ttl annotation.
// - One node's heartbeats stop (sim.svc.io/faults): Ready and the pressure conditions go Unknown
//   (NodeStatusUnknown), the unreachable NoSchedule and NoExecute taints come; its ReplicaSet pods
//   are deleted after their tolerationSeconds (2 s) and replaced on other nodes; recovery lifts the
//   taints.
// - Every node stops (every zone in FullDisruption): no NoExecute taint is kept and no pod is
//   evicted, as established; recovery makes them Ready again.
// - Every node reports Ready False (the not-ready fault): not-ready NoSchedule, no NoExecute.
// - The node lifecycle chart: every state drawn was entered (the manager's /debug/machines).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Event, Node, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { resources, type ApiClient } from '../../src/client/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { assertStatesEntered, enteredIn } from '../helpers/lifecycle-coverage.js';
import { nodeLifecycle } from '../../machines/lifecycles/nodelifecycle.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { replicaSet } from '../helpers/objects.js';
import { realClient } from '../helpers/real-client.js';
import { CONTROLLER_MANAGER_BIN, SCHEDULER_BIN, startExecutable, startSvc, type SvcProcess } from '../helpers/svc-process.js';

const NODES = ['sim-node-0', 'sim-node-1', 'sim-node-2', 'sim-node-3'];
const TOLERATION_SECONDS = 2;

let server: ApiServerProcess;
let api: { client: ApiClient; close(): Promise<void> };
const daemons: SvcProcess[] = [];
let dir: string;
let managerPort: number;

test.before(async () => {
  server = await startApiServer({ taintNodesByCondition: true });
  api = realClient(server);
  const svcconfig = writeSvcconfig(server);
  dir = mkdtempSync(join(tmpdir(), 'svc-nl-'));
  managerPort = await freePort();
  daemons.push(
    startExecutable(CONTROLLER_MANAGER_BIN, [
      // The secure port serves /debug/machines (the node lifecycle's entered states) to the test.
      `--svcconfig=${svcconfig}`, '--leader-elect=false', '--bind-address=127.0.0.1', `--secure-port=${managerPort}`, `--cert-dir=${join(dir, 'certs')}`,
      '--authorization-always-allow-paths=/debug/machines', '--controllers=nodelifecycle,replicaset,ttl',
      '--node-monitor-period=500ms', '--node-monitor-grace-period=4s', '--node-startup-grace-period=8s', '--node-eviction-rate=10',
    ]),
    startExecutable(SCHEDULER_BIN, [`--svcconfig=${svcconfig}`, '--port=0', '--secure-port=0']),
    startSvc(['nodes', `--svcconfig=${svcconfig}`, `--count=${NODES.length}`, '--node-lease-renew-interval=500ms', '--node-status-update-frequency=2s', '--image-pull-delay=20ms', '--container-start-delay=10ms', '--container-stop-delay=100ms']),
  );
});

test.after(async () => {
  // NL_DEBUG=1: the daemons' last log lines, to see why a run failed.
  if (process.env['NL_DEBUG']) for (const d of daemons) console.log(d.output().slice(-3000));
  for (const d of daemons) await d.stop();
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const getNode = (name: string) => api.client.get<Node>(resources.nodes, '', name);
const condition = (n: Node, type: string) => n.status?.conditions?.find((c) => c.type === type);
const taintKeys = (n: Node, effect: string) => (n.spec?.taints ?? []).filter((t) => t.effect === effect).map((t) => t.key).sort();
const setFaults = (name: string, faults: string) => api.client.patch(resources.nodes, '', name, 'merge', { metadata: { annotations: { 'sim.svc.io/faults': faults || null } } });
const rsPods = async () => (await api.client.list<Pod>(resources.pods, { namespace: 'default', labelSelector: 'app=web' })).items;
const running = (p: Pod) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp;

test('new nodes: the not-ready NoSchedule taint until Ready, the ttl annotation; pods get the default tolerations', async () => {
  for (const name of NODES) {
    await eventually(async () => {
      const n = await getNode(name).catch(() => undefined);
      return !!n && condition(n, 'Ready')?.status === 'True' && taintKeys(n, 'NoSchedule').length === 0 && n.metadata.annotations?.['node.alpha.svc.io/ttl'] === '0';
    }, 40_000, `${name} Ready, untainted, with its ttl annotation`);
  }
  const events = (await api.client.list<Event>(resources.events, { namespace: 'default' })).items;
  assert.ok(events.some((e) => e.reason === 'RegisteredNode' && e.involvedObject?.name === 'sim-node-0'), 'a RegisteredNode Event');

  const rs = replicaSet('web', 4);
  rs.spec!.template!.spec!.tolerations = [{ key: 'node.svc.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: TOLERATION_SECONDS }];
  rs.spec!.template!.spec!.terminationGracePeriodSeconds = 1;
  await api.client.create<ReplicaSet>(resources.replicasets, 'default', rs);
  await eventually(async () => (await rsPods()).filter(running).length === 4, 30_000, '4 web pods running');
  const tolerations = (await rsPods())[0]!.spec!.tolerations!;
  assert.equal(
    tolerations.map((t) => [t.key, t.tolerationSeconds]),
    [['node.svc.io/unreachable', TOLERATION_SECONDS], ['node.svc.io/not-ready', 300]],
    'its own unreachable toleration is kept; not-ready gets the default 300 s',
  );
});

test('a node whose heartbeats stop: Unknown, tainted, its pods evicted after tolerationSeconds and replaced; recovery lifts the taints', async () => {
  const victim = (await rsPods()).find(running)!.spec!.nodeName!;
  const before = (await rsPods()).filter((p) => p.spec?.nodeName === victim).map((p) => p.metadata.name);
  await setFaults(victim, 'stop-heartbeats');
  const stoppedAt = Date.now();
  await eventually(async () => condition(await getNode(victim), 'Ready')?.status === 'Unknown', 20_000, `${victim} Ready Unknown`);
  const n = await getNode(victim);
  assert.is(condition(n, 'Ready')!.reason, 'NodeStatusUnknown');
  assert.is(condition(n, 'Ready')!.message, 'Kubelet stopped posting node status.');
  assert.is(condition(n, 'MemoryPressure')!.status, 'Unknown');
  assert.is(condition(n, 'NetworkUnavailable')!.status, 'False', 'NetworkUnavailable is left alone');
  await eventually(async () => {
    const m = await getNode(victim);
    return taintKeys(m, 'NoSchedule').join() === 'node.svc.io/unreachable' && taintKeys(m, 'NoExecute').join() === 'node.svc.io/unreachable';
  }, 10_000, 'the unreachable NoSchedule and NoExecute taints');
  const taintedAt = Date.now();
  await eventually(async () => {
    const pods = await rsPods();
    const gone = before.every((name) => { const p = pods.find((q) => q.metadata.name === name); return !p || !!p.metadata.deletionTimestamp; });
    return gone && pods.filter(running).filter((p) => p.spec?.nodeName !== victim).length === 4;
  }, 30_000, 'its pods evicted and 4 running elsewhere');
  assert.ok(Date.now() - taintedAt >= (TOLERATION_SECONDS - 1) * 1000, 'not before their tolerationSeconds');
  const events = (await api.client.list<Event>(resources.events, { namespace: 'default' })).items;
  assert.ok(events.some((e) => e.reason === 'TaintManagerEviction' && before.includes(e.involvedObject?.name ?? '')), 'TaintManagerEviction Events');
  assert.ok(Date.now() - stoppedAt < 45_000);

  await setFaults(victim, '');
  await eventually(async () => {
    const m = await getNode(victim);
    return condition(m, 'Ready')?.status === 'True' && (m.spec?.taints ?? []).length === 0;
  }, 20_000, `${victim} Ready with its taints lifted`);
});

test('every node stops (every zone in FullDisruption): no NoExecute taint is kept and no pod is evicted', async () => {
  const pods = (await rsPods()).filter(running).map((p) => p.metadata.name);
  await Promise.all(NODES.map((name) => setFaults(name, 'stop-heartbeats')));
  await eventually(async () => {
    for (const name of NODES) if (condition(await getNode(name), 'Ready')?.status !== 'Unknown') return false;
    return true;
  }, 20_000, 'every node Unknown');
  // Longer than the pods' tolerationSeconds and a few monitor passes: still no eviction.
  await new Promise((r) => setTimeout(r, (TOLERATION_SECONDS + 2) * 1000));
  for (const name of NODES) assert.equal(taintKeys(await getNode(name), 'NoExecute'), [], `${name} has no NoExecute taint`);
  const still = await rsPods();
  for (const name of pods) assert.ok(still.some((p) => p.metadata.name === name && !p.metadata.deletionTimestamp), `${name} not evicted`);
  await Promise.all(NODES.map((name) => setFaults(name, '')));
  await eventually(async () => {
    for (const name of NODES) {
      const n = await getNode(name);
      if (condition(n, 'Ready')?.status !== 'True' || (n.spec?.taints ?? []).length) return false;
    }
    return true;
  }, 20_000, 'every node Ready and untainted again');
});

test('every node reports Ready False (not-ready): the not-ready NoSchedule taint, no NoExecute one while every zone is down; recovery lifts it', async () => {
  await Promise.all(NODES.map((name) => setFaults(name, 'not-ready')));
  await eventually(async () => {
    for (const name of NODES) {
      const n = await getNode(name);
      if (condition(n, 'Ready')?.status !== 'False' || taintKeys(n, 'NoSchedule').join() !== 'node.svc.io/not-ready') return false;
    }
    return true;
  }, 20_000, 'every node Ready False with the not-ready NoSchedule taint');
  await eventually(async () => {
    for (const name of NODES) if (taintKeys(await getNode(name), 'NoExecute').length) return false;
    return true;
  }, 10_000, 'no NoExecute taint while every zone is fully disrupted');
  await Promise.all(NODES.map((name) => setFaults(name, '')));
  await eventually(async () => {
    for (const name of NODES) {
      const n = await getNode(name);
      if (condition(n, 'Ready')?.status !== 'True' || (n.spec?.taints ?? []).length) return false;
    }
    return true;
  }, 20_000, 'every node Ready and untainted again');
});

test('every state of the node lifecycle chart was entered by the tests above, and no other', async () => {
  const { fetch, Agent } = await import('undici');
  const r = await fetch(`https://127.0.0.1:${managerPort}/debug/machines`, { dispatcher: new Agent({ connect: { rejectUnauthorized: false } }) });
  assert.is(r.status, 200);
  assertStatesEntered(nodeLifecycle, enteredIn((await r.json()) as Parameters<typeof enteredIn>[0], 'nodelifecycle'));
});

test.run();
