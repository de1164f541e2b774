/**
 * What simulated nodes look like: name, capacity, labels, taints, per node. Shapes come from
 * flags (`--count` nodes of one size spread over `--zones`) or from a small YAML profile listing
 * groups of nodes:
 *
 *   nodes:
 *     - count: 6
 *       namePrefix: big
 *       zones: [zone-a, zone-b, zone-c]   # spread round-robin
 *       region: region-1
 *       instanceType: sim.xlarge
 *       cpu: "16"
 *       memory: 64Gi
 *       pods: 110
 *       ephemeralStorage: 200Gi
 *       extended: { example.com/gpu: 2 }
 *       labels: { tier: gpu }
 *       taints: [{ key: gpu, value: "true", effect: NoSchedule }]
 *       podUsage: 0.5        # pods use half their requests (reported as PodMetrics/NodeMetrics)
 *
 * A bad profile is an error naming the field; every quantity is parsed as the API parses it.
 */
import { parse as parseYaml } from 'yaml';
import { LABEL_ARCH, LABEL_HOSTNAME, LABEL_INSTANCE_TYPE, LABEL_OS, LABEL_REGION, LABEL_ZONE } from '../api/well-known-labels.js';
import { parseQuantity } from '../api/validation/quantity.js';

export interface NodeTaint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

/** One simulated node, fully decided. */
export interface NodeShape {
  name: string;
  /** Resource name -> quantity as the API writes it (`cpu: "4"`, `memory: "32Gi"`, `pods: "110"`). */
  capacity: Record<string, string>;
  labels: Record<string, string>;
  taints: NodeTaint[];
  /** Fraction of its requests a pod without usage annotations uses (0: such pods report no usage). */
  podUsage: number;
  /** The cloud instance it runs on (`svc nodes --cloud-provider`): its addresses are the instance's. */
  instance?: { internalIP: string; externalIP: string };
}

/** A group of nodes of one size, as a profile or the flags give it. */
export interface NodeGroup {
  count: number;
  namePrefix: string;
  zones: string[];
  region: string;
  instanceType: string;
  arch: string;
  os: string;
  cpu: string;
  memory: string;
  pods: string;
  ephemeralStorage: string;
  extended: Record<string, string>;
  labels: Record<string, string>;
  taints: NodeTaint[];
  podUsage: number;
}

export class NodeProfileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NodeProfileError';
  }
}

/** The defaults of a group (the flags' defaults too). */
export const DEFAULT_NODE_GROUP: Readonly<NodeGroup> = Object.freeze({
  count: 3,
  namePrefix: 'sim-node',
  zones: ['zone-a', 'zone-b', 'zone-c'],
  region: 'region-1',
  instanceType: 'sim.large',
  arch: 'amd64',
  os: 'linux',
  cpu: '4',
  memory: '32Gi',
  pods: '110',
  ephemeralStorage: '100Gi',
  extended: {},
  labels: {},
  taints: [],
  podUsage: 0,
});

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
const GROUP_FIELDS = new Set(['count', 'namePrefix', 'zones', 'region', 'instanceType', 'arch', 'os', 'cpu', 'memory', 'pods', 'ephemeralStorage', 'extended', 'labels', 'taints', 'podUsage']);
const NAME_PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Node shapes of the groups, named `<prefix>-<i>` (numbered per prefix across groups, from 0, so names never clash). */
export function nodeShapes(groups: readonly NodeGroup[]): NodeShape[] {
  const out: NodeShape[] = [];
  const next = new Map<string, number>();
  for (const g of groups) {
    for (let i = 0; i < g.count; i++) {
      const n = next.get(g.namePrefix) ?? 0;
      next.set(g.namePrefix, n + 1);
      const name = `${g.namePrefix}-${n}`;
      const zone = g.zones.length ? g.zones[n % g.zones.length]! : '';
      out.push({
        name,
        capacity: { cpu: g.cpu, memory: g.memory, pods: g.pods, 'ephemeral-storage': g.ephemeralStorage, ...g.extended },
        labels: {
          [LABEL_HOSTNAME]: name,
          [LABEL_ARCH]: g.arch,
          [LABEL_OS]: g.os,
          [LABEL_INSTANCE_TYPE]: g.instanceType,
          ...(g.region ? { [LABEL_REGION]: g.region } : {}),
          ...(zone ? { [LABEL_ZONE]: zone } : {}),
          ...g.labels,
        },
        taints: g.taints.map((t) => ({ ...t })),
        podUsage: g.podUsage,
      });
    }
  }
  return out;
}

/** Parses a YAML profile (see the module comment) into checked groups. */
export function parseNodeProfile(text: string, source = 'the profile'): NodeGroup[] {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 10 });
  } catch (e) {
    throw new NodeProfileError(`${source} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isRecord(doc) || !Array.isArray(doc['nodes'])) throw new NodeProfileError(`${source} must be a mapping with a list "nodes" of node groups`);
  return doc['nodes'].map((raw, i) => checkGroup(raw, `${source}: nodes[${i}]`));
}

/** A group from flag values (already typed), checked like a profile's group. */
export function groupFromFlags(values: Partial<NodeGroup>): NodeGroup {
  return checkGroup({ ...DEFAULT_NODE_GROUP, ...values }, 'flags');
}

function checkGroup(raw: unknown, where: string): NodeGroup {
  if (!isRecord(raw)) throw new NodeProfileError(`${where} must be a mapping`);
  for (const k of Object.keys(raw)) {
    if (!GROUP_FIELDS.has(k)) throw new NodeProfileError(`${where}.${k}: unknown field; the fields are ${[...GROUP_FIELDS].join(', ')}`);
  }
  const g: NodeGroup = { ...DEFAULT_NODE_GROUP, zones: [...DEFAULT_NODE_GROUP.zones], extended: {}, labels: {}, taints: [] };
  const count = raw['count'] ?? g.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > 100_000) {
    throw new NodeProfileError(`${where}.count: must be a whole number from 0 to 100000, not ${JSON.stringify(count)}`);
  }
  g.count = count;
  for (const k of ['namePrefix', 'region', 'instanceType', 'arch', 'os'] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new NodeProfileError(`${where}.${k}: must be a string`);
    g[k] = v;
  }
  if (!NAME_PREFIX.test(g.namePrefix) || g.namePrefix.length > 200) {
    throw new NodeProfileError(`${where}.namePrefix: ${JSON.stringify(g.namePrefix)} must be lower-case letters, digits and '-', starting and ending with a letter or digit`);
  }
  if (raw['zones'] !== undefined) g.zones = stringList(raw['zones'], `${where}.zones`);
  for (const k of ['cpu', 'memory', 'pods', 'ephemeralStorage'] as const) {
    const v = raw[k];
    if (v === undefined) continue;
    g[k] = quantity(v, `${where}.${k}`);
  }
  if (raw['extended'] !== undefined) {
    const ext = stringMap(raw['extended'], `${where}.extended`, true);
    for (const [name, q] of Object.entries(ext)) {
      if (!name.includes('/')) throw new NodeProfileError(`${where}.extended: ${JSON.stringify(name)} must be a domain-prefixed resource name such as example.com/gpu`);
      ext[name] = quantity(q, `${where}.extended[${name}]`);
    }
    g.extended = ext;
  }
  const usage = raw['podUsage'];
  if (usage !== undefined) {
    if (typeof usage !== 'number' || !Number.isFinite(usage) || usage < 0 || usage > 100) throw new NodeProfileError(`${where}.podUsage: must be a number from 0 to 100 (a fraction of each container's requests), not ${JSON.stringify(usage)}`);
    g.podUsage = usage;
  }
  if (raw['labels'] !== undefined) g.labels = stringMap(raw['labels'], `${where}.labels`, false);
  if (raw['taints'] !== undefined) {
    if (!Array.isArray(raw['taints'])) throw new NodeProfileError(`${where}.taints: must be a list`);
    g.taints = raw['taints'].map((t, i) => {
      const at = `${where}.taints[${i}]`;
      if (!isRecord(t) || typeof t['key'] !== 'string' || !t['key']) throw new NodeProfileError(`${at}: needs a key`);
      if (!EFFECTS.includes(t['effect'] as NodeTaint['effect'])) throw new NodeProfileError(`${at}.effect: must be one of ${EFFECTS.join(', ')}`);
      if (t['value'] !== undefined && typeof t['value'] !== 'string') throw new NodeProfileError(`${at}.value: must be a string`);
      return { key: t['key'], effect: t['effect'] as NodeTaint['effect'], ...(t['value'] !== undefined ? { value: t['value'] as string } : {}) };
    });
  }
  return g;
}

function quantity(v: unknown, where: string): string {
  const text = typeof v === 'number' ? String(v) : v;
  if (typeof text !== 'string' || parseQuantity(text) === undefined || (parseQuantity(text) ?? -1) < 0) {
    throw new NodeProfileError(`${where}: ${JSON.stringify(v)} is not a quantity (e.g. "4", "500m", "32Gi")`);
  }
  return text;
}

function stringList(v: unknown, where: string): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new NodeProfileError(`${where}: must be a list of strings`);
  return [...(v as string[])];
}

function stringMap(v: unknown, where: string, numbersToo: boolean): Record<string, string> {
  if (!isRecord(v)) throw new NodeProfileError(`${where}: must be a mapping`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x === 'string' || (numbersToo && typeof x === 'number')) out[k] = String(x);
    else throw new NodeProfileError(`${where}.${k}: must be a string`);
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
