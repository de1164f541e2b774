/**
 * `svc certs issue <user>`: a client configuration for a user of a `svc up` cluster, with a client
 * certificate from its cluster CA (CommonName = the user, one Organization per --group), pointing
 * at the server and trusting the certificate named in the cluster's admin.svcconfig. This is how
 * the separate daemons get identities of their own:
 *
 *   svc certs issue system:svc-scheduler --out scheduler.svcconfig
 *   svc certs issue system:svc-controller-manager --out controller-manager.svcconfig
 *   svc certs issue system:svc-nodes --group system:nodes --out nodes.svcconfig
 *   svc certs issue jane --group devs --out jane.svcconfig
 *
 * The CA is read from `<data-dir>/certs` (or --cert-dir), never made here: the command fails,
 * saying so, before svc up has run. Without --out the configuration goes to standard output.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { parse } from 'yaml';
import { ADMIN_CONFIG_FILE, clientConfigText, writeClientConfig } from './admin-config.js';
import { issueClientCertificate, loadClusterCA } from './pki.js';

export interface IssueOptions {
  group: string[];
  dataDir: string;
  certDir?: string;
  out?: string;
  server?: string;
  days: string;
}

/** The server URL and trusted certificate of `<dataDir>/admin.svcconfig`. */
function clusterOf(dataDir: string): { server: string; caPem: string } {
  const file = join(dataDir, ADMIN_CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): start svc up with --data-dir=${dataDir} first`);
  }
  const doc = parse(text) as { clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[] };
  const cluster = doc.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster['certificate-authority-data']) throw new Error(`${file} names no server and certificate-authority-data`);
  return { server: cluster.server, caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') };
}

/** The client configuration text for `user` (exported for tests). */
export async function issueClientConfig(user: string, o: IssueOptions): Promise<string> {
  const days = Number(o.days);
  if (!Number.isInteger(days) || days < 1) throw new Error(`invalid value ${JSON.stringify(o.days)} for --days: a whole number of days, at least 1`);
  const cluster = clusterOf(o.dataDir);
  const ca = await loadClusterCA(o.certDir ?? join(o.dataDir, 'certs'));
  const pair = await issueClientCertificate(ca, { user, groups: o.group, lifetimeMs: days * 24 * 3600 * 1000 });
  const config = { serverUrl: o.server ?? cluster.server, caPem: cluster.caPem, userName: user, credentials: { clientCertificate: pair } };
  if (o.out) {
    writeClientConfig(o.out, config);
    return '';
  }
  return clientConfigText(config);
}

export function certsCommand(): Command {
  const certs = new Command('certs').description('Client certificates from the cluster CA of svc up, for the separate daemons and for people.');
  certs
    .command('issue')
    .description('Writes a client configuration (kubeconfig) whose client certificate from the cluster CA names <user> and --group groups.')
    .argument('<user>', 'the user name (the certificate\'s CommonName), e.g. system:svc-scheduler')
    .option('--group <group>', 'a group (an Organization of the certificate); repeatable', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--data-dir <dir>', 'the data folder of svc up (its admin.svcconfig names the server)', './data')
    .option('--cert-dir <dir>', 'the folder of the cluster CA (ca.crt, ca.key); default <data-dir>/certs')
    .option('--server <url>', 'the server URL to write; default the one in admin.svcconfig')
    .option('--days <n>', 'how long the certificate is valid', '365')
    .option('--out <file>', 'write here (0600) instead of standard output')
    .action(async (user: string, opts: IssueOptions) => {
      try {
        const text = await issueClientConfig(user, opts);
        if (text) process.stdout.write(text);
        else process.stderr.write(`wrote ${opts.out} for user ${user}${opts.group.length ? ` in ${opts.group.join(', ')}` : ''}\n`);
      } catch (err) {
        process.stderr.write(`svc certs issue: error: ${(err as Error).message}\n`);
        process.exitCode = 1;
      }
    });
  return certs;
}
