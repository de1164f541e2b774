// The Service write hooks in process, on the embedded store: IP-family defaulting (single-stack and
// dual-stack clusters), what a refused or dry-run write keeps (nothing), update rules (values the
// client left out are kept, a type change gives node ports back), and release on delete.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { StatusError } from '../../src/api/status.js';
import type { SvcObject } from '../../src/api/types.js';
import { ServiceAllocations } from '../../src/apiserver/services/service-allocation.js';
import { openEmbeddedStore } from '../../src/storage/embedded.js';
import { eventually } from '../helpers/client.js';

/** Releases are written after the write's answer (not awaited by it): polls until `used` comes to `want`. */
async function settlesTo(used: () => Promise<number>, want: number, msg?: string): Promise<void> {
  await eventually(async () => (await used()) === want, 5_000, msg).catch(async () => assert.is(await used(), want, msg));
}

const logger = pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });

async function withAllocations(ranges: string[], fn: (a: ServiceAllocations) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-alloc-'));
  const kv = openEmbeddedStore({ dir, logger });
  try {
    await fn(new ServiceAllocations(kv, '/registry', { clusterIPRanges: ranges, nodePortRange: { base: 30000, size: 2768 } }, logger));
  } finally {
    await kv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const service = (name: string, spec: Record<string, unknown>): SvcObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }], ...spec } });
const spec = (o: SvcObject) => o.spec as Record<string, unknown>;

async function refused(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, StatusError);
    return (err as StatusError).message;
  }
  throw new Error('expected a refusal');
}

test('single-stack cluster: SingleStack IPv4 by default; RequireDualStack refused; headless without selector gets both families', async () => {
  await withAllocations(['10.0.0.0/24'], async (a) => {
    const plain = service('plain', {});
    (await a.beginCreate(plain, false))(true);
    assert.equal([spec(plain)['ipFamilyPolicy'], spec(plain)['ipFamilies']], ['SingleStack', ['IPv4']]);
    assert.match(await refused(a.beginCreate(service('rq', { ipFamilyPolicy: 'RequireDualStack' }), false)), 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
    const prefer = service('prefer', { ipFamilyPolicy: 'PreferDualStack' });
    (await a.beginCreate(prefer, false))(true);
    assert.is((spec(prefer)['clusterIPs'] as string[]).length, 1, 'PreferDualStack on a single-stack cluster: one address');
    const headless = service('hl', { clusterIP: 'None' });
    delete spec(headless)['selector'];
    (await a.beginCreate(headless, false))(true);
    assert.equal([spec(headless)['ipFamilyPolicy'], spec(headless)['ipFamilies'], spec(headless)['clusterIPs']], ['RequireDualStack', ['IPv4', 'IPv6'], ['None']]);
    const selected = service('hls', { clusterIP: 'None', selector: { app: 'x' } });
    (await a.beginCreate(selected, false))(true);
    assert.equal([spec(selected)['ipFamilyPolicy'], spec(selected)['ipFamilies']], ['SingleStack', ['IPv4']]);
    assert.match(await refused(a.beginCreate(service('v6', { ipFamilies: ['IPv6'] }), false)), 'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster');
  });
});

test('dual-stack cluster: PreferDualStack takes one address of each family; two of one family are refused', async () => {
  await withAllocations(['10.0.0.0/24', 'fd00::/112'], async (a) => {
    const ds = service('ds', { ipFamilyPolicy: 'PreferDualStack' });
    (await a.beginCreate(ds, false))(true);
    const ips = spec(ds)['clusterIPs'] as string[];
    assert.is(ips.length, 2);
    assert.match(ips[0]!, /^10\.0\.0\./);
    assert.match(ips[1]!, /^fd00::/);
    assert.equal(spec(ds)['ipFamilies'], ['IPv4', 'IPv6']);
    const v6 = service('v6', { ipFamilies: ['IPv6', 'IPv4'], ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['fd00::7', '10.0.0.7'] });
    (await a.beginCreate(v6, false))(true);
    assert.equal([spec(v6)['clusterIP'], spec(v6)['clusterIPs']], ['fd00::7', ['fd00::7', '10.0.0.7']]);
    assert.match(
      await refused(a.beginCreate(service('two4', { ipFamilyPolicy: 'RequireDualStack', clusterIPs: ['10.0.0.8', '10.0.0.9'] }), false)),
      'spec.clusterIPs: Invalid value: []string{"10.0.0.8", "10.0.0.9"}: may specify no more than one IP for each IP family',
    );
  });
});

test('a refused write or a dry run keeps nothing; a stored one keeps its addresses until deleted', async () => {
  await withAllocations(['10.0.0.0/24'], async (a) => {
    const ip = a.ipAllocators[0]!;
    const dry = service('dry', { clusterIP: '10.0.0.5', type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
    (await a.beginCreate(dry, true))(false);
    assert.is(await ip.used(), 0);
    assert.is(await a.nodePorts.used(), 0);
    const failed = service('failed', { clusterIP: '10.0.0.5' });
    (await a.beginCreate(failed, false))(false); // e.g. AlreadyExists from the store
    await settlesTo(() => ip.used(), 0, 'given back');
    // One taken node port makes the whole write fail, and its address is given back too.
    const holder = service('holder', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
    (await a.beginCreate(holder, false))(true);
    const usedBefore = await ip.used();
    assert.match(await refused(a.beginCreate(service('clash', { clusterIP: '10.0.0.6', type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), false)), 'spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
    await settlesTo(() => ip.used(), usedBefore, '10.0.0.6 given back');
    a.afterDelete(holder);
    await settlesTo(() => a.nodePorts.used(), 0);
    await settlesTo(() => ip.used(), usedBefore - 1);
  });
});

test('updates: values the client left out are kept; a type change away from NodePort gives the node ports back', async () => {
  await withAllocations(['10.0.0.0/24'], async (a) => {
    const old = service('np', { type: 'NodePort', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    (await a.beginCreate(old, false))(true);
    const nodePort = (spec(old)['ports'] as { nodePort: number }[])[0]!.nodePort;
    // A PUT of the manifest as first written (no clusterIP, no nodePort).
    const next = service('np', { type: 'NodePort', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] });
    a.prepareUpdate(next, old);
    assert.is(spec(next)['clusterIP'], spec(old)['clusterIP']);
    assert.equal(spec(next)['clusterIPs'], spec(old)['clusterIPs']);
    assert.is((spec(next)['ports'] as { nodePort: number }[])[0]!.nodePort, nodePort);
    (await a.beginUpdate(next, old, false))(true);
    assert.is(await a.nodePorts.used(), 1);
    // To ClusterIP: the unchanged node port is dropped and released once stored.
    const toClusterIP: SvcObject = JSON.parse(JSON.stringify(next));
    spec(toClusterIP)['type'] = 'ClusterIP';
    a.prepareUpdate(toClusterIP, next);
    assert.is((spec(toClusterIP)['ports'] as { nodePort?: number }[])[0]!.nodePort, undefined);
    (await a.beginUpdate(toClusterIP, next, false))(true);
    await settlesTo(() => a.nodePorts.used(), 0);
    await settlesTo(() => a.ipAllocators[0]!.used(), 1, 'the cluster IP stays');
    // To ExternalName: the address goes too.
    const toExternal: SvcObject = JSON.parse(JSON.stringify(toClusterIP));
    Object.assign(spec(toExternal), { type: 'ExternalName', externalName: 'example.com' });
    a.prepareUpdate(toExternal, toClusterIP);
    assert.equal([spec(toExternal)['clusterIP'], spec(toExternal)['ipFamilies']], [undefined, undefined]);
    (await a.beginUpdate(toExternal, toClusterIP, false))(true);
    await settlesTo(() => a.ipAllocators[0]!.used(), 0);
  });
});

test.run();
