// PersistentVolumeLabel's rules without a server, against a real cloudy file: which volumes are the
// cloud's, the labels and node affinity set, the provisioner trusted, the cloud's refusal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PersistentVolume } from '../../../src/api/generated/kinds.js';
import { persistentVolumeDefinition } from '../../../src/api/kinds/index.js';
import { Cloudy } from '../../../src/cloud/cloudy/index.js';
import { applyVolumeLabels, persistentVolumeLabel } from '../../../src/apiserver/admission/persistent-volume-label.js';
import { admit, attrsFor, refusal } from './plugin-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-pvl-'));
const cloud = new Cloudy({ file: join(dir, 'cloud.json') });
const ZONE = 'failure-domain.beta.svc.io/zone';
const REGION = 'failure-domain.beta.svc.io/region';

const pv = (source: Record<string, unknown>, meta: Partial<PersistentVolume['metadata']> = {}, spec: Record<string, unknown> = {}): PersistentVolume =>
  ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'disk', ...meta }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source, ...spec } }) as unknown as PersistentVolume;
const cloudyDisk = (zone: string, project = 'svc-project') => ({ csi: { driver: 'cloudy.svc.io', volumeHandle: `projects/${project}/zones/${zone}/disks/d1` } });

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('a cloudy disk gets its zone and region labels and a node affinity requirement for each', async () => {
  const a = await admit(persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv(cloudyDisk('cloudy-central1-b'), { labels: { [ZONE]: 'user-says' } })));
  const out = a.object as PersistentVolume;
  assert.equal(out.metadata.labels, { [ZONE]: 'cloudy-central1-b', [REGION]: 'cloudy-central1' });
  assert.equal((out.spec as Record<string, unknown>)['nodeAffinity'], {
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['cloudy-central1-b'] }, { key: REGION, operator: 'In', values: ['cloudy-central1'] }] }] },
  });
});

test('not the cloud\'s, an update, or no cloud: nothing changes', async () => {
  for (const [plugin, a] of [
    [persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv({ hostPath: { path: '/x' } }))],
    [persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv({ csi: { driver: 'other.example.com', volumeHandle: 'h' } }))],
    [persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv(cloudyDisk('cloudy-central1-a')), { operation: 'UPDATE' })],
    [persistentVolumeLabel(undefined), attrsFor(persistentVolumeDefinition, pv(cloudyDisk('cloudy-central1-a')))],
  ] as const) {
    const out = (await admit(plugin, a)).object as PersistentVolume;
    assert.is(out.metadata.labels, undefined);
    assert.is((out.spec as Record<string, unknown>)['nodeAffinity'], undefined);
  }
});

test('a dynamically provisioned volume with both labels keeps them; a disk the cloud cannot place is refused', async () => {
  const provisioned = pv(cloudyDisk('cloudy-central1-a'), { labels: { [ZONE]: 'cloudy-central1-c', [REGION]: 'cloudy-central1' }, annotations: { 'pv.svc.io/provisioned-by': 'cloudy.svc.io' } });
  const out = (await admit(persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, provisioned))).object as PersistentVolume;
  assert.is(out.metadata.labels![ZONE], 'cloudy-central1-c');
  const e = await refusal(admit(persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv(cloudyDisk('mars-1a')))));
  assert.is(e.code, 403);
  assert.match(e.message, /^persistentvolumes "disk" is forbidden: error querying the cloud about volume disk: cloudy: disk projects\/svc-project\/zones\/mars-1a\/disks\/d1: zone mars-1a is not one of cloudy-central1-a/);
  const other = await refusal(admit(persistentVolumeLabel(cloud), attrsFor(persistentVolumeDefinition, pv(cloudyDisk('cloudy-central1-a', 'elsewhere')))));
  assert.match(other.message, /is not in project svc-project/);
});

test('node affinity: multi-zone values split and sorted; a term already naming a key is left alone; every term gets them', () => {
  const multi = pv({});
  applyVolumeLabels(multi, { [ZONE]: 'b__a', [REGION]: 'r' });
  assert.equal((multi.spec as any).nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0], { key: ZONE, operator: 'In', values: ['a', 'b'] });
  const own = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['x'] }] }] } };
  const kept = pv({}, {}, { nodeAffinity: structuredClone(own) });
  applyVolumeLabels(kept, { [ZONE]: 'a', [REGION]: 'r' });
  assert.equal((kept.spec as any).nodeAffinity, own);
  assert.equal(kept.metadata.labels, { [ZONE]: 'a', [REGION]: 'r' });
  const two = pv({}, {}, { nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Exists' }] }, { matchFields: [] }] } } });
  applyVolumeLabels(two, { [ZONE]: 'a' });
  assert.equal((two.spec as any).nodeAffinity.required.nodeSelectorTerms.map((t: any) => t.matchExpressions.length), [2, 1]);
});

test.run();
