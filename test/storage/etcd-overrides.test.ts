/**
 * openStorage: embedded without --kvstore-servers, etcd with it, and --kvstore-servers-overrides
 * routing single resources to a second etcd (one shared client per distinct server set).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { StorageConfig } from '../../src/apiserver/config.js';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { openStorage, StorageConfigError, validateServerUrl } from '../../src/storage/open.js';
import { startEtcd, type RunningEtcd } from '../helpers/etcd.js';
import { bytes, text, uniquePrefix } from './contract.js';

const logger = pino({ level: 'silent' });
let main: RunningEtcd;
let second: RunningEtcd;
let mainDirect: EtcdStore;
let secondDirect: EtcdStore;
const dirs: string[] = [];

function config(over: Partial<StorageConfig>): StorageConfig {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-open-'));
  dirs.push(dataDir);
  return {
    servers: [],
    serversOverrides: {},
    prefix: '/registry',
    dataDir,
    compactionIntervalMs: 0,
    countMetricPollPeriodMs: 0,
    mediaType: 'application/json',
    ...over,
  };
}

test.before(async () => {
  [main, second] = await Promise.all([startEtcd(), startEtcd()]);
  mainDirect = await openEtcdStore({ endpoints: [main.endpoint] });
  secondDirect = await openEtcdStore({ endpoints: [second.endpoint] });
});
test.after(async () => {
  await mainDirect?.close();
  await secondDirect?.close();
  await Promise.all([main?.stop(), second?.stop()]);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test('an override sends that resource to its own etcd and everything else to --kvstore-servers', async () => {
  const p = uniquePrefix('registry');
  const storage = await openStorage(
    config({ servers: [main.endpoint], serversOverrides: { '/pods': [second.endpoint], 'apps/deployments': [second.endpoint] } }),
    logger,
  );
  try {
    const pods = storage.forResource('', 'pods');
    const deployments = storage.forResource('apps', 'deployments');
    const configmaps = storage.forResource('', 'configmaps');
    assert.is(pods, deployments, 'one client per distinct server set');
    assert.is.not(pods, configmaps);
    assert.is(storage.forResource('apps', 'replicasets'), configmaps);
    assert.is(storage.forResource('other', 'pods'), configmaps, 'override keys include the group');
    assert.is(storage.stores().length, 2);
    assert.is(storage.engineFor('', 'pods'), 'etcd3');

    await pods.create(`${p}pods/default/web`, bytes('pod'));
    await configmaps.create(`${p}configmaps/default/cfg`, bytes('cm'));
    assert.is(text((await secondDirect.get(`${p}pods/default/web`))?.value), 'pod');
    assert.is(await mainDirect.get(`${p}pods/default/web`), undefined);
    assert.is(text((await mainDirect.get(`${p}configmaps/default/cfg`))?.value), 'cm');
    assert.is(await secondDirect.get(`${p}configmaps/default/cfg`), undefined);
  } finally {
    await storage.close();
  }
});

test('without --kvstore-servers the embedded engine serves everything not overridden', async () => {
  const storage = await openStorage(config({ serversOverrides: { '/events': [second.endpoint] } }), logger);
  try {
    assert.is(storage.engineFor('', 'configmaps'), 'embedded');
    assert.is(storage.engineFor('', 'events'), 'etcd3');
    const p = uniquePrefix('mixed');
    await storage.forResource('', 'events').create(`${p}e`, bytes('ev'));
    assert.ok(await secondDirect.get(`${p}e`));
    assert.is(await storage.forResource('', 'configmaps').get(`${p}e`), undefined);
  } finally {
    await storage.close();
  }
});

test('the default server set and an override with the same servers share one client', async () => {
  const storage = await openStorage(config({ servers: [main.endpoint], serversOverrides: { '/pods': [main.endpoint] } }), logger);
  try {
    assert.is(storage.stores().length, 1);
    assert.is(storage.forResource('', 'pods'), storage.forResource('', 'nodes'));
  } finally {
    await storage.close();
  }
});

test('bad server URLs and override keys are rejected with a clear error', async () => {
  const bad: [Partial<StorageConfig>, RegExp][] = [
    [{ servers: ['ftp://127.0.0.1:2379'] }, /only http and https/],
    [{ servers: ['http://127.0.0.1'] }, /explicit port/],
    [{ servers: ['127.0.0.1:2379'] }, /not a URL|scheme/],
    [{ servers: ['http://127.0.0.1:2379/v3'] }, /no path/],
    [{ servers: ['http://127.0.0.1:99999'] }, /not a URL|outside/],
    [{ serversOverrides: { pods: [main.endpoint] } }, /group\/resource/],
    [{ serversOverrides: { '/pods': ['https://'] } }, /kvstore-servers-overrides/],
    [{ serversOverrides: { '/pods': [] } }, /no servers/],
  ];
  for (const [over, message] of bad) {
    const err = await openStorage(config(over), logger).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    assert.instance(err, StorageConfigError, JSON.stringify(over));
    assert.match(err!.message, message);
  }
  assert.is(validateServerUrl(' https://[::1]:2379 '), 'https://[::1]:2379');
  assert.is(validateServerUrl('http://etcd-0.local:2379'), 'http://etcd-0.local:2379');
});

test('an unreachable etcd fails to open with StorageUnavailableError instead of hanging', async () => {
  const started = Date.now();
  const err = await openEtcdStore({ endpoints: ['http://127.0.0.1:1'], connectTimeoutMs: 1500 }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  assert.is(err?.name, 'StorageUnavailableError');
  assert.ok(Date.now() - started < 10_000);
});

test.run();
