/**
 * The simulated cloud's file: its settings and its state in one JSON (or YAML) document, the file
 * named by `--cloud-config`. Every process that uses the cloud (`svc nodes` creating instances, the
 * cloud controllers creating load balancers and routes, `svc cloud` deleting an instance) reads and
 * changes the same file, so a change is a transaction:
 *
 * - an exclusive lock file `<file>.lock` (created with O_EXCL; one left by a killed process is
 *   taken over once it is older than STALE_LOCK_MS),
 * - read, change, write to `<file>.<pid>.tmp`, rename over the file (a reader sees the old
 *   document or the new one, never half of one; a kill -9 of any process loses no acknowledged
 *   change). No fsync: a simulated cloud need not outlive a power loss, and at a few milliseconds
 *   a call it would make the cloud, not the controllers, the thing measured.
 *
 * Reads without a change skip the lock and re-parse only when the file's inode, times or size
 * changed; a transaction compares the file's text with what this process last read or wrote.
 * The cloud writes compact JSON (a person's YAML or indented JSON is read as well). The format
 * (docs/cloud.md):
 *
 *   { "project": "svc-project", "region": "cloudy-central1",
 *     "zones": ["cloudy-central1-a", "cloudy-central1-b", "cloudy-central1-c"],
 *     "instanceType": "cloudy-standard-2",
 *     "internalRange": "10.128.0.0/16", "externalRange": "198.18.0.0/16", "loadBalancerRange": "198.19.0.0/16",
 *     "latencyMs": 0, "quotas": { "loadBalancers": 1000 },
 *     "failures": { "ensureLoadBalancer": { "count": 2, "message": "backend unavailable" } },
 *     "instances": {}, "loadBalancers": {}, "firewalls": {}, "routes": {} }
 *
 * Every settings key is optional (the defaults above); the four state maps are written by the cloud.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export type InstanceState = 'running' | 'stopped';

export interface CloudyInstance {
  /** Sequence number: its addresses are derived from it. */
  id: number;
  zone: string;
  instanceType: string;
  internalIP: string;
  externalIP: string;
  state: InstanceState;
  /** Where the machine is reached (the node agent's endpoint host); absent: its name. */
  hostname?: string;
  createdAt: string;
}

export interface CloudyListener {
  protocol: string;
  port: number;
  nodePort: number;
}

export interface CloudyLoadBalancer {
  /** `namespace/name` of the Service it serves. */
  service: string;
  serviceUID: string;
  cluster: string;
  ip: string;
  listeners: CloudyListener[];
  /** Instances it forwards to. */
  targets: string[];
  healthCheckNodePort?: number;
  createdAt: string;
}

export interface CloudyFirewall {
  /** The load balancer it belongs to. */
  loadBalancer: string;
  sourceRanges: string[];
  allowed: { protocol: string; ports: string[] }[];
  targets: string[];
}

export interface CloudyRoute {
  cluster: string;
  targetNode: string;
  destinationCIDR: string;
}

/** An injected failure: the next `count` calls of the method fail with `message` (count absent: every call). */
export interface InjectedFailure {
  count?: number;
  message?: string;
}

export interface CloudyDocument {
  project: string;
  region: string;
  zones: string[];
  instanceType: string;
  internalRange: string;
  externalRange: string;
  loadBalancerRange: string;
  latencyMs: number;
  quotas: { loadBalancers: number };
  failures: Record<string, InjectedFailure>;
  instances: Record<string, CloudyInstance>;
  loadBalancers: Record<string, CloudyLoadBalancer>;
  firewalls: Record<string, CloudyFirewall>;
  routes: Record<string, CloudyRoute>;
}

export const CLOUDY_DEFAULTS: Omit<CloudyDocument, 'instances' | 'loadBalancers' | 'firewalls' | 'routes' | 'failures'> = {
  project: 'svc-project',
  region: 'cloudy-central1',
  zones: ['cloudy-central1-a', 'cloudy-central1-b', 'cloudy-central1-c'],
  instanceType: 'cloudy-standard-2',
  internalRange: '10.128.0.0/16',
  externalRange: '198.18.0.0/16',
  loadBalancerRange: '198.19.0.0/16',
  latencyMs: 0,
  quotas: { loadBalancers: 1000 },
};

const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 30_000;

export class CloudyConfigError extends Error {}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The document from the file's text, defaults filled; a malformed one names the file and the field. */
export function parseCloudyDocument(text: string, file: string): CloudyDocument {
  let raw: unknown;
  try {
    // JSON first (what the cloud writes; the YAML parser is ~100x slower on a large document), YAML
    // for a file a person wrote.
    raw = text.trim() === '' ? {} : jsonOrUndefined(text) ?? parseYaml(text);
  } catch (e) {
    throw new CloudyConfigError(`--cloud-config ${file}: not JSON or YAML: ${(e as Error).message}`);
  }
  if (raw === null || raw === undefined) raw = {};
  if (!isRecord(raw)) throw new CloudyConfigError(`--cloud-config ${file}: the document must be an object`);
  const known = new Set([...Object.keys(CLOUDY_DEFAULTS), 'failures', 'instances', 'loadBalancers', 'firewalls', 'routes']);
  for (const k of Object.keys(raw)) if (!known.has(k)) throw new CloudyConfigError(`--cloud-config ${file}: unknown field "${k}" (known: ${[...known].join(', ')})`);
  const str = (k: keyof typeof CLOUDY_DEFAULTS) => {
    const v = raw[k];
    if (v === undefined) return CLOUDY_DEFAULTS[k] as string;
    if (typeof v !== 'string' || v === '') throw new CloudyConfigError(`--cloud-config ${file}: "${k}" must be a non-empty string`);
    return v;
  };
  const zones = raw['zones'] ?? CLOUDY_DEFAULTS.zones;
  if (!Array.isArray(zones) || zones.length === 0 || !zones.every((z) => typeof z === 'string' && z !== '')) {
    throw new CloudyConfigError(`--cloud-config ${file}: "zones" must be a non-empty list of names`);
  }
  const latencyMs = raw['latencyMs'] ?? 0;
  if (typeof latencyMs !== 'number' || !(latencyMs >= 0)) throw new CloudyConfigError(`--cloud-config ${file}: "latencyMs" must be a number >= 0`);
  const quotas = raw['quotas'] ?? {};
  if (!isRecord(quotas)) throw new CloudyConfigError(`--cloud-config ${file}: "quotas" must be an object`);
  const lbQuota = quotas['loadBalancers'] ?? CLOUDY_DEFAULTS.quotas.loadBalancers;
  if (typeof lbQuota !== 'number' || !Number.isInteger(lbQuota) || lbQuota < 0) throw new CloudyConfigError(`--cloud-config ${file}: "quotas.loadBalancers" must be an integer >= 0`);
  const map = <T>(k: string): Record<string, T> => {
    const v = raw[k] ?? {};
    if (!isRecord(v)) throw new CloudyConfigError(`--cloud-config ${file}: "${k}" must be an object`);
    return v as Record<string, T>;
  };
  return {
    project: str('project'),
    region: str('region'),
    zones: zones as string[],
    instanceType: str('instanceType'),
    internalRange: str('internalRange'),
    externalRange: str('externalRange'),
    loadBalancerRange: str('loadBalancerRange'),
    latencyMs,
    quotas: { loadBalancers: lbQuota },
    failures: map<InjectedFailure>('failures'),
    instances: map<CloudyInstance>('instances'),
    loadBalancers: map<CloudyLoadBalancer>('loadBalancers'),
    firewalls: map<CloudyFirewall>('firewalls'),
    routes: map<CloudyRoute>('routes'),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The state maps: their entries are written from each entry's own cached text. */
const ENTRY_MAPS = new Set(['failures', 'instances', 'loadBalancers', 'firewalls', 'routes']);
/** Each state entry's compact JSON with its key (`"name":{...}`), by the entry object (entries are frozen once written: a changed entry is a new object). */
const entryText = new WeakMap<object, { key: string; text: string }>();

function textOf(key: string, entry: object): string {
  const hit = entryText.get(entry);
  if (hit !== undefined && hit.key === key) return hit.text;
  deepFreeze(entry);
  const text = `${JSON.stringify(key)}:${JSON.stringify(entry)}`;
  entryText.set(entry, { key, text });
  return text;
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const x of Object.values(v)) deepFreeze(x);
}

/**
 * The document as compact JSON, exactly `JSON.stringify(doc)` plus a newline, but built from each
 * state entry's cached text: a change is one or two entries among hundreds, and stringifying the
 * whole document on every call made a call's cost grow with the cloud. Entries are frozen once
 * serialised, so a change must replace an entry rather than edit it (editing one throws, and a
 * throwing change writes nothing): the cached text can never be stale.
 */
export function serialize(doc: CloudyDocument): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (value === undefined) continue;
    if (!ENTRY_MAPS.has(key)) {
      parts.push(`${JSON.stringify(key)}:${JSON.stringify(value)}`);
      continue;
    }
    const entries: string[] = [];
    for (const k in value as Record<string, object>) entries.push(textOf(k, (value as Record<string, object>)[k]!));
    parts.push(`${JSON.stringify(key)}:{${entries.join(',')}}`);
  }
  return `{${parts.join(',')}}\n`;
}

/** What stat says of the file: a change (a rename of a new file over it) changes the inode, times or size. */
function stampOf(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.ino}:${st.mtimeNs}:${st.ctimeNs}:${st.size}`;
}

/** The cloud's file: cached reads, locked transactions. */
export class CloudyFile {
  /** The document as last read or written, with the file's text then and what its stat said. */
  private cached: { stamp: string; text: string; doc: CloudyDocument } | undefined;
  /** Transactions of this process, one at a time (the lock file orders processes). */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(readonly path: string) {}

  /**
   * The document as the file holds it now (a missing file is the defaults, nothing created yet).
   * It is this process's live copy: read it, never change it (only `transact` does), and read it
   * again after an await rather than keep it as a snapshot (a transaction changes it in place; the
   * state maps' entries themselves are frozen and replaced, never edited).
   */
  read(): CloudyDocument {
    if (!existsSync(this.path)) return parseCloudyDocument('', this.path);
    const stamp = stampOf(this.path);
    if (this.cached && this.cached.stamp === stamp) return this.cached.doc;
    return this.parse(readFileSync(this.path, 'utf8'), stamp);
  }

  /**
   * The same, certain to be the file's current content (a transaction's start, under the lock): the
   * text is compared, not only the stat (two changes within one timestamp tick, of the same size,
   * by two processes, look alike to stat, and the second process's copy must not miss the first's).
   */
  private current(): CloudyDocument {
    if (!existsSync(this.path)) return parseCloudyDocument('', this.path);
    const stamp = stampOf(this.path);
    const text = readFileSync(this.path, 'utf8');
    if (this.cached && this.cached.text === text) {
      this.cached.stamp = stamp;
      return this.cached.doc;
    }
    return this.parse(text, stamp);
  }

  private parse(text: string, stamp: string): CloudyDocument {
    const doc = parseCloudyDocument(text, this.path);
    this.cached = { stamp, text, doc };
    return doc;
  }

  /**
   * Runs `change` on a fresh copy of the document under the lock and writes it back if `change`
   * returns without throwing; resolves to what `change` returned. A throw writes nothing.
   */
  transact<R>(change: (doc: CloudyDocument) => R): Promise<R> {
    const run = this.chain.then(() => this.locked(change));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async locked<R>(change: (doc: CloudyDocument) => R): Promise<R> {
    // The lock file is taken and released synchronously (a few microseconds), so a process that
    // dies holding it leaves it only when killed mid-transaction: then STALE_LOCK_MS frees it.
    const lock = `${this.path}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    let fd: number | undefined;
    for (let wait = 1; fd === undefined; wait = Math.min(wait * 2, 50)) {
      try {
        fd = openSync(lock, 'wx');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        try {
          if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) unlinkSync(lock);
        } catch {
          // gone meanwhile: try again
        }
        if (Date.now() > deadline) throw new Error(`the simulated cloud's file ${this.path} stayed locked for ${LOCK_WAIT_MS / 1000} s (${lock})`);
        await sleep(wait);
      }
    }
    try {
      writeSync(fd, String(process.pid));
      // The change is made on this process's copy of the document itself (fresh: read() re-parses
      // when another process changed the file), not on a deep copy: at a few hundred load balancers
      // a copy costs more than the rest of the call, and every call would pay it. A change that
      // throws, or a write that fails, drops the copy, so the next read parses the file as it is.
      // Its entries are frozen (see serialize): a change replaces the entries it changes.
      const doc = this.current();
      try {
        const result = change(doc);
        const text = serialize(doc);
        // Written synchronously (a page-cache write of well under a millisecond): through the
        // thread pool, each of open, write, close and rename queued behind the API server's
        // fsyncs in the same process, and a cloud call took ten times its own work in waiting.
        const tmp = `${this.path}.${process.pid}.tmp`;
        writeFileSync(tmp, text);
        renameSync(tmp, this.path);
        this.cached = { stamp: stampOf(this.path), text, doc };
        return result;
      } catch (e) {
        this.cached = undefined;
        throw e;
      }
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
  }
}
