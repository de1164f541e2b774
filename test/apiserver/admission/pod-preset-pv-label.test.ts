// The two selectable plugins that need more than the chain, through one real apiserver process over
// HTTPS (their rules are unit-tested in pod-preset-rules.test.ts and persistent-volume-label-rules.test.ts).
// PodPreset:
// - refused at start without its alpha API, the --runtime-config that serves it named;
// - the settings.k8s.io/v1alpha1 PodPreset kind served in both spellings, validated as established;
// - a matching pod gets the preset's env, envFrom, mounts (containers and init containers) and
//   volumes, and the applied preset's resourceVersion in an annotation; a pod that does not match,
//   one excluded by annotation and one whose env conflicts are stored as sent (the conflict logged).
// PersistentVolumeLabel with --cloud-provider=cloudy: a PersistentVolume on a cloudy disk gets its
// zone and region labels and node affinity from the cloud's file; another volume gets nothing; a
// disk in a zone the cloud does not have is refused.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApiServer, type ApiServerProcess } from '../../helpers/apiserver.js';
import { eventually } from '../../helpers/client.js';

type Loose = Record<string, any>;

let api: ApiServerProcess;
const dir = mkdtempSync(join(tmpdir(), 'svc-pp-pvl-'));
const NS = 'presets';
const PRESETS = `/apis/settings.k8s.io/v1alpha1/namespaces/${NS}/podpresets`;

const preset = {
  apiVersion: 'settings.k8s.io/v1alpha1',
  kind: 'PodPreset',
  metadata: { name: 'allow-database' },
  spec: {
    selector: { matchLabels: { role: 'frontend' } },
    env: [{ name: 'DB_PORT', value: '6379' }],
    envFrom: [{ configMapRef: { name: 'etcd-env-config' } }],
    volumeMounts: [{ name: 'cache-volume', mountPath: '/cache' }],
    volumes: [{ name: 'cache-volume', emptyDir: {} }],
  },
};

function pod(name: string, labels: Record<string, string>, extra: { annotations?: Record<string, string>; env?: Loose[] } = {}): Loose {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      initContainers: [{ name: 'init', image: 'busybox:1' }],
      containers: [{ name: 'web', image: 'nginx:1', ...(extra.env ? { env: extra.env } : {}) }],
    },
  };
}

async function create(p: Loose): Promise<Loose> {
  const r = await api.request('POST', `/api/v1/namespaces/${NS}/pods`, p);
  assert.is(r.status, 201, r.text);
  return r.json as Loose;
}

test.before(async () => {
  api = await startApiServer({
    args: ['--runtime-config=settings.k8s.io/v1alpha1=true', '--enable-admission-plugins=PodPreset,PersistentVolumeLabel', '--cloud-provider=cloudy', `--cloud-config=${join(dir, 'cloud.json')}`],
  });
  const r = await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  assert.is(r.status, 201, r.text);
});

test.after(async () => {
  await api?.stop();
  api?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test('without settings.k8s.io/v1alpha1 the plugin is refused at start, naming the --runtime-config to add', async () => {
  let message = '';
  try {
    const s = await startApiServer({ args: ['--enable-admission-plugins=PodPreset'], readyTimeoutMs: 30_000 });
    await s.stop();
    s.cleanup();
  } catch (e) {
    message = (e as Error).message;
  }
  assert.match(message, /apiserver exited early/);
  assert.match(message, /PodPreset needs the settings\.k8s\.io\/v1alpha1 API .*--runtime-config=settings\.k8s\.io\/v1alpha1=true/);
});

test('the PodPreset kind: served in both spellings, namespaced, a preset injecting nothing refused', async () => {
  const empty = await api.request('POST', PRESETS, { ...preset, metadata: { name: 'empty' }, spec: { selector: {} } });
  assert.is(empty.status, 422, empty.text);
  assert.match(empty.json.message, /spec\.volumes\.env\.envFrom\.volumeMounts: Required value: must specify at least one/);
  const dangling = await api.request('POST', PRESETS, { ...preset, metadata: { name: 'dangling' }, spec: { ...preset.spec, volumes: [] } });
  assert.is(dangling.status, 422, dangling.text);
  assert.match(dangling.json.message, /spec\.volumeMounts\[0\]\.name: Not found: "cache-volume"/);
  const made = await api.request('POST', PRESETS, preset);
  assert.is(made.status, 201, made.text);
  assert.is(made.json.apiVersion, 'settings.k8s.io/v1alpha1');
  const ours = await api.request('GET', `/apis/settings.svc.io/v1alpha1/namespaces/${NS}/podpresets/allow-database`);
  assert.is(ours.status, 200, ours.text);
  assert.is(ours.json.apiVersion, 'settings.svc.io/v1alpha1');
  const discovery = await api.request('GET', '/apis/settings.k8s.io/v1alpha1');
  assert.ok((discovery.json.resources as Loose[]).some((r) => r['name'] === 'podpresets' && r['namespaced'] === true), discovery.text);
});

test('a matching pod gets env, envFrom, mounts in every container and the volume; the preset recorded', async () => {
  const rv = (await api.request('GET', `${PRESETS}/allow-database`)).json.metadata.resourceVersion as string;
  // The plugin reads the watch cache: the preset is there at once on one server, but allow a moment.
  let p: Loose = {};
  await eventually(async () => {
    p = await create(pod(`website-${Date.now()}`, { role: 'frontend', app: 'website' }));
    return p['metadata']['annotations']?.['podpreset.admission.svc.io/podpreset-allow-database'] !== undefined;
  }, 10_000, 'the preset applied');
  assert.is(p['metadata']['annotations']['podpreset.admission.svc.io/podpreset-allow-database'], rv);
  for (const c of [...p['spec']['containers'], ...p['spec']['initContainers']] as Loose[]) {
    assert.equal(c['env'], [{ name: 'DB_PORT', value: '6379' }], c['name']);
    assert.equal(c['envFrom'], [{ configMapRef: { name: 'etcd-env-config' } }], c['name']);
    assert.equal(c['volumeMounts'], [{ name: 'cache-volume', mountPath: '/cache' }], c['name']);
  }
  assert.equal(p['spec']['volumes'], [{ name: 'cache-volume', emptyDir: {} }]);
});

test('not matching, excluded, or conflicting: the pod is stored as sent, the conflict logged', async () => {
  const other = await create(pod('backend', { role: 'backend' }));
  const excluded = await create(pod('excluded', { role: 'frontend' }, { annotations: { 'podpreset.admission.svc.io/exclude': 'true' } }));
  const conflicting = await create(pod('conflicting', { role: 'frontend' }, { env: [{ name: 'DB_PORT', value: '5432' }] }));
  for (const p of [other, excluded, conflicting]) {
    const name = p['metadata']['name'] as string;
    assert.not.ok(Object.keys(p['metadata']['annotations'] ?? {}).some((k) => k.startsWith('podpreset.admission.svc.io/podpreset-')), name);
    assert.is(p['spec']['volumes'], undefined, name);
    assert.is(p['spec']['containers'][0]['envFrom'], undefined, name);
  }
  assert.equal(conflicting['spec']['containers'][0]['env'], [{ name: 'DB_PORT', value: '5432' }]);
  await eventually(() => /conflict occurred while applying podpresets: allow-database on pod: .*merging env for allow-database has a conflict on DB_PORT/.test(api.output()), 10_000, 'the conflict logged');
});

const ZONE = 'failure-domain.beta.svc.io/zone';
const REGION = 'failure-domain.beta.svc.io/region';
const volume = (name: string, source: Loose): Loose => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], ...source },
});

test('PersistentVolumeLabel: a cloudy disk labelled and pinned to its zone, other volumes untouched, an unknown zone refused', async () => {
  const disk = await api.request('POST', '/api/v1/persistentvolumes', volume('disk-b', { csi: { driver: 'cloudy.svc.io', volumeHandle: 'projects/svc-project/zones/cloudy-central1-b/disks/d1' } }));
  assert.is(disk.status, 201, disk.text);
  assert.equal(disk.json.metadata.labels, { [ZONE]: 'cloudy-central1-b', [REGION]: 'cloudy-central1' });
  assert.equal(disk.json.spec.nodeAffinity.required.nodeSelectorTerms, [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['cloudy-central1-b'] }, { key: REGION, operator: 'In', values: ['cloudy-central1'] }] }]);
  const local = await api.request('POST', '/api/v1/persistentvolumes', volume('local', { hostPath: { path: '/data' } }));
  assert.is(local.status, 201, local.text);
  assert.is(local.json.metadata.labels, undefined);
  assert.is(local.json.spec.nodeAffinity, undefined);
  const lost = await api.request('POST', '/api/v1/persistentvolumes', volume('lost', { csi: { driver: 'cloudy.svc.io', volumeHandle: 'projects/svc-project/zones/mars-1a/disks/d2' } }));
  assert.is(lost.status, 403, lost.text);
  assert.match(lost.json.message, /persistentvolumes "lost" is forbidden: error querying the cloud about volume lost: cloudy: .*zone mars-1a is not one of/);
  assert.match(api.output(), /PersistentVolumeLabel admission controller is deprecated/);
});

test.run();
