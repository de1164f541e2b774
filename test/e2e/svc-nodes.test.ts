// `svc nodes` as a real process against the real apiserver process over HTTPS: nodes register
// Ready, a bound pod runs, `svc nodes fault` / `recover` change what a node shows, SIGTERM exits 0;
// bad flags and fault names are clear errors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Lease, Node, Pod } from '../../src/api/generated/kinds.js';
import { resources, type ApiClient } from '../../src/client/index.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { realClient } from '../helpers/real-client.js';
import { startSvc } from '../helpers/svc-process.js';
import { kubeconfigFor, kubectl, kubectlStream, KUBECTL_V35 } from '../helpers/kubectl.js';

let server: ApiServerProcess;
let api: { client: ApiClient; close(): Promise<void> };
let svcconfig: string;

test.before(async () => {
  server = await startApiServer();
  api = realClient(server);
  svcconfig = writeSvcconfig(server);
});

test.after(async () => {
  await api.close();
  await server.stop();
  server.cleanup();
});

const ready = (n: Node) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status;

async function run(args: string[]): Promise<{ code: number | null; out: string }> {
  const p = startSvc(['nodes', ...args]);
  const code = await p.exited;
  return { code, out: p.output() };
}

test('svc nodes runs a fleet over HTTPS; fault and recover change a node; SIGTERM exits 0', async () => {
  const p = startSvc(['nodes', `--svcconfig=${svcconfig}`, '--count=2', '--node-name-prefix=far', '--node-lease-renew-interval=300ms', '--image-pull-delay=50ms', '--container-start-delay=10ms']);
  try {
    const { client } = api;
    for (const name of ['far-0', 'far-1']) {
      await eventually(async () => ready(await client.get<Node>(resources.nodes, '', name).catch(() => ({}) as Node)) === 'True', 20_000, `${name} Ready`);
    }
    await client.create(resources.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'remote' }, spec: { nodeName: 'far-1', containers: [{ name: 'c', image: 'nginx' }] } });
    await eventually(async () => (await client.get<Pod>(resources.pods, 'default', 'remote')).status?.phase === 'Running', 10_000, 'the pod Running');

    const fault = await run(['fault', 'far-0', 'not-ready', 'disk-pressure', `--svcconfig=${svcconfig}`]);
    assert.is(fault.code, 0, fault.out);
    assert.match(fault.out, /far-0: faults disk-pressure,not-ready/);
    await eventually(async () => ready(await client.get<Node>(resources.nodes, '', 'far-0')) === 'False', 5_000, 'far-0 NotReady');
    const stop = await run(['fault', 'far-0', 'stop-heartbeats', `--svcconfig=${svcconfig}`]);
    assert.match(stop.out, /far-0: faults disk-pressure,not-ready,stop-heartbeats/);
    await new Promise((r) => setTimeout(r, 500));
    const lease = async () => (await client.get<Lease>(resources.leases, 'svc-node-lease', 'far-0')).spec?.renewTime;
    const frozen = await lease();
    await new Promise((r) => setTimeout(r, 900));
    assert.is(await lease(), frozen, 'a node with stopped heartbeats does not renew its lease');
    const recover = await run(['recover', 'far-0', `--svcconfig=${svcconfig}`]);
    assert.match(recover.out, /far-0: faults none/);
    await eventually(async () => ready(await client.get<Node>(resources.nodes, '', 'far-0')) === 'True' && (await lease()) !== frozen, 5_000, 'far-0 back');

    assert.is(await p.stop('SIGTERM'), 0, p.output());
  } finally {
    await p.stop('SIGKILL');
  }
});

test('kubectl logs (and -f) through the separate apiserver reach the svc nodes process\'s node-agent endpoint', async () => {
  const p = startSvc(['nodes', `--svcconfig=${svcconfig}`, '--count=1', '--node-name-prefix=logs', '--image-pull-delay=50ms', '--container-start-delay=10ms']);
  const kubeconfig = kubeconfigFor(server);
  try {
    const { client } = api;
    await eventually(async () => ready(await client.get<Node>(resources.nodes, '', 'logs-0').catch(() => ({}) as Node)) === 'True', 20_000, 'logs-0 Ready');
    const node = await client.get<Node>(resources.nodes, '', 'logs-0');
    const port = (node.status?.daemonEndpoints as { kubeletEndpoint?: { Port?: number } } | undefined)?.kubeletEndpoint?.Port ?? 0;
    assert.ok(port > 0, 'the endpoint\'s port is published');
    assert.equal(node.status?.addresses?.find((a) => a.type === 'Hostname')?.address, '127.0.0.1');
    await client.create(resources.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'talker', annotations: { 'sim.svc.io/log': 'up', 'sim.svc.io/log-every-seconds': '0.3' } },
      spec: { nodeName: 'logs-0', containers: [{ name: 'c', image: 'nginx:1.25' }] },
    });
    await eventually(async () => (await client.get<Pod>(resources.pods, 'default', 'talker')).status?.phase === 'Running', 10_000, 'the pod Running');
    await eventually(async () => (await kubectl(kubeconfig, ['logs', 'talker'], 30_000, { bin: KUBECTL_V35 })).stdout.startsWith('up\ntick 1\n'), 10_000, 'kubectl logs');
    const follow = kubectlStream(kubeconfig, ['logs', '-f', 'talker', '--tail=1'], KUBECTL_V35);
    try {
      const ticks = () => (follow.output().match(/tick \d+/g) ?? []).length;
      await eventually(() => ticks() >= 4, 20_000, `kubectl logs -f growing: ${follow.output()}`);
      assert.not.match(follow.output(), /^up$/m, '--tail=1 left the first line out');
    } finally {
      follow.child.kill('SIGTERM');
    }
    assert.is(await p.stop('SIGTERM'), 0, p.output());
  } finally {
    await p.stop('SIGKILL');
  }
});

test('svc nodes: bad flags and fault names are clear errors (exit 1)', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--count=2'], /no API server given: pass --svcconfig/],
    [[`--svcconfig=${svcconfig}`, '--node-agent-port=70000'], /invalid value for --node-agent-port: must be 0 to 65535/],
    [[`--svcconfig=${svcconfig}`, '--node-event-burst=0'], /invalid value for --node-event-burst: must be at least 1/],
    [[`--svcconfig=${svcconfig}`, '--node-memory=much'], /invalid node shape: --node-memory: "much" is not a quantity/],
    [[`--svcconfig=${svcconfig}`, '--profile=/no/such.yaml'], /--profile/],
    [[`--svcconfig=${svcconfig}`, '--no-such-flag'], /unknown option '--no-such-flag'/],
    [['fault', 'far-0', 'on-fire', `--svcconfig=${svcconfig}`], /unknown fault "on-fire"; the faults are stop-heartbeats, not-ready/],
    [['fault', 'nowhere', 'crash', `--svcconfig=${svcconfig}`], /svc nodes fault: error: .*not found/],
  ];
  await Promise.all(
    cases.map(async ([args, message]) => {
      const r = await run(args);
      assert.is(r.code, 1, `${args.join(' ')}: ${r.out}`);
      assert.match(r.out, message, args.join(' '));
    }),
  );
});

test.run();
