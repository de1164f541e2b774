// The cloud controller manager against the simulated cloud, as people deploy it: the API server,
// `svc nodes --cloud-provider=cloudy` (three nodes on cloud instances), the controller manager
// (nodeipam, nodelifecycle) and `cloud-controller-manager --cloud-provider=cloudy` with leader
// election on, all separate processes over HTTPS, sharing one cloud file; kubectl 1.35 as the user.
//
// - cloud-node initialises the nodes (provider ID, addresses, zone/region/instance-type labels,
//   the uninitialized taint lifted);
// - `kubectl expose --type=LoadBalancer` gets an EXTERNAL-IP; the cloud holds the load balancer,
//   its listener to the NodePort and its firewall rules; a failing cloud API gives a Warning event
//   and converges once healed; deleting the Service removes them all;
// - the manager's page shows the cloud (a panel and /debug/cloud/objects/<kind>), authorized like
//   every path of its secure port;
// - route gives each node's pod CIDR a route;
// - a stopped instance's node is tainted shut down (and untainted when started), a deleted one's
//   Node is deleted and leaves the load balancer's targets;
// - kill -9 of the leading cloud controller manager while load balancers are being made: the other
//   replica takes over and every Service ends with exactly one load balancer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Event, Node, Service } from '../../src/api/generated/kinds.js';
import { Cloudy } from '../../src/cloud/cloudy/index.js';
import { resources, type ApiClient } from '../../src/client/index.js';
import { freePort, startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { realClient } from '../helpers/real-client.js';
import { CLOUD_CONTROLLER_MANAGER_BIN, CONTROLLER_MANAGER_BIN, startExecutable, startSvc, type SvcProcess } from '../helpers/svc-process.js';

const NODES = ['sim-node-0', 'sim-node-1', 'sim-node-2'];
/** A cloud controller manager replica (leader election on, short lease so a takeover is quick). */
const ccmArgs = (securePort = 0) => [
  `--svcconfig=${svcconfig}`, '--bind-address=127.0.0.1', `--secure-port=${securePort}`, '--cloud-provider=cloudy', `--cloud-config=${cloudFile}`,
  '--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--route-reconciliation-period=1s', '--node-monitor-period=500ms',
  '--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=1s',
];
let server: ApiServerProcess;
let api: { client: ApiClient; close(): Promise<void> };
let svcconfig: string;
let dir: string;
let cloudFile: string;
let cloud: Cloudy;
/** The first replica's secure port (its page and /debug/cloud). */
let ccmPort: number;
const daemons: SvcProcess[] = [];

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-cloud-'));
  cloudFile = join(dir, 'cloud.json');
  cloud = new Cloudy({ file: cloudFile });
  server = await startApiServer({ taintNodesByCondition: true });
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
  ccmPort = await freePort();
  const cloudFlags = ['--cloud-provider=cloudy', `--cloud-config=${cloudFile}`];
  daemons.push(
    startSvc(['nodes', `--svcconfig=${svcconfig}`, `--count=${NODES.length}`, ...cloudFlags, '--node-lease-renew-interval=500ms', '--node-status-update-frequency=2s']),
    startExecutable(CONTROLLER_MANAGER_BIN, [
      `--svcconfig=${svcconfig}`, '--leader-elect=false', '--secure-port=0', '--controllers=nodeipam,nodelifecycle',
      '--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16', '--cloud-provider=external',
      '--node-monitor-period=500ms', '--node-monitor-grace-period=4s', '--node-startup-grace-period=8s',
    ]),
    // No authorizer is configured: only the always-allowed paths answer (the page and the cloud's kinds), the rest is 403.
    startExecutable(CLOUD_CONTROLLER_MANAGER_BIN, [...ccmArgs(ccmPort), '--authorization-always-allow-paths=/healthz,/debug/machines/ui,/debug/cloud/objects/*']),
  );
  await daemons[2]!.waitFor((l) => l.msg === 'cloud controller manager started', 60_000, 'the cloud controller manager started');
});

test.after(async () => {
  if (process.env['CLOUD_DEBUG']) for (const d of daemons) console.log(d.output().slice(-4000));
  for (const d of daemons) await d.stop();
  await api.close();
  await server.stop();
  server.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const getNode = (name: string) => api.client.get<Node>(resources.nodes, '', name);
const taintKeys = (n: Node) => (n.spec?.taints ?? []).map((t) => t.key);
const explain = (what: string) => `${what}\n${daemons.map((d) => `--- pid ${d.pid}\n${d.output().slice(-3000)}`).join('\n')}`;

test('cloud-node initialises the nodes from the cloud: provider ID, addresses, zone, region, instance type; the uninitialized taint is lifted', async () => {
  await eventually(async () => (await api.client.list<Node>(resources.nodes)).items.length === NODES.length, 60_000, explain('three nodes registered'));
  for (const name of NODES) {
    await eventually(async () => !taintKeys(await getNode(name)).includes('node.cloudprovider.svc.io/uninitialized'), 30_000, explain(`${name} initialised`));
    const node = await getNode(name);
    const inst = cloud.file.read().instances[name]!;
    assert.is(node.spec?.providerID, `cloudy://svc-project/${inst.zone}/${name}`);
    assert.is(node.metadata.labels?.['topology.svc.io/zone'], inst.zone);
    assert.is(node.metadata.labels?.['failure-domain.beta.svc.io/zone'], inst.zone);
    assert.is(node.metadata.labels?.['topology.svc.io/region'], 'cloudy-central1');
    assert.is(node.metadata.labels?.['node.svc.io/instance-type'], 'cloudy-standard-2');
    // Addresses come with the node's first status report (or cloud-node's patch): wait for them.
    await eventually(async () => ((await getNode(name)).status?.addresses ?? []).some((a) => a.type === 'ExternalIP' && a.address === inst.externalIP), 30_000, `${name}'s ExternalIP`);
    const addresses = (await getNode(name)).status?.addresses ?? [];
    assert.ok(addresses.some((a) => a.type === 'InternalIP' && a.address === inst.internalIP), JSON.stringify(addresses));
  }
});

test('route: every node pod CIDR gets a cloud route, and the node NetworkUnavailable=False (RouteCreated)', async () => {
  await eventually(async () => {
    const routes = Object.values(cloud.file.read().routes);
    const nodes = (await api.client.list<Node>(resources.nodes)).items;
    return nodes.every((n) => n.spec?.podCIDR && routes.some((r) => r.targetNode === n.metadata.name && r.destinationCIDR === n.spec!.podCIDR));
  }, 60_000, explain('a route per node CIDR'));
  await eventually(async () => {
    const nodes = (await api.client.list<Node>(resources.nodes)).items;
    return nodes.every((n) => n.status?.conditions?.some((c) => c.type === 'NetworkUnavailable' && c.status === 'False' && c.reason === 'RouteCreated'));
  }, 30_000, explain('NetworkUnavailable=False RouteCreated on every node'));
});

test('kubectl 1.35 expose --type=LoadBalancer: an EXTERNAL-IP; the cloud has the load balancer, its listener and firewall rules', async () => {
  const kc = (args: string[]) => kubectl(svcconfig, args, 30_000, { bin: KUBECTL_V35 });
  const created = await kc(['create', 'deployment', 'web', '--image=nginx', '--replicas=0']);
  assert.is(created.code, 0, created.stderr);
  const exposed = await kc(['expose', 'deployment', 'web', '--type=LoadBalancer', '--port=80']);
  assert.is(exposed.code, 0, exposed.stderr);
  let ip = '';
  await eventually(async () => {
    const r = await kc(['get', 'svc', 'web', '-o', 'jsonpath={.status.loadBalancer.ingress[0].ip}']);
    ip = r.stdout.trim();
    return ip !== '';
  }, 60_000, explain('web has an ingress IP'));
  const table = await kc(['get', 'svc', 'web']);
  assert.match(table.stdout, ip, table.stdout);
  const svc = await api.client.get<Service>(resources.services, 'default', 'web');
  assert.ok(svc.metadata.finalizers?.includes('service.svc.io/load-balancer-cleanup'), JSON.stringify(svc.metadata.finalizers));
  const doc = cloud.file.read();
  const lb = Object.values(doc.loadBalancers).find((l) => l.service === 'default/web')!;
  assert.ok(lb, JSON.stringify(doc.loadBalancers));
  assert.is(lb.ip, ip);
  assert.equal(lb.listeners, [{ protocol: 'TCP', port: 80, nodePort: svc.spec!.ports![0]!.nodePort! }]);
  assert.equal(lb.targets, NODES);
  const rules = Object.values(doc.firewalls).filter((f) => f.loadBalancer === Object.keys(doc.loadBalancers).find((k) => doc.loadBalancers[k] === lb));
  assert.is(rules.length, 2, JSON.stringify(doc.firewalls));
  assert.ok(rules.some((f) => f.sourceRanges.join(',') === '0.0.0.0/0' && f.allowed[0]!.ports.includes('80')), JSON.stringify(rules));
  assert.ok(rules.some((f) => f.sourceRanges.join(',') === '130.211.0.0/22,209.85.152.0/22,209.85.204.0/22,35.191.0.0/16'), JSON.stringify(rules));
  const listed = await new Promise<string>((resolve) => {
    const p = startSvc(['cloud', 'list', 'loadbalancers', `--cloud-config=${cloudFile}`]);
    void p.exited.then(() => resolve(p.output()));
  });
  assert.match(listed, `default/web`);
  assert.match(listed, `TCP:80->${svc.spec!.ports![0]!.nodePort}`);
});

test("the cloud on the cloud controller manager's page: the panel, /debug/cloud/objects/<kind> (load balancer with ingress IP, listeners, firewall rules), authorized like every path", async () => {
  const { fetch, Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  const get = async (path: string) => {
    const r = await fetch(`https://127.0.0.1:${ccmPort}${path}`, { dispatcher });
    return { status: r.status, text: await r.text() };
  };
  try {
    const ui = await get('/debug/machines/ui');
    assert.is(ui.status, 200, ui.text);
    assert.match(ui.text, '"actorId":"service"');
    assert.match(ui.text, '"listPath":"/debug/cloud/objects"');
    const lbs = JSON.parse((await get('/debug/cloud/objects/loadBalancers')).text) as { items: { service: string; ingressIP: string; listeners: string[]; firewallRules: string[]; targets: string[] }[] };
    const svc = await api.client.get<Service>(resources.services, 'default', 'web');
    const lb = lbs.items.find((l) => l.service === 'default/web');
    assert.ok(lb, JSON.stringify(lbs));
    assert.is(lb.ingressIP, svc.status!.loadBalancer!.ingress![0]!.ip);
    assert.equal(lb.listeners, [`TCP:80->${svc.spec!.ports![0]!.nodePort}`]);
    assert.is(lb.firewallRules.length, 2);
    const rules = JSON.parse((await get('/debug/cloud/objects/firewalls')).text) as { items: { name: string; sourceRanges: string[]; allowed: string[] }[] };
    assert.ok(rules.items.some((r) => lb.firewallRules.includes(r.name) && r.allowed.includes('TCP:80') && r.sourceRanges.includes('0.0.0.0/0')), JSON.stringify(rules));
    const routes = JSON.parse((await get('/debug/cloud/objects/routes')).text) as { items: { targetNode: string }[] };
    assert.equal(routes.items.map((r) => r.targetNode).sort(), NODES);
    await cloud.fail('deleteRoute', { count: 1, message: 'shown on the page' });
    const failures = JSON.parse((await get('/debug/cloud/objects/failures')).text) as { items: { name: string; remaining: string; message: string }[] };
    assert.equal(failures.items, [{ name: 'deleteRoute', remaining: '1 call(s)', message: 'shown on the page' }]);
    await cloud.heal('deleteRoute');
    const overview = JSON.parse((await get('/debug/cloud/objects/overview')).text) as Record<string, unknown>;
    assert.equal([overview['provider'], overview['region'], overview['instances']], ['cloudy', 'cloudy-central1', NODES.length]);
    // Not among the always-allowed paths: the authorizer decides, and with none configured that is a 403.
    const whole = await get('/debug/cloud');
    assert.is(whole.status, 403, whole.text);
    assert.match(whole.text, 'cannot get path \\"/debug/cloud\\"');
  } finally {
    await dispatcher.close();
  }
});

test('a failing cloud API: a Warning SyncLoadBalancerFailed event, then the load balancer once the failures are spent', async () => {
  await cloud.fail('ensureLoadBalancer', { count: 2, message: 'backend unavailable' });
  await api.client.create(resources.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'flaky' }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 443 }] } } as Service);
  await eventually(async () => {
    const events = (await api.client.list<Event>(resources.events, { namespace: 'default', fieldSelector: 'involvedObject.name=flaky' })).items;
    return events.some((e) => e.reason === 'SyncLoadBalancerFailed' && e.type === 'Warning' && /backend unavailable/.test(e.message ?? ''));
  }, 30_000, explain('a SyncLoadBalancerFailed event'));
  await eventually(async () => ((await api.client.get<Service>(resources.services, 'default', 'flaky')).status?.loadBalancer?.ingress ?? []).length === 1, 60_000, explain('flaky gets its IP after the back-off'));
  assert.not.ok(cloud.file.read().failures['ensureLoadBalancer'], 'the injected failures were spent');
});

test('deleting the Service deletes its load balancer and firewall rules, then the Service (finalizer)', async () => {
  await api.client.delete(resources.services, 'default', 'flaky');
  await eventually(async () => !Object.values(cloud.file.read().loadBalancers).some((l) => l.service === 'default/flaky'), 30_000, explain('the load balancer of flaky deleted'));
  await eventually(async () => (await api.client.list<Service>(resources.services, { namespace: 'default' })).items.every((s) => s.metadata.name !== 'flaky'), 30_000, 'flaky gone');
  const doc = cloud.file.read();
  const lbNames = new Set(Object.keys(doc.loadBalancers));
  assert.ok(Object.values(doc.firewalls).every((f) => lbNames.has(f.loadBalancer)), JSON.stringify(doc.firewalls));
});

test('a stopped instance: its node goes NotReady and is tainted shut down; started again, the taint goes', async () => {
  await cloud.setInstanceState('sim-node-1', 'stopped');
  await eventually(async () => taintKeys(await getNode('sim-node-1')).includes('node.cloudprovider.svc.io/shutdown'), 60_000, explain('sim-node-1 tainted shutdown'));
  await cloud.setInstanceState('sim-node-1', 'running');
  await eventually(async () => !taintKeys(await getNode('sim-node-1')).includes('node.cloudprovider.svc.io/shutdown'), 60_000, explain('sim-node-1 untainted'));
});

test('a deleted instance: its Node is deleted, its route removed, and it leaves the load balancer targets', async () => {
  await cloud.deleteInstance('sim-node-2');
  await eventually(async () => !(await api.client.list<Node>(resources.nodes)).items.some((n) => n.metadata.name === 'sim-node-2'), 60_000, explain('sim-node-2 deleted'));
  await eventually(async () => {
    const doc = cloud.file.read();
    const lb = Object.values(doc.loadBalancers).find((l) => l.service === 'default/web');
    return lb !== undefined && !lb.targets.includes('sim-node-2') && !Object.values(doc.routes).some((r) => r.targetNode === 'sim-node-2');
  }, 60_000, explain('sim-node-2 out of the targets and routes'));
});

test('kill -9 of the leading cloud controller manager while it makes load balancers: the other replica takes over, one load balancer per Service', async () => {
  const first = daemons[2]!;
  const second = startExecutable(CLOUD_CONTROLLER_MANAGER_BIN, ccmArgs());
  daemons.push(second);
  await second.waitFor((l) => l.msg === 'cloud controller manager started', 60_000, 'the second replica started');
  await cloud.file.transact((d) => void (d.latencyMs = 100)); // slow enough that the kill lands mid-way
  const names = Array.from({ length: 12 }, (_, i) => `many-${i}`);
  await Promise.all(names.map((name) => api.client.create(resources.services, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'LoadBalancer', selector: { app: 'x' }, ports: [{ port: 80 }] } } as Service)));
  await eventually(async () => Object.values(cloud.file.read().loadBalancers).some((l) => l.service.startsWith('default/many-')), 30_000, explain('the first of the new load balancers'));
  first.proc.kill('SIGKILL');
  await cloud.file.transact((d) => void (d.latencyMs = 0));
  await eventually(async () => {
    const items = (await api.client.list<Service>(resources.services, { namespace: 'default' })).items.filter((s) => s.metadata.name!.startsWith('many-'));
    return items.length === names.length && items.every((s) => (s.status?.loadBalancer?.ingress ?? []).length === 1);
  }, 90_000, explain('every Service with its ingress IP after the takeover'));
  assert.ok(second.lines.some((l) => /became leader|started leading/.test(String(l.msg))), second.output().slice(-2000));
  const lbs = Object.values(cloud.file.read().loadBalancers);
  for (const name of names) assert.is(lbs.filter((l) => l.service === `default/${name}`).length, 1, `one load balancer for ${name}`);
  assert.is(new Set(lbs.map((l) => l.ip)).size, lbs.length, 'every load balancer its own IP');
});

test.run();
