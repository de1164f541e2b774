// Services as the established server gives them, through the real apiserver process with its
// default flags: kubectl 1.35 `create service clusterip s --tcp=80:80` gets an address in
// 10.0.0.0/24, `expose deployment` works, a chosen address is honoured or refused with the
// established messages, node ports likewise, a dry run takes nothing, a delete gives back, the
// allocations survive kill -9, default/kubernetes and its Endpoints exist, and the Python client
// (Debian python3-kubernetes) gets a created Service back with its status.
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import { type ApiServerProcess, ROOT, startApiServer } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { KUBECTL_V35, kubeconfigFor, kubectl } from '../helpers/kubectl.js';

let server: ApiServerProcess;
let kc: string;
const k = (args: string[], input?: string) => kubectl(kc, args, 60_000, { bin: KUBECTL_V35, ...(input !== undefined ? { input } : {}) });

const inRange = (ip: string) => /^10\.0\.0\.(\d+)$/.test(ip) && Number(ip.split('.')[3]) >= 1 && Number(ip.split('.')[3]) <= 254;

function manifest(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec });
}

async function svc(name: string): Promise<{ spec: Record<string, unknown>; status: Record<string, unknown> }> {
  const r = await server.request('GET', `/api/v1/namespaces/default/services/${name}`);
  assert.is(r.status, 200, r.text);
  return r.json;
}

test.before(async () => {
  server = await startApiServer();
  kc = kubeconfigFor(server);
});

test.after(async () => {
  await server?.stop();
  server?.cleanup();
});

test('kubectl 1.35 create service clusterip s --tcp=80:80: an address in the default range, status.loadBalancer {}', async () => {
  const r = await k(['create', 'service', 'clusterip', 's', '--tcp=80:80']);
  assert.is(r.code, 0, r.stderr);
  const s = await svc('s');
  const ip = String(s.spec['clusterIP']);
  assert.ok(inRange(ip), `clusterIP ${ip} in 10.0.0.0/24`);
  assert.equal(s.spec['clusterIPs'], [ip]);
  assert.equal(s.spec['ipFamilies'], ['IPv4']);
  assert.is(s.spec['ipFamilyPolicy'], 'SingleStack');
  assert.is(s.spec['internalTrafficPolicy'], 'Cluster');
  assert.equal((s.spec['ports'] as { name: string }[])[0]!.name, '80-80');
  assert.equal(s.status, { loadBalancer: {} });
  const wide = await k(['get', 'svc', 's', '-o', 'wide']);
  assert.match(wide.stdout, new RegExp(`s\\s+ClusterIP\\s+${ip.replace(/\./g, '\\.')}\\s+<none>\\s+80/TCP`));
});

test('kubectl expose deployment gets a Service with an address', async () => {
  assert.is((await k(['create', 'deployment', 'web', '--image=nginx'])).code, 0);
  const r = await k(['expose', 'deployment', 'web', '--port=80', '--target-port=8080']);
  assert.is(r.code, 0, r.stderr);
  const s = await svc('web');
  assert.ok(inRange(String(s.spec['clusterIP'])));
  assert.equal(s.spec['selector'], { app: 'web' });
});

test('default/kubernetes: the first address, https 443 to the secure port; its Endpoints list this server', async () => {
  await eventually(async () => (await server.request('GET', '/api/v1/namespaces/default/services/kubernetes')).status === 200, 30_000, 'the kubernetes Service');
  const s = await svc('kubernetes');
  assert.is(s.spec['clusterIP'], '10.0.0.1');
  assert.equal(s.spec['ports'], [{ name: 'https', protocol: 'TCP', port: 443, targetPort: server.port }]);
  await eventually(async () => {
    const ep = await server.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
    return ep.status === 200 && JSON.stringify(ep.json.subsets) === JSON.stringify([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: server.port, protocol: 'TCP' }] }]);
  }, 30_000, 'the kubernetes Endpoints');
});

test('a chosen address is honoured, then refused while taken, refused outside the range, and free again after delete', async () => {
  assert.is((await k(['apply', '-f', '-'], manifest('fixed', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }))).code, 0);
  assert.is((await svc('fixed')).spec['clusterIP'], '10.0.0.5');
  let r = await k(['apply', '-f', '-'], manifest('fixed2', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }));
  assert.is(r.code, 1);
  assert.match(r.stderr, 'The Service "fixed2" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.5"}: failed to allocate IP 10.0.0.5: provided IP is already allocated');
  r = await k(['apply', '-f', '-'], manifest('outside', { clusterIP: '10.1.0.5', ports: [{ port: 80 }] }));
  assert.is(r.code, 1);
  assert.match(r.stderr, 'failed to allocate IP 10.1.0.5: the provided IP (10.1.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24');
  r = await k(['patch', 'svc', 'fixed', '-p', '{"spec":{"clusterIP":"10.0.0.6"}}']);
  assert.is(r.code, 1);
  assert.match(r.stderr, 'spec.clusterIPs[0]: Invalid value: []string{"10.0.0.6"}: may not change once set');
  // kubectl apply of the same manifest without clusterIP keeps the address (the server fills it in).
  r = await k(['replace', '-f', '-'], manifest('fixed', { ports: [{ port: 81 }] }));
  assert.is(r.code, 0, r.stderr);
  assert.is((await svc('fixed')).spec['clusterIP'], '10.0.0.5');
  assert.is((await k(['delete', 'svc', 'fixed'])).code, 0);
  r = await k(['apply', '-f', '-'], manifest('fixed2', { clusterIP: '10.0.0.5', ports: [{ port: 80 }] }));
  assert.is(r.code, 0, `released on delete: ${r.stderr}`);
});

test('headless and ExternalName Services take no address; a dry run takes nothing', async () => {
  assert.is((await k(['create', 'service', 'clusterip', 'hl', '--clusterip=None'])).code, 0);
  const hl = await svc('hl');
  assert.is(hl.spec['clusterIP'], 'None');
  assert.equal(hl.spec['clusterIPs'], ['None']);
  assert.is((await k(['create', 'service', 'externalname', 'ex', '--external-name=example.com'])).code, 0);
  const ex = await svc('ex');
  assert.is(ex.spec['clusterIP'], undefined);
  assert.is(ex.spec['ipFamilies'], undefined);
  // A dry run reports an address but takes none: the same address can then be taken for real.
  const dry = await k(['apply', '--dry-run=server', '-o', 'jsonpath={.spec.clusterIP}', '-f', '-'], manifest('dry', { clusterIP: '10.0.0.9', ports: [{ port: 80 }] }));
  assert.is(dry.code, 0, dry.stderr);
  assert.is(dry.stdout, '10.0.0.9');
  assert.is((await server.request('GET', '/api/v1/namespaces/default/services/dry')).status, 404);
  assert.is((await k(['apply', '-f', '-'], manifest('real', { clusterIP: '10.0.0.9', ports: [{ port: 80 }] }))).code, 0);
  // A failed create gives back what it took: an ExternalName name clash with an existing Service.
  const clash = await k(['create', '-f', '-'], manifest('real', { clusterIP: '10.0.0.10', ports: [{ port: 80 }] }));
  assert.is(clash.code, 1);
  assert.match(clash.stderr, 'AlreadyExists');
  assert.is((await k(['apply', '-f', '-'], manifest('took10', { clusterIP: '10.0.0.10', ports: [{ port: 80 }] }))).code, 0, 'the failed create released 10.0.0.10');
});

test('node ports: allocated from 30000-32767, a chosen one honoured or refused, released on a type change', async () => {
  assert.is((await k(['create', 'service', 'nodeport', 'np', '--tcp=8080:80'])).code, 0);
  const np = Number(((await svc('np')).spec['ports'] as { nodePort: number }[])[0]!.nodePort);
  assert.ok(np >= 30000 && np <= 32767, `nodePort ${np}`);
  let r = await k(['apply', '-f', '-'], manifest('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: np }] }));
  assert.is(r.code, 1);
  assert.match(r.stderr, `spec.ports[0].nodePort: Invalid value: ${np}: provided port is already allocated`);
  r = await k(['apply', '-f', '-'], manifest('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: 40000 }] }));
  assert.match(r.stderr, 'spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767');
  r = await k(['patch', 'svc', 'np', '-p', '{"spec":{"type":"ClusterIP"}}']);
  assert.is(r.code, 0, r.stderr);
  const after = await svc('np');
  assert.is((after.spec['ports'] as { nodePort?: number }[])[0]!.nodePort, undefined);
  assert.is(after.spec['externalTrafficPolicy'], undefined);
  r = await k(['apply', '-f', '-'], manifest('np2', { type: 'NodePort', ports: [{ port: 80, nodePort: np }] }));
  assert.is(r.code, 0, `released on the type change: ${r.stderr}`);
  // LoadBalancer with externalTrafficPolicy Local: a health-check node port too.
  r = await k(['apply', '-f', '-'], manifest('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] }));
  assert.is(r.code, 0, r.stderr);
  const lb = await svc('lb');
  const hc = Number(lb.spec['healthCheckNodePort']);
  assert.ok(hc >= 30000 && hc <= 32767, `healthCheckNodePort ${hc}`);
  assert.is(lb.spec['allocateLoadBalancerNodePorts'], true);
  assert.equal(lb.status, { loadBalancer: {} });
});

test('the Python client (python3-kubernetes) gets a created Service back with its status', async () => {
  const r = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('/usr/bin/python3', [join(ROOT, 'test', 'fixtures', 'python', 'service_check.py'), kc, 'default'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  assert.is(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.is(lines.length, 2);
  for (const l of lines) {
    assert.is(l['hasStatus'], true);
    assert.is(l['loadBalancerIsNone'], false, 'status.load_balancer is not None');
    assert.is(l['readLoadBalancerIsNone'], false);
    assert.ok(inRange(String(l['clusterIP'])), String(l['clusterIP']));
    assert.equal(l['clusterIPs'], [l['clusterIP']]);
    assert.equal(l['ipFamilies'], ['IPv4']);
    assert.is(l['ipFamilyPolicy'], 'SingleStack');
  }
  const nodePort = (lines[1]!['nodePorts'] as number[])[0]!;
  assert.ok(nodePort >= 30000 && nodePort <= 32767);
});

test('--svc-service-node-port makes default/kubernetes a NodePort; --endpoint-reconciler-type=master-count lists this server', async () => {
  const other = await startApiServer({ args: ['--svc-service-node-port=30443', '--endpoint-reconciler-type=master-count', '--apiserver-count=1', '--service-cluster-ip-range=10.96.0.0/16'] });
  try {
    await eventually(async () => (await other.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status === 200, 30_000, 'the kubernetes Endpoints');
    const s = (await other.request('GET', '/api/v1/namespaces/default/services/kubernetes')).json;
    assert.is(s.spec.type, 'NodePort');
    assert.is(s.spec.clusterIP, '10.96.0.1');
    assert.equal(s.spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: other.port, nodePort: 30443 }]);
    const ep = (await other.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json;
    assert.equal(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: other.port, protocol: 'TCP' }] }]);
    const taken = await other.request('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'np' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30443 }] } });
    assert.is(taken.status, 422);
    assert.match(taken.json.message, 'spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated');
  } finally {
    await other.stop();
    other.cleanup();
  }
});

test('allocations survive kill -9: a restarted server refuses an address taken before', async () => {
  const taken = String((await svc('s')).spec['clusterIP']);
  server.proc.kill('SIGKILL');
  await new Promise((r) => server.proc.once('exit', r));
  server = await startApiServer({ dataDir: server.dataDir, certDir: server.certDir });
  kc = kubeconfigFor(server);
  const r = await k(['apply', '-f', '-'], manifest('again', { clusterIP: taken, ports: [{ port: 80 }] }));
  assert.is(r.code, 1);
  assert.match(r.stderr, `failed to allocate IP ${taken}: provided IP is already allocated`);
  assert.is((await svc('kubernetes')).spec['clusterIP'], '10.0.0.1');
});

test.run();
