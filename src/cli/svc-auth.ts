/**
 * `svc auth who-can` and `svc auth access-matrix`: who may do what, answered by the authorizer in
 * force on the server (SubjectAccessReviews, so RBAC, Node, Webhook and ABAC are all heard), not by
 * re-reading the policy here. The established server has neither; people install kubectl plugins.
 *
 *   svc auth who-can delete pods -n default        subjects allowed, with the reason the server gave
 *   svc auth access-matrix --as jane -n default    every resource x verb for one user
 *
 * The questions and answers have one home, src/client/access-review.ts (the /debug/machines
 * page's access panel asks the same); this file is the command line around them. The caller needs
 * `create` on subjectaccessreviews and, for who-can, `list` on the bindings.
 */
import { Command } from 'commander';
import type { ApiClient } from '../client/types.js';
import { connect } from '../client/connect.js';
import { accessMatrix, MATRIX_VERBS, whoCan } from '../client/access-review.js';


interface ClientFlags {
  svcconfig?: string;
  master?: string;
  context?: string;
}

function clientOf(opts: ClientFlags) {
  return connect({
    ...(opts.svcconfig ? { svcconfig: opts.svcconfig } : { svcconfig: process.env['SVCCONFIG'] ?? '' }),
    ...(opts.master ? { master: opts.master } : {}),
    ...(opts.context ? { context: opts.context } : {}),
    contentType: 'application/json',
    qps: 0,
  });
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]! + 3))).join('').trimEnd()).join('\n') + '\n';
}

async function run(opts: ClientFlags, body: (client: ApiClient) => Promise<string>): Promise<void> {
  let conn: ReturnType<typeof connect> | undefined;
  try {
    conn = clientOf(opts);
    process.stdout.write(await body(conn.client));
  } catch (err) {
    process.stderr.write(`svc auth: error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  } finally {
    await conn?.close();
  }
}

const withClientFlags = (c: Command): Command =>
  c
    .option('--svcconfig <file>', 'client configuration file (default $SVCCONFIG)')
    .option('--master <url>', 'API server address; overrides the file')
    .option('--context <name>', 'context of the configuration file to use');

export function authCommand(): Command {
  const cmd = new Command('auth').description('Who may do what, as the server in force decides it.');
  cmd.addCommand(
    withClientFlags(new Command('who-can'))
      .description('Lists the subjects (users, groups, service accounts named in bindings) allowed <verb> on <resource>.')
      .argument('<verb>', 'e.g. get, list, create, delete, impersonate')
      .argument('<resource>', 'e.g. pods, deployments.apps, pods/log')
      .argument('[name]', 'one object by name')
      .option('-n, --namespace <ns>', 'the namespace (default: cluster-wide)', '')
      .action(async (verb: string, resource: string, name: string | undefined, opts: ClientFlags & { namespace: string }) => {
        await run(opts, async (client) => {
          const allowed = await whoCan(client, { verb, resource, namespace: opts.namespace, ...(name ? { name } : {}) });
          if (allowed.length === 0) return `no subject may ${verb} ${resource}${opts.namespace ? ` in ${opts.namespace}` : ''}\n`;
          return table([['KIND', 'NAME', 'NAMESPACE', 'REASON'], ...allowed.map(({ subject, reason }) => [subject.kind, subject.name, subject.namespace ?? '', reason])]);
        });
      }),
  );
  cmd.addCommand(
    withClientFlags(new Command('access-matrix'))
      .description('Every resource x verb, allowed (yes) or not (no) for one user.')
      .requiredOption('--as <user>', 'the user asked about')
      .option('--as-group <group...>', 'groups of that user')
      .option('-n, --namespace <ns>', 'namespaced resources in this namespace (default: every resource, cluster-wide)', '')
      .action(async (opts: ClientFlags & { as: string; asGroup?: string[]; namespace: string }) => {
        await run(opts, async (client) => {
          const rows = await accessMatrix(client, { user: opts.as, groups: opts.asGroup ?? [] }, opts.namespace);
          const mark = (v: boolean | undefined) => (v === undefined ? 'n/a' : v ? 'yes' : 'no');
          return table([['RESOURCE', ...MATRIX_VERBS.map((v) => v.toUpperCase())], ...rows.map((r) => [r.resource, ...MATRIX_VERBS.map((v) => mark(r.verbs[v]))])]);
        });
      }),
  );
  return cmd;
}
