// The nodeipam controller end to end: a real API server, the controller manager process with
// `--controllers=nodeipam --allocate-node-cidrs`, `svc nodes` and the scheduler. Every node gets a
// distinct /24 of --cluster-cidr, pods' IPs are inside their node's CIDR, a restarted manager
// never hands out a CIDR in use, a too-small cluster CIDR yields the CIDRNotAvailable Event and the
// NetworkUnavailable condition, a deleted node's CIDR goes to the node that waited for it, and
// nodes whose podCIDRs are outside the cluster CIDR keep them and are reported.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event, Node, Pod } from '../../src/api/generated/kinds.js';
import { parseCidr, ipToBigInt, lastAddress } from '../../src/api/net/ip-address.js';
import { resources } from '../../src/client/index.js';
import type { ApiClient } from '../../src/client/types.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { node, pod } from '../helpers/objects.js';
import { realClient } from '../helpers/real-client.js';
import { CONTROLLER_MANAGER_BIN, SCHEDULER_BIN, startExecutable, startSvc, type SvcProcess } from '../helpers/svc-process.js';

let server: ApiServerProcess;
let api: ReturnType<typeof realClient>;
let client: ApiClient;
let svcconfig: string;
let dir: string;
const procs: SvcProcess[] = [];

const FAST_NODES = ['--image-pull-delay=20ms', '--container-start-delay=10ms', '--container-stop-delay=100ms', '--node-lease-renew-interval=1s'];

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  client = api.client;
  svcconfig = writeSvcconfig(server);
  dir = mkdtempSync(join(tmpdir(), 'svc-nodeipam-'));
});

test.after(async () => {
  for (const p of procs) await p.stop('SIGKILL');
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function manager(clusterCidr: string): Promise<SvcProcess> {
  const p = startExecutable(CONTROLLER_MANAGER_BIN, [
    `--svcconfig=${svcconfig}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--leader-elect=false',
    '--controllers=nodeipam', '--allocate-node-cidrs', `--cluster-cidr=${clusterCidr}`, '--service-cluster-ip-range=10.0.0.0/24',
  ]);
  procs.push(p);
  await p.waitFor((l) => l.msg === 'controller manager started', 60_000, 'controller manager started');
  return p;
}

const nodesOf = async (prefix: string) => (await client.list<Node>(resources.nodes)).items.filter((n) => n.metadata.name!.startsWith(prefix));
const cidrOf = (n: Node) => n.spec?.podCIDR;
const inside = (ip: string, cidr: string) => {
  const c = parseCidr(cidr)!;
  const n = ipToBigInt(ip);
  return n > c.network && n < lastAddress(c);
};

test('20 simulated nodes: distinct /24s of the cluster CIDR, pods\' IPs inside their node\'s CIDR; a restart hands out none in use', async () => {
  // The three processes start side by side (each takes seconds on a loaded machine).
  const cmStarting = manager('10.244.0.0/16');
  const schedulerConfig = join(dir, 'scheduler.yaml');
  writeFileSync(schedulerConfig, ['apiVersion: scheduler.config.svc.io/v1beta1', 'kind: SchedulerConfiguration', 'clientConnection:', `  svcconfig: ${svcconfig}`, ''].join('\n'));
  const scheduler = startExecutable(SCHEDULER_BIN, [`--config=${schedulerConfig}`, '--bind-address=127.0.0.1', `--secure-port=${await freePort()}`, '--port=0', '--leader-elect=false']);
  procs.push(scheduler);
  const fleet = startSvc(['nodes', `--svcconfig=${svcconfig}`, '--count=20', '--node-name-prefix=ipam', ...FAST_NODES]);
  procs.push(fleet);
  let cm = await cmStarting;
  let nodes: Node[] = [];
  await eventually(async () => (nodes = await nodesOf('ipam-')).length === 20 && nodes.every(cidrOf), 45_000, 'every node has a podCIDR').catch((e) => {
    throw new Error(`${String(e)}: ${nodes.length} nodes, CIDRs ${nodes.map(cidrOf).join(' ')}\n${cm.output().slice(-3000)}`);
  });
  const cidrs = nodes.map((n) => cidrOf(n)!);
  assert.is(new Set(cidrs).size, 20, `distinct: ${cidrs.join(' ')}`);
  for (const n of nodes) {
    assert.match(cidrOf(n)!, /^10\.244\.\d+\.0\/24$/);
    assert.equal(n.spec?.podCIDRs, [cidrOf(n)]);
  }
  assert.not.ok(cidrs.includes('10.0.0.0/24'));

  for (let i = 0; i < 20; i++) await client.create(resources.pods, 'default', pod(`p${i}`));
  let pods: Pod[] = [];
  await eventually(async () => (pods = (await client.list<Pod>(resources.pods, { namespace: 'default' })).items).every((p) => p.status?.podIP), 45_000, 'every pod has an IP');
  const byNode = new Map(nodes.map((n) => [n.metadata.name!, cidrOf(n)!]));
  const ips = new Set<string>();
  for (const p of pods) {
    const ip = p.status!.podIP!;
    assert.ok(inside(ip, byNode.get(p.spec!.nodeName!)!), `${p.metadata.name} ${ip} inside ${p.spec!.nodeName} ${byNode.get(p.spec!.nodeName!)}`);
    assert.equal(p.status!.podIPs, [{ ip }]);
    assert.not.ok(ips.has(ip), `${ip} twice`);
    ips.add(ip);
  }

  // A manager killed and started again marks the 20 CIDRs taken before it hands out the next.
  await cm.stop('SIGKILL');
  cm = await manager('10.244.0.0/16');
  await cm.waitFor((l) => l.msg === 'node CIDRs in use marked taken', 30_000, 'rebuilt');
  assert.ok((cm.lines.find((l) => l.msg === 'node CIDRs in use marked taken')!['nodesWithCIDRs'] as number) >= 20);
  await client.create(resources.nodes, '', node('ipam-extra'));
  let extra: Node | undefined;
  await eventually(async () => !!cidrOf((extra = await client.get<Node>(resources.nodes, '', 'ipam-extra'))), 20_000, 'the new node has a podCIDR');
  assert.not.ok(cidrs.includes(cidrOf(extra!)!), `${cidrOf(extra!)} was in use`);

  // The fleet stays for the next test: its nodes' CIDRs are out of that manager's range.
  await Promise.all([cm.stop('SIGKILL'), scheduler.stop('SIGKILL')]);
});

test('a too-small cluster CIDR: CIDRNotAvailable and NetworkUnavailable; a deleted node\'s CIDR goes to the waiting node; out-of-range podCIDRs are kept and reported', async () => {
  const cm = await manager('10.250.0.0/22'); // room for 4 nodes
  // The 20 simulated nodes keep their 10.244.x.0/24: reported, not rewritten.
  await eventually(
    async () => (await client.list<Event>(resources.events, { namespace: 'default' })).items.some((e) => e.reason === 'InvalidPodCIDR' && e.involvedObject?.name === 'ipam-0' && /out the range of cluster cidr 10\.250\.0\.0\/22/.test(e.message ?? '')),
    30_000,
    'the out-of-range podCIDR reported',
  );
  assert.match(cidrOf(await client.get<Node>(resources.nodes, '', 'ipam-0'))!, /^10\.244\./);
  for (let i = 0; i < 5; i++) await client.create(resources.nodes, '', node(`small-${i}`));
  let nodes: Node[] = [];
  await eventually(async () => (nodes = await nodesOf('small-')).filter(cidrOf).length === 4, 30_000, '4 of 5 nodes have a podCIDR');
  const waiting = nodes.find((n) => !cidrOf(n))!.metadata.name!;
  await eventually(
    async () => (await client.list<Event>(resources.events, { namespace: 'default' })).items.some((e) => e.reason === 'CIDRNotAvailable' && e.involvedObject?.name === waiting && e.message === `Node ${waiting} status is now: CIDRNotAvailable`),
    20_000,
    'the CIDRNotAvailable Event',
  );
  const networkOf = async (name: string) => (await client.get<Node>(resources.nodes, '', name)).status?.conditions?.find((c) => c.type === 'NetworkUnavailable');
  await eventually(async () => (await networkOf(waiting))?.status === 'True', 20_000, 'NetworkUnavailable True');
  assert.is((await networkOf(waiting))!.reason, 'CIDRNotAvailable');

  const victim = nodes.find((n) => cidrOf(n))!;
  await client.delete(resources.nodes, '', victim.metadata.name!);
  let got: Node | undefined;
  await eventually(async () => !!cidrOf((got = await client.get<Node>(resources.nodes, '', waiting))), 20_000, 'the waiting node got the freed CIDR');
  assert.is(cidrOf(got!), cidrOf(victim), 'the deleted node\'s CIDR, reused');
  await eventually(async () => (await networkOf(waiting))?.status === 'False', 20_000, 'NetworkUnavailable back to False');
  const held = (await nodesOf('small-')).map((n) => cidrOf(n));
  assert.is(new Set(held).size, 4, `still distinct: ${held.join(' ')}`);
});

test.run();
