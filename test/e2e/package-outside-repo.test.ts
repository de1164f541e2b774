// What a new user does, outside this repository, from a clean scratch folder: `npm pack` of this
// repository is installed into a scratch project; a controller written there against the package's
// entry points ('svc', 'svc/client', 'svc/kinds', 'svc/testing') type-checks and builds with tsc
// from the shipped declarations, and sees one copy of the runtime (`instanceof ApiError` holds for
// the package's own client errors). Then `npx svc new controller` scaffolds a project (depending
// on the same tarball), which installs, builds and passes its own test; `npx svc up` and
// `npx svc run` make the scaffolded controller act; `npx svc charts` draws it (its watched kind
// appears); and its live view (/debug/machines on svc run's port) shows its queue and outcomes.
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { connect, resources, type Connection } from '../../src/client/index.js';
import { freePort, ROOT } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';

let dir: string;
let project: string;
let tarballPath: string;
/** The scaffolded controller's project. */
let scaffold: string;
const children: ReturnType<typeof spawn>[] = [];

/**
 * better-sqlite3's install script asks prebuild-install for the binary of this Node.js ABI, which
 * downloads it from GitHub; this machine reaches only the npm registry, so each install would
 * compile SQLite from source (about two minutes per install on 2 cores). prebuild-install's
 * documented offline route is a folder of local prebuilds named as the download would be: we put the
 * binary this checkout already built there, for the version this checkout pins. An install that
 * resolves another version finds no file of that name and compiles, as before.
 */
const localPrebuilds = () => join(dir, 'prebuilds');
function stageSqlitePrebuild(): void {
  const pkgDir = join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  mkdirSync(localPrebuilds(), { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(localPrebuilds(), name), '-C', pkgDir, 'build/Release/better_sqlite3.node']);
}

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-package-'));
  project = join(dir, 'my-controllers');
  mkdirSync(join(project, 'src'), { recursive: true });
  stageSqlitePrebuild();
});

/** npx runs the command under a shell of its own: the whole process group is stopped. */
function stop(child: ReturnType<typeof spawn>): void {
  if (child.exitCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

test.after(async () => {
  for (const c of children) stop(c);
  await new Promise((r) => setTimeout(r, 1_000));
  rmSync(dir, { recursive: true, force: true });
});

function run(cmd: string, args: string[], cwd: string, timeoutMs = 300_000): string {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_better_sqlite3_local_prebuilds: localPrebuilds() } });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

test('npm pack, then npm install of the tarball into a scratch project', () => {
  // dist/ is built by `npm test`'s pretest; --ignore-scripts skips prepack's second build.
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], ROOT);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'a tarball');
  tarballPath = join(dir, tarball!);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'my-controllers', version: '1.0.0', private: true, type: 'module' }, null, 2));
  run('npm', ['install', '--prefer-offline', join(dir, tarball!)], project);
});

test('a controller written against the package type-checks and builds from the shipped declarations', () => {
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: 'src', skipLibCheck: true, types: [] } }),
  );
  writeFileSync(
    join(project, 'src', 'echo.ts'),
    `import { defineController, done, isAlreadyExists, resources } from 'svc';
import type { ConfigMap } from 'svc/kinds';

/** Every ConfigMap labelled echo=yes gets a sibling <name>-echo with its data (the object type comes from the ref). */
export const echo = defineController({
  name: 'outside-echo',
  watches: resources.configmaps,
  selector: { labelSelector: 'echo=yes' },
  async reconcile(_key, { object, namespace, name, client }) {
    if (!object) return done();
    const copy: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: name + '-echo', namespace: namespace! }, data: { ...(object.data ?? {}) } };
    try {
      await client.create(resources.configmaps, namespace!, copy);
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
    return done();
  },
});
`,
  );
  writeFileSync(
    join(project, 'src', 'one-runtime.ts'),
    `import { ApiError } from 'svc';
import { ApiError as ClientApiError, resources } from 'svc/client';
import { startTestCluster } from 'svc/testing';

const cluster = await startTestCluster();
try {
  await cluster.client.get(resources.configmaps, 'default', 'missing');
  console.log('no error');
} catch (e) {
  console.log(JSON.stringify({ same: ApiError === ClientApiError, instance: e instanceof ApiError, code: e instanceof ApiError ? e.code : null }));
} finally {
  await cluster.stop();
}
`,
  );
  run(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], project);
  const out = run(process.execPath, [join(project, 'dist', 'one-runtime.js')], project, 60_000).trim().split('\n').pop()!;
  assert.equal(JSON.parse(out), { same: true, instance: true, code: 404 });
});

test('npx svc new controller: the scaffold depends on the same tarball, installs, builds and passes its test', () => {
  const out = run('npx', ['svc', 'new', 'controller', 'cm-copy'], project);
  scaffold = join(project, 'cm-copy');
  assert.match(out, `created ${scaffold}`);
  const pkg = JSON.parse(readFileSync(join(scaffold, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  assert.is(pkg.dependencies['svc'], `file:${tarballPath}`, 'the spec the installing project used, made absolute');
  run('npm', ['install', '--prefer-offline'], scaffold);
  const test = run('npm', ['test'], scaffold);
  assert.match(test, /# pass 1/);
  assert.match(test, /# fail 0/);
});

/** GET over HTTPS from svc run's self-signed serving certificate (a local debug endpoint). */
function getInsecure(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

interface LiveActor {
  id: string;
  live?: { queue: { depth: number; inFlight: number }; recent: Array<{ key: string; outcome: string; durationMs: number; retries: number }>; informers: Array<{ resource: string; synced: boolean }> };
}

test('npx svc up and npx svc run host the scaffolded controller; svc charts draws it; its live view shows the queue and outcomes', async () => {
  const port = await freePort();
  const up = spawn('npx', ['svc', 'up', `--secure-port=${port}`, '--bind-address=127.0.0.1', '--data-dir=data', '--cert-dir=data/certs', '--nodes=0'], { cwd: scaffold, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(up);
  let upOut = '';
  up.stdout!.on('data', (d) => (upOut += d));
  up.stderr!.on('data', (d) => (upOut += d));
  await eventually(async () => /^ready$/m.test(upOut) || /"msg":"ready"/.test(upOut), 60_000, `svc up ready:\n${upOut.slice(-2000)}`);
  const svcconfig = join(scaffold, 'data', 'admin.svcconfig');
  const debugPort = await freePort();
  const runner = spawn('npx', ['svc', 'run', `--svcconfig=${svcconfig}`, `--secure-port=${debugPort}`, '--bind-address=127.0.0.1', '--cert-dir=data/run-certs', 'dist/src/cm-copy.js'], { cwd: scaffold, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(runner);
  let runOut = '';
  runner.stdout!.on('data', (d) => (runOut += d));
  runner.stderr!.on('data', (d) => (runOut += d));
  const api: Connection = connect({ svcconfig, qps: 0, contentType: 'application/json' });
  try {
    await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hello', labels: { 'example.com/cm-copy': 'true' } }, data: { greeting: 'hi' } });
    await eventually(
      async () => ((await api.client.get(resources.configmaps, 'default', 'hello-copy').catch(() => undefined))?.data?.['greeting']) === 'hi',
      60_000,
      `the controller's copy:\n${runOut.slice(-2000)}`,
    );

    // Its chart, drawn from the definition: the watched kind and its selector appear.
    const chart = run('npx', ['svc', 'charts', 'dist/src/cm-copy.js'], scaffold);
    assert.match(chart, /watches ConfigMap \(labels example\.com\/cm-copy=true\)/);
    assert.match(chart, /TerminalError/);

    // Its live view: named after it, the queue depth, the reconcile of default/hello, its informer synced.
    let actor: LiveActor | undefined;
    await eventually(async () => {
      const r = await getInsecure(`https://127.0.0.1:${debugPort}/debug/machines`).catch(() => undefined);
      if (r?.status !== 200) return false;
      actor = (JSON.parse(r.body) as { actors: LiveActor[] }).actors.find((a) => a.id === 'cm-copy');
      return actor?.live?.recent.some((x) => x.key === 'default/hello' && x.outcome === 'done') === true;
    }, 30_000, `the live view of cm-copy:\n${runOut.slice(-2000)}`);
    assert.is(typeof actor!.live!.queue.depth, 'number');
    assert.equal(actor!.live!.informers.map((i) => [i.resource, i.synced]), [['configmaps', true]]);
    const ui = await getInsecure(`https://127.0.0.1:${debugPort}/debug/machines/ui`);
    assert.is(ui.status, 200);
    assert.match(ui.body, /data-live/);
  } finally {
    await api.close();
    stop(runner);
    stop(up);
  }
});

test.run();
