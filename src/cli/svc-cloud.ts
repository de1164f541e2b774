/**
 * `svc cloud`: looks at and changes the simulated cloud (`cloudy`) in its file, as an operator
 * would at a real cloud's console; every command takes the file with --cloud-config (default
 * ./cloud.json, the file `svc up --cloud-provider=cloudy` and the examples in docs/cloud.md use):
 *
 *   svc cloud list [instances|loadbalancers|firewalls|routes]    a table of each
 *   svc cloud get <instance|loadbalancer|firewall|route> <name>  one, as JSON
 *   svc cloud delete-instance <name>                             the machine is gone (its node goes silent; cloud-node-lifecycle deletes the Node)
 *   svc cloud stop-instance <name> / start-instance <name>       shut down (the Node is tainted) / running again
 *   svc cloud fail <method|*> [--count N] [--message TEXT]       the cloud's next N calls of a method fail (all, without --count)
 *   svc cloud heal [method]                                      no more injected failures
 *   svc cloud set latency <ms> | quota loadbalancers <n>         how slow and how big the cloud is
 */
import { Command } from 'commander';
import { Cloudy } from '../cloud/cloudy/index.js';
import type { CloudyDocument } from '../cloud/cloudy/state.js';

const KINDS = { instances: 'instances', loadbalancers: 'loadBalancers', firewalls: 'firewalls', routes: 'routes' } as const;
type Kind = keyof typeof KINDS;
const SINGULAR: Record<string, Kind> = { instance: 'instances', loadbalancer: 'loadbalancers', firewall: 'firewalls', route: 'routes' };

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]! + 3))).join('').trimEnd()).join('\n') + '\n';
}

/** The table `svc cloud list <kind>` prints (exported for tests). */
export function listText(doc: CloudyDocument, kind: Kind): string {
  switch (kind) {
    case 'instances':
      return table([['NAME', 'ZONE', 'TYPE', 'INTERNAL-IP', 'EXTERNAL-IP', 'STATE'], ...Object.entries(doc.instances).map(([n, i]) => [n, i.zone, i.instanceType, i.internalIP, i.externalIP, i.state])]);
    case 'loadbalancers':
      return table([
        ['NAME', 'SERVICE', 'IP', 'LISTENERS', 'TARGETS'],
        ...Object.entries(doc.loadBalancers).map(([n, l]) => [n, l.service, l.ip, l.listeners.map((x) => `${x.protocol}:${x.port}->${x.nodePort}`).join(',') || '<none>', String(l.targets.length)]),
      ]);
    case 'firewalls':
      return table([
        ['NAME', 'LOAD-BALANCER', 'SOURCE-RANGES', 'ALLOWED'],
        ...Object.entries(doc.firewalls).map(([n, f]) => [n, f.loadBalancer, f.sourceRanges.join(','), f.allowed.map((a) => `${a.protocol}:${a.ports.join(',')}`).join(' ')]),
      ]);
    case 'routes':
      return table([['NAME', 'CLUSTER', 'TARGET', 'DESTINATION'], ...Object.entries(doc.routes).map(([n, r]) => [n, r.cluster, r.targetNode, r.destinationCIDR])]);
  }
}

function kindOf(word: string): Kind {
  const k = (word in KINDS ? word : SINGULAR[word]) as Kind | undefined;
  if (!k) throw new Error(`unknown kind "${word}": one of ${Object.keys(SINGULAR).join(', ')}`);
  return k;
}

export function cloudCommand(): Command {
  const cmd = new Command('cloud').description('Looks at and changes the simulated cloud (cloudy) in its --cloud-config file: instances, load balancers, firewall rules, routes, injected failures.');
  const withCloud = (c: Command) => c.option('--cloud-config <file>', 'the simulated cloud\'s file', './cloud.json');
  const run = (fn: (cloud: Cloudy, ...args: string[]) => Promise<string> | string) =>
    async (...args: unknown[]) => {
      const opts = (args.at(-1) as Command).opts<{ cloudConfig: string }>();
      try {
        const out = await fn(new Cloudy({ file: opts.cloudConfig }), ...(args.slice(0, -2) as string[]));
        if (out) process.stdout.write(out);
      } catch (e) {
        process.stderr.write(`svc cloud ${(args.at(-1) as Command).name()}: error: ${(e as Error).message}\n`);
        process.exitCode = 1;
      }
    };
  withCloud(cmd.command('list').description('Tables of the cloud\'s instances, load balancers, firewall rules and routes (or one kind).').argument('[kind]', 'instances, loadbalancers, firewalls or routes')).action(
    run((cloud, kind) => {
      const doc = cloud.file.read();
      const kinds = kind ? [kindOf(kind)] : (Object.keys(KINDS) as Kind[]);
      return kinds.map((k) => (kinds.length > 1 ? `${k.toUpperCase()}\n` : '') + listText(doc, k)).join('\n');
    }),
  );
  withCloud(cmd.command('get').description('One object of the cloud, as JSON.').argument('<kind>', 'instance, loadbalancer, firewall or route').argument('<name>')).action(
    run((cloud, kind, name) => {
      const k = kindOf(kind!);
      const obj = (cloud.file.read()[KINDS[k]] as Record<string, unknown>)[name!];
      if (!obj) throw new Error(`no ${kind} "${name}" in ${cloud.file.path}`);
      return `${JSON.stringify(obj, null, 2)}\n`;
    }),
  );
  for (const [verb, what] of [['delete-instance', 'Deletes an instance: its node goes silent and the cloud-node-lifecycle controller deletes its Node.'], ['stop-instance', 'Shuts an instance down: its node goes silent and is tainted node.cloudprovider.svc.io/shutdown.'], ['start-instance', 'Starts a stopped instance again.']] as const) {
    withCloud(cmd.command(verb).description(what).argument('<name>')).action(
      run(async (cloud, name) => {
        const ok = verb === 'delete-instance' ? await cloud.deleteInstance(name!) : await cloud.setInstanceState(name!, verb === 'stop-instance' ? 'stopped' : 'running');
        if (!ok) throw new Error(`no instance "${name}" in ${cloud.file.path}`);
        return `instance ${name} ${verb === 'delete-instance' ? 'deleted' : verb === 'stop-instance' ? 'stopped' : 'started'}\n`;
      }),
    );
  }
  withCloud(
    cmd
      .command('fail')
      .description('Makes the cloud\'s calls of a method fail (ensureLoadBalancer, updateLoadBalancer, ensureLoadBalancerDeleted, getLoadBalancer, createRoute, deleteRoute, listRoutes, instanceMetadata, instanceExists, instanceShutdown, or * for all).')
      .argument('<method>')
      .option('--count <n>', 'only the next n calls (default: all until healed)')
      .option('--message <text>', 'the error the calls fail with'),
  ).action(async (method: string, opts: { count?: string; message?: string; cloudConfig: string }, self: Command) => {
    await run(async (cloud) => {
      const count = opts.count === undefined ? undefined : Number(opts.count);
      if (count !== undefined && (!Number.isInteger(count) || count < 1)) throw new Error(`invalid value ${JSON.stringify(opts.count)} for --count: a whole number, at least 1`);
      await cloud.fail(method, { ...(count !== undefined ? { count } : {}), ...(opts.message ? { message: opts.message } : {}) });
      return `${method}: ${count === undefined ? 'every call' : `the next ${count} call(s)`} will fail\n`;
    })(opts, self);
  });
  withCloud(cmd.command('heal').description('Removes injected failures (of one method, or all).').argument('[method]')).action(
    run(async (cloud, method) => {
      await cloud.heal(method);
      return `${method ?? 'all methods'}: healed\n`;
    }),
  );
  withCloud(cmd.command('set').description('Sets the cloud\'s latency (ms per call) or its load-balancer quota: `set latency 200`, `set quota loadbalancers 10`.').argument('<what...>')).action(
    run(async (cloud, ...what) => {
      const words = (what[0] as unknown as string[] | undefined) ?? [];
      const n = Number(words.at(-1));
      if (words[0] === 'latency' && words.length === 2 && Number.isFinite(n) && n >= 0) await cloud.file.transact((d) => void (d.latencyMs = n));
      else if (words[0] === 'quota' && words[1] === 'loadbalancers' && words.length === 3 && Number.isInteger(n) && n >= 0) await cloud.file.transact((d) => void (d.quotas.loadBalancers = n));
      else throw new Error('expected `set latency <ms>` or `set quota loadbalancers <n>`');
      return `${words.join(' ')}: set\n`;
    }),
  );
  return cmd;
}
