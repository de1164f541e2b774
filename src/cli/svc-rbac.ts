/**
 * `svc rbac [flags] <module...>`: the RBAC objects a controller module needs, as YAML to apply
 * with kubectl — a ClusterRole made of what its controllers watch, own, are triggered by, the
 * Events they record and the `permissions` they declare (src/runtime/controller-permissions.ts),
 * and with `--service-account ns/name` that ServiceAccount and a ClusterRoleBinding to it.
 *
 *   svc rbac dist/mirror-controller.js
 *   svc rbac --service-account mirror/mirror-controller dist/mirror-controller.js | kubectl apply -f -
 */
import { Command } from 'commander';
import { stringify } from 'yaml';
import { controllerClusterRole } from '../runtime/controller-permissions.js';
import { loadControllerModules } from './controller-modules.js';

export interface RbacOptions {
  name?: string;
  serviceAccount?: string;
}

/** The YAML documents for `modules` (exported for tests). */
export async function rbacDocuments(modules: readonly string[], opts: RbacOptions): Promise<object[]> {
  const definitions = await loadControllerModules(modules);
  const name = opts.name ?? definitions.map((d) => d.name).sort().join('.');
  const role = controllerClusterRole(name, definitions.map((d) => d.spec));
  const docs: object[] = [role];
  if (opts.serviceAccount !== undefined) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(opts.serviceAccount);
    if (!m) throw new Error(`invalid value ${JSON.stringify(opts.serviceAccount)} for --service-account: expected <namespace>/<name>, e.g. mirror/mirror-controller`);
    const [namespace, account] = [m[1]!, m[3]!];
    docs.push(
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: account, namespace } },
      {
        apiVersion: 'rbac.authorization.svc.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name },
        subjects: [{ kind: 'ServiceAccount', name: account, namespace }],
      },
    );
  }
  return docs;
}

export function rbacCommand(): Command {
  return new Command('rbac')
    .description('Prints the ClusterRole (and with --service-account its ServiceAccount and binding) that controller modules need, as YAML for kubectl apply.')
    .usage('[flags] <module...>')
    .argument('<module...>', 'controller module files (.js/.mjs/.cjs) exporting defineController definitions')
    .option('--name <name>', "the ClusterRole's (and binding's) name; default the controllers' names, sorted and joined by \".\"")
    .option('--service-account <namespace/name>', 'also print this ServiceAccount and a ClusterRoleBinding of the role to it')
    .action(async (modules: string[], opts: RbacOptions) => {
      try {
        const docs = await rbacDocuments(modules, opts);
        process.stdout.write(docs.map((d) => stringify(d)).join('---\n'));
      } catch (err) {
        process.stderr.write(`svc rbac: error: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
}
