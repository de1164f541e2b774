/**
 * The nodeipam controller in `npm run bench` (`--only=nodeipam`), everything in this process as
 * `svc up` runs it: the API server on its embedded store and N simulated nodes (registered first,
 * without podCIDRs), then the nodeipam controller (RangeAllocator, 30 workers, an in-process
 * client without a rate limit) started on them:
 *
 * - allocation: controller start -> every node's `spec.podCIDR` seen; nodes allocated per second;
 * - restart: the controller stopped and started again with every node holding a CIDR, then one node
 *   more created -> its CIDR seen (the rebuild from the nodes' podCIDRs comes first);
 * - checked on the way: N distinct CIDRs, the new one not among them.
 */
import { pino } from 'pino';
import { nodeIpamController } from '../controllers/nodeipam/index.js';
import type { Node } from '../src/api/generated/kinds.js';
import { createInformerFactory, resources } from '../src/client/index.js';
import type { ApiClient } from '../src/client/types.js';
import { startTestCluster } from '../src/testing/index.js';

export interface NodeIpamBenchSettings {
  nodes: number;
  clusterCidr: string;
  maskSize: number;
}

export interface NodeIpamBenchFigures {
  settings: NodeIpamBenchSettings;
  registerSeconds: number;
  allocateSeconds: number;
  nodesPerSecond: number;
  restartToNewNodeSeconds: number;
  distinct: boolean;
}

const controllerOn = (client: ApiClient, s: NodeIpamBenchSettings) => {
  const informers = createInformerFactory(client);
  const running = nodeIpamController({ clusterCidrs: [s.clusterCidr], nodeCidrMaskSizes: [s.maskSize] }).start({ client, informers, logger: pino({ level: 'silent' }) });
  return { running, informers };
};

export async function measureNodeIpam(s: NodeIpamBenchSettings, log: (m: string) => void): Promise<NodeIpamBenchFigures> {
  let t = performance.now();
  const cluster = await startTestCluster({ nodes: s.nodes, scheduler: false, nodeTimings: { leaseRenewMs: 10_000, statusReportMs: 60_000 } });
  const { client } = cluster;
  const withCidr = async () => (await client.list<Node>(resources.nodes)).items.filter((n) => n.spec?.podCIDR);
  const poll = async (check: () => Promise<boolean>, timeoutMs: number, what: string) => {
    for (const end = performance.now() + timeoutMs; !(await check()); ) {
      if (performance.now() > end) throw new Error(`nodeipam bench: ${what} not reached in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 250)); // a list of 1,000 nodes is not free: look 4 times a second
    }
  };
  try {
    await cluster.nodes!.registered(300_000);
    await poll(async () => (await client.list<Node>(resources.nodes)).items.length >= s.nodes, 300_000, 'nodes registered');
    const registerSeconds = (performance.now() - t) / 1000;
    log(`nodeipam: ${s.nodes} nodes registered in ${registerSeconds.toFixed(1)} s; starting the controller`);

    t = performance.now();
    let c = controllerOn(client, s);
    let nodes: Node[] = [];
    await poll(async () => (nodes = await withCidr()).length >= s.nodes, 300_000, 'every node allocated');
    const allocateSeconds = (performance.now() - t) / 1000;
    const cidrs = new Set(nodes.map((n) => n.spec!.podCIDR!));
    log(`nodeipam: ${s.nodes} nodes allocated in ${allocateSeconds.toFixed(2)} s (${Math.round(s.nodes / allocateSeconds)}/s), ${cidrs.size} distinct`);

    await c.running.stop();
    c.informers.stop();
    t = performance.now();
    c = controllerOn(client, s);
    await client.create(resources.nodes, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'bench-late' }, spec: {} });
    let late: string | undefined;
    await poll(async () => !!(late = (await client.get<Node>(resources.nodes, '', 'bench-late')).spec?.podCIDR), 120_000, 'the late node allocated');
    const restartToNewNodeSeconds = (performance.now() - t) / 1000;
    log(`nodeipam: restarted; a new node allocated ${late} after ${restartToNewNodeSeconds.toFixed(2)} s`);
    await c.running.stop();
    c.informers.stop();
    return {
      settings: s,
      registerSeconds,
      allocateSeconds,
      nodesPerSecond: s.nodes / allocateSeconds,
      restartToNewNodeSeconds,
      distinct: cidrs.size === s.nodes && !cidrs.has(late!),
    };
  } finally {
    await cluster.stop();
  }
}

export const NODEIPAM_HEADING = '## Node IPAM';

export function renderNodeIpamSection(f: NodeIpamBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
  const s = f.settings;
  return `${NODEIPAM_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-nodeipam.ts. One process, as \`svc up\` runs it: the API server on its embedded store and ${n0(s.nodes)} simulated
nodes (registered in ${f.registerSeconds.toFixed(1)} s, no podCIDR yet), then the nodeipam controller (RangeAllocator,
\`--cluster-cidr=${s.clusterCidr}\`, /${s.maskSize} per node, 30 workers, in-process client without a rate limit).

| Case | Figure |
|---|---|
| Controller start -> all ${n0(s.nodes)} nodes have \`spec.podCIDR\` | ${f.allocateSeconds.toFixed(2)} s (**${n0(f.nodesPerSecond)} nodes/s**) |
| Restart with ${n0(s.nodes)} CIDRs in use (rebuilt from the nodes) -> a new node's CIDR | ${f.restartToNewNodeSeconds.toFixed(2)} s |
| ${n0(s.nodes)} CIDRs distinct, the new node's not among them | ${f.distinct ? 'yes' : 'NO'} |

Each allocation is one merge patch of the node's spec; the bitmap work is microseconds (the allocator's unit test hands
out 1,000 CIDRs in a few milliseconds), so the rate is that of node patches the API server takes while the same process
also serves the 1,000 nodes' heartbeats and their informers: it moves with the machine's load (the figure above was
taken beside other builds and tests). The established controller manager's
default client limit (20 QPS, 30 burst) would bound it to about 20 nodes/s; the standalone \`controller-manager\` keeps
those defaults (\`--svc-api-qps\`).
`;
}
