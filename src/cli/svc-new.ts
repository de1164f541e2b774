/**
 * `svc new controller <name>`: a project of your own with a controller, its test against a test
 * cluster, and a build, working as generated (`npm install && npm test`). The project depends on
 * svc as the project that installed this copy does (the same registry version or tarball), or on
 * this folder when svc is not installed as a dependency (a clone); so it builds against one copy of
 * the runtime, and `npx svc run` hosts the built controller.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';

/** A DNS-1123 label: the controller's name is also a label key part and a file name. */
const NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The root of the installed svc package (the folder holding its package.json). */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === 'svc') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the svc package root above this command');
    dir = up;
  }
}

/**
 * The dependency spec for svc in a new project: when this copy sits in `<project>/node_modules/svc`,
 * the spec `<project>` used (a `file:` path made absolute); otherwise `file:<root>`.
 */
export function svcDependencySpec(root: string): string {
  const modules = dirname(root);
  if (basename(modules) === 'node_modules') {
    const project = dirname(modules);
    try {
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      const spec = pkg.dependencies?.['svc'] ?? pkg.devDependencies?.['svc'];
      if (spec) return spec.startsWith('file:') ? `file:${resolve(project, spec.slice('file:'.length))}` : spec;
    } catch {
      // no readable project around it: fall back to this folder
    }
  }
  return `file:${root}`;
}

const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The files of a new controller project, by path relative to its folder. */
export function controllerProjectFiles(name: string, svcDependency: string, devDependencies: Record<string, string>): Record<string, string> {
  const id = camel(name);
  const label = `example.com/${name}`;
  return {
    'package.json': `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        type: 'module',
        scripts: { build: 'tsc -p .', test: 'npm run build && node --test dist/test/', start: `svc run dist/src/${name}.js` },
        dependencies: { svc: svcDependency },
        devDependencies,
      },
      null,
      2,
    )}\n`,
    'tsconfig.json': `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'dist', rootDir: '.', skipLibCheck: true, types: ['node'] }, include: ['src', 'test'] }, null, 2)}\n`,
    [`src/${name}.ts`]: `// ${name}: every ConfigMap labelled ${label}=true gets a sibling "<name>-copy" holding its data.
// Change reconcile() to do what your controller does; the test beside it shows it working.
import { defineController, done, resources } from 'svc';

export const LABEL = '${label}';

export const ${id} = defineController({
  name: '${name}',
  watches: resources.configmaps,
  selector: { labelSelector: \`\${LABEL}=true\` },
  // RBAC rules for the writes it makes beyond what it watches: the copies (server-side apply is a
  // patch that creates). The test cluster runs it with exactly these; \`svc rbac\` prints the role.
  permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch'] }],
  async reconcile(_key, { object, namespace, name, client }) {
    if (!object) return done(); // deleted: nothing to do
    await client.apply(
      resources.configmaps,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: \`\${name}-copy\`, namespace: namespace! }, data: { ...(object.data ?? {}) } },
      { fieldManager: '${name}', force: true },
    );
    return done();
  },
});
`,
    [`test/${name}.test.ts`]: `// ${name} against a whole cluster in this process (the API server and the controller under test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resources } from 'svc';
import { startTestCluster } from 'svc/testing';
import { ${id}, LABEL } from '../src/${name}.js';

test('a labelled ConfigMap gets its copy', async () => {
  const cluster = await startTestCluster({ scheduler: false, extraControllers: [${id}] });
  try {
    await cluster.client.create(resources.configmaps, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', labels: { [LABEL]: 'true' } }, data: { color: 'blue' } });
    for (const deadline = Date.now() + 10_000; ; ) {
      const copy = await cluster.client.get(resources.configmaps, 'default', 'settings-copy').catch(() => undefined);
      if (copy) {
        assert.deepEqual(copy.data, { color: 'blue' });
        break;
      }
      assert.ok(Date.now() < deadline, 'the copy appeared within 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await cluster.stop();
  }
});
`,
    'README.md': `# ${name}

A controller written with svc (docs/writing-controllers.md in the svc package).

\`\`\`sh
npm install
npm test                      # builds, then runs test/${name}.test.ts against a test cluster
npx svc run --svcconfig=<your svcconfig> dist/src/${name}.js   # against a running control plane (e.g. npx svc up)
\`\`\`
`,
  };
}

export function newCommand(): Command {
  const controller = new Command('controller')
    .description('Create a project with a controller, its test and a build, ready for `npm install && npm test`.')
    .argument('<name>', 'the controller name: lower-case letters, digits and dashes (a DNS label)')
    .option('--dir <path>', 'Folder to create (default: ./<name>); it must not exist yet.')
    .helpOption('-h, --help', 'Print help.')
    .action((name: string, opts: { dir?: string }) => {
      if (!NAME.test(name)) throw new Error(`invalid controller name ${JSON.stringify(name)}: use lower-case letters, digits and dashes, starting with a letter (e.g. configmap-backup)`);
      const dir = resolve(opts.dir ?? name);
      if (existsSync(dir)) throw new Error(`${dir} already exists; pick another --dir`);
      const root = packageRoot();
      const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
      const dev = { typescript: own.devDependencies?.['typescript'] ?? '^5.0.0', '@types/node': own.devDependencies?.['@types/node'] ?? '^20.0.0' };
      for (const [file, text] of Object.entries(controllerProjectFiles(name, svcDependencySpec(root), dev))) {
        mkdirSync(dirname(join(dir, file)), { recursive: true });
        writeFileSync(join(dir, file), text);
      }
      process.stdout.write(`created ${dir}\nnext: cd ${dir} && npm install && npm test\n`);
    });
  return new Command('new').description('Create a new project from a template.').helpOption('-h, --help', 'Print help.').addCommand(controller.exitOverride());
}
