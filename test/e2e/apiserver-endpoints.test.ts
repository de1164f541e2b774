// Two real apiserver processes on one real etcd (the operators' topology): both keep
// default/kubernetes, both appear in its Endpoints through their Leases in svc-system, one killed
// with -9 drops out once its lease expires and one stopped gracefully drops out at once, and
// Services created through both at the same time never share an address.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { type ApiServerProcess, startApiServer } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';
import { type RunningEtcd, startEtcd } from '../helpers/etcd.js';

let etcd: RunningEtcd;
const servers: ApiServerProcess[] = [];

async function start(advertise: string, extra: string[] = []): Promise<ApiServerProcess> {
  const s = await startApiServer({ args: [`--kvstore-servers=${etcd.endpoint}`, `--advertise-address=${advertise}`, ...extra] });
  servers.push(s);
  return s;
}

/** The kubernetes Endpoints as `ip:port` strings, sorted. */
async function endpoints(via: ApiServerProcess): Promise<string[]> {
  const r = await via.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes');
  if (r.status !== 200) return [];
  const out: string[] = [];
  for (const s of (r.json.subsets ?? []) as { addresses: { ip: string }[]; ports: { port: number; name: string }[] }[]) {
    for (const a of s.addresses) out.push(`${a.ip}:${s.ports[0]!.port}`);
  }
  return out.sort();
}

test.before(async () => {
  etcd = await startEtcd();
});

test.after(async () => {
  for (const s of servers) {
    if (s.proc.exitCode === null && s.proc.signalCode === null) await s.stop();
    s.cleanup();
  }
  await etcd?.stop();
});

test('two API servers on one etcd both appear in the kubernetes Endpoints, each through a Lease in svc-system', async () => {
  const a = await start('127.0.0.1');
  const b = await start('127.0.0.2');
  const want = [`127.0.0.1:${a.port}`, `127.0.0.2:${b.port}`].sort();
  await eventually(async () => JSON.stringify(await endpoints(a)) === JSON.stringify(want), 60_000, `Endpoints ${want.join(', ')}`);
  const svc = await a.request('GET', '/api/v1/namespaces/default/services/kubernetes');
  assert.is(svc.json.spec.clusterIP, '10.0.0.1');
  const leases = await b.request('GET', '/apis/coordination.k8s.io/v1/namespaces/svc-system/leases');
  const names = (leases.json.items as { metadata: { name: string } }[]).map((l) => l.metadata.name);
  assert.ok(names.includes(`apiserver-endpoint-127-0-0-1-${a.port}`), names.join(', '));
  assert.ok(names.includes(`apiserver-endpoint-127-0-0-2-${b.port}`), names.join(', '));
});

test('Services created through both servers at once never share an address or a node port', async () => {
  const [a, b] = servers as [ApiServerProcess, ApiServerProcess];
  const body = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { type: 'NodePort', ports: [{ port: 80 }] } });
  const made = await Promise.all(
    Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).request('POST', '/api/v1/namespaces/default/services', body(`both-${i}`))),
  );
  for (const r of made) assert.is(r.status, 201, r.text);
  const ips = made.map((r) => r.json.spec.clusterIP as string);
  const ports = made.map((r) => r.json.spec.ports[0].nodePort as number);
  assert.is(new Set(ips).size, ips.length, 'distinct cluster IPs');
  assert.is(new Set(ports).size, ports.length, 'distinct node ports');
  assert.not.ok(ips.includes('10.0.0.1'));
});

test('a server killed with -9 leaves the Endpoints once its lease expires; one stopped gracefully leaves at once', async () => {
  const [a, b] = servers as [ApiServerProcess, ApiServerProcess];
  b.proc.kill('SIGKILL');
  await new Promise((r) => b.proc.once('exit', r));
  const killedAt = Date.now();
  await eventually(async () => JSON.stringify(await endpoints(a)) === JSON.stringify([`127.0.0.1:${a.port}`]), 60_000, 'the killed server gone from the Endpoints');
  assert.ok(Date.now() - killedAt >= 5_000, 'not before its lease could expire');
  const c = await start('127.0.0.3');
  await eventually(async () => (await endpoints(a)).includes(`127.0.0.3:${c.port}`), 60_000, 'the third server listed');
  const code = await c.stop();
  assert.is(code, 0, c.output().slice(-3000));
  await eventually(async () => !(await endpoints(a)).includes(`127.0.0.3:${c.port}`), 8_000, 'the stopped server removed without waiting for its lease');
});

test('--endpoint-reconciler-type=none: the server keeps the Service but does not list itself', async () => {
  const [a] = servers as [ApiServerProcess];
  const n = await start('127.0.0.4', ['--endpoint-reconciler-type=none']);
  await new Promise((r) => setTimeout(r, 3_000));
  assert.not.ok((await endpoints(a)).some((e) => e.startsWith('127.0.0.4:')));
  const svc = await n.request('GET', '/api/v1/namespaces/default/services/kubernetes');
  assert.is(svc.status, 200);
});

test.run();
