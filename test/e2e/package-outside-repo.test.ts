// The package as a user consumes it, outside this repository: `npm pack` of this repository is
// installed into a scratch project; a controller written there against the package's entry points
// ('svc', 'svc/client', 'svc/kinds', 'svc/testing') type-checks and builds with tsc from the
// shipped declarations; its test-cluster script sees one copy of the runtime (`instanceof
// ApiError` holds for the package's own client errors); and `npx svc up` plus `npx svc run` of
// the built module make the controller act on a real control plane.
import * as assert from 'uvu/assert';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { connect, resources, type Connection } from '../../src/client/index.js';
import { freePort, ROOT } from '../helpers/apiserver.js';
import { eventually } from '../helpers/client.js';

let dir: string;
let project: string;
const children: ReturnType<typeof spawn>[] = [];

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-package-'));
  project = join(dir, 'my-controllers');
  mkdirSync(join(project, 'src'), { recursive: true });
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
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });
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

test('npx svc up and npx svc run host the built controller', async () => {
  const port = await freePort();
  const up = spawn('npx', ['svc', 'up', `--secure-port=${port}`, '--bind-address=127.0.0.1', '--data-dir=data', '--cert-dir=data/certs', '--nodes=0'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(up);
  let upOut = '';
  up.stdout!.on('data', (d) => (upOut += d));
  up.stderr!.on('data', (d) => (upOut += d));
  await eventually(async () => /^ready$/m.test(upOut), 60_000, `svc up ready:\n${upOut.slice(-2000)}`);
  const svcconfig = join(project, 'data', 'admin.svcconfig');
  const runner = spawn('npx', ['svc', 'run', `--svcconfig=${svcconfig}`, '--secure-port=0', '--bind-address=127.0.0.1', 'dist/echo.js'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.push(runner);
  let runOut = '';
  runner.stdout!.on('data', (d) => (runOut += d));
  runner.stderr!.on('data', (d) => (runOut += d));
  const api: Connection = connect({ svcconfig, qps: 0, contentType: 'application/json' });
  try {
    await api.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hello', labels: { echo: 'yes' } }, data: { greeting: 'hi' } });
    await eventually(
      async () => {
        try {
          return ((await api.client.get(resources.configmaps, 'default', 'hello-echo'))['data'] as Record<string, string>)['greeting'] === 'hi';
        } catch {
          return false;
        }
      },
      60_000,
      `the controller's echo:\n${runOut.slice(-2000)}`,
    );
  } finally {
    await api.close();
    stop(runner);
    stop(up);
  }
});

test.run();
