// The attachdetach controller's rules (controllers/attachdetach/world.ts) on injected time: the
// desired state of a node from its pods (bound claims of CSI volumes, generic ephemeral claims,
// CSIDriver attachRequired, terminated pods, unbound claims), the established names, and the plan
// between the desired and actual states (attach, detach only once not in use or after 6 min).
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CSIDriver, PersistentVolume, PersistentVolumeClaim, Pod } from '../../src/api/generated/kinds.js';
import { attachmentName, desiredVolumes, MAX_WAIT_FOR_UNMOUNT_MS, plan, podTerminated, uniqueVolumeName, type ActualVolume, type DesiredVolume, type VolumeLookups } from '../../controllers/attachdetach/world.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

const pvc = (name: string, volumeName?: string): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'ns' },
  spec: volumeName ? { volumeName } : {},
  status: { phase: volumeName ? 'Bound' : 'Pending' },
});
const pv = (name: string, driver?: string): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: driver ? { csi: { driver, volumeHandle: `h-${name}` } } : { hostPath: { path: `/tmp/${name}` } },
});
const pod = (name: string, volumes: unknown[], status: Record<string, unknown> = { phase: 'Running' }, deleting = false): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], volumes },
    status,
  }) as Pod;

function lookups(): VolumeLookups {
  const claims = new Map([pvc('a', 'pv-a'), pvc('b', 'pv-b'), pvc('host', 'pv-host'), pvc('free', 'pv-free'), pvc('late'), pvc('p3-scratch', 'pv-e')].map((c) => [c.metadata.name!, c]));
  const vols = new Map([pv('pv-a', 'simulated.csi.svc.io'), pv('pv-b', 'simulated.csi.svc.io'), pv('pv-host'), pv('pv-free', 'no-attach.example.com'), pv('pv-e', 'simulated.csi.svc.io')].map((v) => [v.metadata.name!, v]));
  const drivers = new Map<string, CSIDriver>([['no-attach.example.com', { apiVersion: 'storage.svc.io/v1', kind: 'CSIDriver', metadata: { name: 'no-attach.example.com' }, spec: { attachRequired: false } } as CSIDriver]]);
  return { claim: (ns, n) => (ns === 'ns' ? claims.get(n) : undefined), volume: (n) => vols.get(n), driver: (n) => drivers.get(n) };
}
const claimVol = (claimName: string) => ({ name: claimName, persistentVolumeClaim: { claimName } });

test('names: svc.io/csi/<driver>^<handle>; the VolumeAttachment csi-<sha256(handle+driver+node)>', () => {
  assert.is(uniqueVolumeName('simulated.csi.svc.io', 'pvc-1'), 'svc.io/csi/simulated.csi.svc.io^pvc-1');
  assert.is(attachmentName('pvc-1', 'simulated.csi.svc.io', 'n1'), `csi-${createHash('sha256').update('pvc-1simulated.csi.svc.ion1').digest('hex')}`);
  assert.is(attachmentName('pvc-1', 'simulated.csi.svc.io', 'n1').length, 4 + 64);
});

test('desired state: CSI volumes of bound claims (and ephemeral claims), once each; not hostPath, not attachRequired=false, not inline csi, not terminated pods; unbound claims counted', () => {
  const pods = [
    pod('p1', [claimVol('a'), claimVol('host'), claimVol('free'), { name: 'inline', csi: { driver: 'simulated.csi.svc.io' } }]),
    pod('p2', [claimVol('a'), claimVol('b')]),
    pod('p3', [{ name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } }]),
    pod('done', [claimVol('b')], { phase: 'Succeeded' }),
    pod('waiting', [claimVol('late')]),
  ];
  const { volumes, unresolved } = desiredVolumes(pods, lookups());
  assert.equal([...volumes.keys()].sort(), ['svc.io/csi/simulated.csi.svc.io^h-pv-a', 'svc.io/csi/simulated.csi.svc.io^h-pv-b', 'svc.io/csi/simulated.csi.svc.io^h-pv-e']);
  assert.equal(volumes.get('svc.io/csi/simulated.csi.svc.io^h-pv-a'), { name: 'svc.io/csi/simulated.csi.svc.io^h-pv-a', driver: 'simulated.csi.svc.io', handle: 'h-pv-a', pvName: 'pv-a' });
  assert.is(unresolved, 1, 'the Pending claim');
  // Only b's other user is finished: b stays desired through p2; with p2 gone it is not.
  assert.not.ok(desiredVolumes([pods[3]!], lookups()).volumes.size);
});

test('terminated: finished, or being deleted with no container running', () => {
  assert.ok(podTerminated(pod('x', [], { phase: 'Failed' })));
  assert.not.ok(podTerminated(pod('x', [], { phase: 'Running', containerStatuses: [{ name: 'c', state: { running: {} } }] }, true)));
  assert.ok(podTerminated(pod('x', [], { phase: 'Running', containerStatuses: [{ name: 'c', state: { terminated: { exitCode: 0 } } }] }, true)));
  assert.not.ok(podTerminated(pod('x', [], { phase: 'Running' })));
});

const dv = (h: string): DesiredVolume => ({ name: uniqueVolumeName('simulated.csi.svc.io', h), driver: 'simulated.csi.svc.io', handle: h, pvName: h });
const av = (h: string, extra: Partial<ActualVolume> = {}): ActualVolume => ({ ...dv(h), attached: true, ...extra });
const m = <V extends { name: string }>(...vs: V[]) => new Map(vs.map((v) => [v.name, v]));

test('plan: attach what is desired and not attached; report attached volumes sorted; attaching ones not reported', () => {
  const p = plan(m(dv('b'), dv('a'), dv('c')), m(av('b'), av('a'), av('c', { attached: false })), new Set(), T0);
  assert.equal(p.attach, []);
  assert.equal(p.reportAttached, [dv('a').name, dv('b').name]);
  const q = plan(m(dv('a'), dv('new')), m(av('a')), new Set(), T0);
  assert.equal(q.attach.map((v) => v.handle), ['new']);
  assert.equal(q.detach, []);
  assert.is(q.waitMs, undefined);
});

test('plan: a volume no longer desired is detached at once when the node no longer lists it in use', () => {
  const p = plan(m(), m(av('a')), new Set(), T0);
  assert.equal(p.detach.map((v) => v.handle), ['a']);
  assert.equal(p.detachRequested, [dv('a').name]);
  assert.equal(p.reportAttached, []);
});

test('plan: still in use: waits (still reported attached), then after 6 minutes detaches anyway', () => {
  const inUse = new Set([dv('a').name]);
  const first = plan(m(), m(av('a')), inUse, T0);
  assert.equal(first.detach, []);
  assert.equal(first.detachRequested, [dv('a').name]);
  assert.is(first.waitMs, MAX_WAIT_FOR_UNMOUNT_MS);
  assert.equal(first.reportAttached, [dv('a').name]);
  const later = plan(m(), m(av('a', { detachRequestedAt: T0 })), inUse, T0 + MAX_WAIT_FOR_UNMOUNT_MS - 1);
  assert.equal(later.detach, []);
  assert.equal(later.detachRequested, [], 'the first request time is kept');
  assert.is(later.waitMs, 1);
  const due = plan(m(), m(av('a', { detachRequestedAt: T0 })), inUse, T0 + MAX_WAIT_FOR_UNMOUNT_MS);
  assert.equal(due.detach.map((v) => v.handle), ['a'], 'the max wait passed: detached although in use');
  assert.is(MAX_WAIT_FOR_UNMOUNT_MS, 6 * 60_000);
});

test('plan: desired again while waiting: the detach request is cancelled', () => {
  const p = plan(m(dv('a')), m(av('a', { detachRequestedAt: T0 })), new Set([dv('a').name]), T0 + 1000);
  assert.equal(p.detach, []);
  assert.equal(p.detachCancelled, [dv('a').name]);
  assert.equal(p.reportAttached, [dv('a').name]);
});

test.run();
