/**
 * `cloudy`, the built-in simulated cloud (--cloud-provider=cloudy --cloud-config=<file>): instances
 * for the simulated nodes, load balancers with ingress IPs from a range, their listeners (each
 * Service port to its NodePort on every target instance) and firewall rules, and routes for node pod
 * CIDRs. All of it lives in the --cloud-config file (./state.ts), shared by every process that uses
 * the cloud: `svc nodes` creates the instances its nodes run on, the cloud controllers create load
 * balancers and routes, `svc cloud` shows and changes it (delete or stop an instance, inject failures).
 *
 * Realism that lets a controller's behaviour be seen: every call waits `latencyMs`; a method named
 * in `failures` fails (its next `count` calls, or all while listed); load balancers are limited by
 * `quotas.loadBalancers`. Instances never existed for nodes the cloud was not told of.
 */
import type { Node, PersistentVolume, Service } from '../../api/generated/kinds.js';
import { LABEL_BETA_REGION, LABEL_BETA_ZONE } from '../../api/well-known-labels.js';
import { bigIntToIp, familyOf, ipToBigInt, lastAddress, parseCidr, type Cidr } from '../../api/net/ip-address.js';
import { CloudError, type CloudInspection, type CloudProvider, type InstanceMetadata, type LoadBalancerStatus, type Route } from '../provider.js';
import { inspectCloudyDocument } from './inspection.js';
import { CloudyFile, type CloudyDocument, type CloudyInstance, type InstanceState } from './state.js';

export const CLOUDY = 'cloudy';
export const CLOUDY_SCHEME = 'cloudy://';
/**
 * The CSI driver name of cloudy's disks. A PersistentVolume `csi: {driver: cloudy.svc.io,
 * volumeHandle: projects/<project>/zones/<zone>/disks/<name>}` is one of its disks (the handle
 * shaped as the established GCE PD CSI driver's); the disk lives in that zone of the file's region.
 */
export const CLOUDY_CSI_DRIVER = 'cloudy.svc.io';
/** The node agents' health-check port the L4 health checks probe when a Service has no healthCheckNodePort (established 10256). */
export const PROXY_HEALTH_CHECK_PORT = 10256;

/** --cloud-provider-cloudy-lb-src-cidrs default: where L4 load-balancer traffic and health checks come from. */
export const DEFAULT_LB_SOURCE_CIDRS = ['130.211.0.0/22', '209.85.152.0/22', '209.85.204.0/22', '35.191.0.0/16'];

export interface CloudyOptions {
  /** --cloud-config: the cloud's file. */
  file: string;
  /** --cloud-provider-cloudy-lb-src-cidrs. */
  lbSourceCidrs?: readonly string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cidrOf(text: string, what: string): Cidr {
  const c = parseCidr(text);
  if (!c || c.family !== 'IPv4') throw new CloudError(`the cloud's ${what} ${text} is not an IPv4 CIDR`);
  return c;
}

/** The `n`th usable address of a range (the network address and the gateway, .1, are skipped). */
function nthAddress(range: string, n: number, what: string): string {
  const c = cidrOf(range, what);
  const ip = c.network + 2n + BigInt(n);
  if (ip >= lastAddress(c)) throw new CloudError(`the cloud's ${what} ${range} has no address left for number ${n}`);
  return bigIntToIp(ip, 'IPv4');
}

export function cloudyProviderID(doc: Pick<CloudyDocument, 'project'>, zone: string, name: string): string {
  return `${CLOUDY_SCHEME}${doc.project}/${zone}/${name}`;
}

/** `cloudy://project/zone/name` → its parts (undefined: not a cloudy ID). */
export function parseCloudyProviderID(id: string): { project: string; zone: string; name: string } | undefined {
  if (!id.startsWith(CLOUDY_SCHEME)) return undefined;
  const [project, zone, name, ...rest] = id.slice(CLOUDY_SCHEME.length).split('/');
  if (!project || !zone || !name || rest.length) return undefined;
  return { project, zone, name };
}

/** The established name of a Service's load balancer: `a` and its UID without dashes, 32 characters at most. */
export function loadBalancerNameFor(service: Service): string {
  return `a${(service.metadata.uid ?? '').replace(/-/g, '')}`.slice(0, 32);
}

export class Cloudy implements CloudProvider {
  readonly name = CLOUDY;
  readonly providerIdScheme = CLOUDY_SCHEME;
  readonly file: CloudyFile;
  private readonly lbSourceCidrs: readonly string[];

  constructor(o: CloudyOptions) {
    this.file = new CloudyFile(o.file);
    this.lbSourceCidrs = o.lbSourceCidrs ?? DEFAULT_LB_SOURCE_CIDRS;
    this.file.read(); // a malformed file fails the start, naming it
  }

  /** The latency, then an injected failure of `method` if one is set (its count spent). */
  private async call(method: string): Promise<CloudyDocument> {
    const doc = this.file.read();
    if (doc.latencyMs > 0) await sleep(doc.latencyMs);
    const failure = doc.failures[method] ?? doc.failures['*'];
    if (failure) {
      const fail = await this.file.transact((d) => {
        const key = d.failures[method] ? method : '*';
        const f = d.failures[key];
        if (!f) return undefined;
        if (f.count !== undefined) {
          if (f.count <= 1) delete d.failures[key];
          else d.failures[key] = { ...f, count: f.count - 1 };
        }
        return f.message ?? 'injected failure';
      });
      if (fail !== undefined) throw new CloudError(`cloudy: ${method}: ${fail}`);
    }
    return this.file.read();
  }

  private metadata(doc: CloudyDocument, name: string, inst: CloudyInstance): InstanceMetadata {
    return {
      providerID: cloudyProviderID(doc, inst.zone, name),
      instanceType: inst.instanceType,
      addresses: [
        { type: 'InternalIP', address: inst.internalIP },
        { type: 'ExternalIP', address: inst.externalIP },
        { type: 'Hostname', address: inst.hostname ?? name },
      ],
      zone: { failureDomain: inst.zone, region: doc.region },
    };
  }

  private instanceOf(doc: CloudyDocument, providerID: string): [string, CloudyInstance] | undefined {
    const p = parseCloudyProviderID(providerID);
    if (!p || p.project !== doc.project) return undefined;
    const inst = doc.instances[p.name];
    return inst && inst.zone === p.zone ? [p.name, inst] : undefined;
  }

  instances() {
    return {
      instanceMetadataByName: async (nodeName: string) => {
        const doc = await this.call('instanceMetadata');
        const inst = doc.instances[nodeName];
        return inst ? this.metadata(doc, nodeName, inst) : undefined;
      },
      instanceMetadataByProviderID: async (providerID: string) => {
        const doc = await this.call('instanceMetadata');
        const hit = this.instanceOf(doc, providerID);
        return hit ? this.metadata(doc, hit[0], hit[1]) : undefined;
      },
      instanceExistsByProviderID: async (providerID: string) => {
        const doc = await this.call('instanceExists');
        if (!parseCloudyProviderID(providerID)) throw new CloudError(`cloudy: "${providerID}" is not a cloudy provider ID`);
        return this.instanceOf(doc, providerID) !== undefined;
      },
      instanceShutdownByProviderID: async (providerID: string) => {
        const doc = await this.call('instanceShutdown');
        return this.instanceOf(doc, providerID)?.[1].state === 'stopped';
      },
    };
  }

  loadBalancer() {
    return {
      loadBalancerName: (_cluster: string, service: Service) => loadBalancerNameFor(service),
      getLoadBalancer: async (_cluster: string, service: Service) => {
        const doc = await this.call('getLoadBalancer');
        const lb = doc.loadBalancers[loadBalancerNameFor(service)];
        return { exists: lb !== undefined, status: { ingress: lb ? [{ ip: lb.ip }] : [] } };
      },
      ensureLoadBalancer: async (cluster: string, service: Service, nodes: readonly Node[]): Promise<LoadBalancerStatus> => {
        await this.call('ensureLoadBalancer');
        const name = loadBalancerNameFor(service);
        const ip = await this.file.transact((doc) => {
          const existing = doc.loadBalancers[name];
          const wanted = service.spec?.loadBalancerIP;
          if (!existing && Object.keys(doc.loadBalancers).length >= doc.quotas.loadBalancers) {
            throw new CloudError(`cloudy: quota exceeded: ${doc.quotas.loadBalancers} load balancers in project ${doc.project}`);
          }
          const address = existing && (!wanted || existing.ip === wanted) ? existing.ip : allocateAddress(doc, wanted, name);
          const targets = targetsOf(doc, nodes);
          const ports = service.spec?.ports ?? [];
          const hcPort = service.spec?.healthCheckNodePort;
          doc.loadBalancers[name] = {
            service: `${service.metadata.namespace}/${service.metadata.name}`,
            serviceUID: service.metadata.uid ?? '',
            cluster,
            ip: address,
            listeners: ports.map((p) => ({ protocol: p.protocol ?? 'TCP', port: p.port ?? 0, nodePort: p.nodePort ?? 0 })),
            targets,
            ...(hcPort ? { healthCheckNodePort: hcPort } : {}),
            createdAt: existing?.createdAt ?? new Date().toISOString(),
          };
          const byProtocol = new Map<string, string[]>();
          for (const p of ports) byProtocol.set(p.protocol ?? 'TCP', [...(byProtocol.get(p.protocol ?? 'TCP') ?? []), String(p.port)]);
          doc.firewalls[`svc-fw-${name}`] = {
            loadBalancer: name,
            sourceRanges: service.spec?.loadBalancerSourceRanges?.length ? [...service.spec.loadBalancerSourceRanges] : ['0.0.0.0/0'],
            allowed: [...byProtocol].map(([protocol, p]) => ({ protocol, ports: p })),
            targets,
          };
          doc.firewalls[`svc-${name}-hc`] = {
            loadBalancer: name,
            sourceRanges: [...this.lbSourceCidrs],
            allowed: [{ protocol: 'TCP', ports: [String(hcPort ?? PROXY_HEALTH_CHECK_PORT)] }],
            targets,
          };
          return address;
        });
        return { ingress: [{ ip }] };
      },
      updateLoadBalancer: async (_cluster: string, service: Service, nodes: readonly Node[]) => {
        await this.call('updateLoadBalancer');
        const name = loadBalancerNameFor(service);
        await this.file.transact((doc) => {
          const lb = doc.loadBalancers[name];
          if (!lb) throw new CloudError(`cloudy: load balancer ${name} of ${service.metadata.namespace}/${service.metadata.name} does not exist`);
          const targets = targetsOf(doc, nodes);
          doc.loadBalancers[name] = { ...lb, targets };
          for (const [k, fw] of Object.entries(doc.firewalls)) if (fw.loadBalancer === name) doc.firewalls[k] = { ...fw, targets };
        });
      },
      ensureLoadBalancerDeleted: async (_cluster: string, service: Service) => {
        await this.call('ensureLoadBalancerDeleted');
        const name = loadBalancerNameFor(service);
        const now = this.file.read();
        if (!now.loadBalancers[name] && !Object.values(now.firewalls).some((f) => f.loadBalancer === name)) return;
        await this.file.transact((doc) => {
          delete doc.loadBalancers[name];
          for (const [k, fw] of Object.entries(doc.firewalls)) if (fw.loadBalancer === name) delete doc.firewalls[k];
        });
      },
    };
  }

  routes() {
    return {
      listRoutes: async (cluster: string): Promise<Route[]> => {
        const doc = await this.call('listRoutes');
        return Object.entries(doc.routes)
          .filter(([, r]) => r.cluster === cluster)
          .map(([name, r]) => ({ name, targetNode: r.targetNode, destinationCIDR: r.destinationCIDR, ...(doc.instances[r.targetNode] ? {} : { blackhole: true }) }));
      },
      createRoute: async (cluster: string, nameHint: string, route: { targetNode: string; destinationCIDR: string }) => {
        await this.call('createRoute');
        await this.file.transact((doc) => {
          if (!doc.instances[route.targetNode]) throw new CloudError(`cloudy: no instance ${route.targetNode} to route ${route.destinationCIDR} to`);
          doc.routes[`${cluster}-${nameHint}`] = { cluster, targetNode: route.targetNode, destinationCIDR: route.destinationCIDR };
        });
      },
      deleteRoute: async (_cluster: string, route: Route) => {
        await this.call('deleteRoute');
        if (!this.file.read().routes[route.name]) return;
        await this.file.transact((doc) => void delete doc.routes[route.name]);
      },
    };
  }

  clusters() {
    return {
      listClusters: async () => {
        const doc = await this.call('listClusters');
        return [...new Set([...Object.values(doc.routes).map((r) => r.cluster), ...Object.values(doc.loadBalancers).map((l) => l.cluster)])].sort();
      },
    };
  }

  // What is not the controllers' interface: the simulated machines' side and `svc cloud`.

  /**
   * The instances `names` run on, created (in one change of the file) for those that have none
   * (`svc nodes`: the machines its simulated nodes run on), reached at `hostname`.
   */
  ensureInstances(names: readonly string[], hostname?: string): Promise<Record<string, CloudyInstance>> {
    return this.file.transact((d) => {
      let next = Object.values(d.instances).reduce((m, i) => Math.max(m, i.id + 1), 0);
      const out: Record<string, CloudyInstance> = {};
      for (const name of names) {
        let inst = d.instances[name];
        if (!inst) {
          const id = next++;
          inst = {
            id,
            zone: d.zones[id % d.zones.length]!,
            instanceType: d.instanceType,
            internalIP: nthAddress(d.internalRange, id, 'internalRange'),
            externalIP: nthAddress(d.externalRange, id, 'externalRange'),
            state: 'running',
            ...(hostname ? { hostname } : {}),
            createdAt: new Date().toISOString(),
          };
          d.instances[name] = inst;
        } else if (hostname && inst.hostname !== hostname) {
          inst = { ...inst, hostname };
          d.instances[name] = inst;
        }
        out[name] = { ...inst };
      }
      return out;
    });
  }

  /** Deletes an instance (false: there was none). */
  deleteInstance(name: string): Promise<boolean> {
    return this.file.transact((d) => {
      if (!d.instances[name]) return false;
      delete d.instances[name];
      return true;
    });
  }

  /** Stops or starts an instance (false: there is none). */
  setInstanceState(name: string, state: InstanceState): Promise<boolean> {
    return this.file.transact((d) => {
      const inst = d.instances[name];
      if (!inst) return false;
      d.instances[name] = { ...inst, state };
      return true;
    });
  }

  /** Makes `method` (or `*`: every method) fail, its next `count` calls or until healed. */
  fail(method: string, o: { count?: number; message?: string } = {}): Promise<void> {
    return this.file.transact((d) => {
      d.failures[method] = { ...(o.count !== undefined ? { count: o.count } : {}), ...(o.message ? { message: o.message } : {}) };
    });
  }

  /** Removes injected failures (of `method`, or all). */
  heal(method?: string): Promise<void> {
    return this.file.transact((d) => {
      if (method) delete d.failures[method];
      else d.failures = {};
    });
  }

  /** Zone and region of a cloudy disk (see CLOUDY_CSI_DRIVER); undefined for any other volume. */
  async volumeLabels(pv: PersistentVolume): Promise<Record<string, string> | undefined> {
    const csi = (pv.spec as { csi?: { driver?: unknown; volumeHandle?: unknown } } | undefined)?.csi;
    if (!csi || csi.driver !== CLOUDY_CSI_DRIVER) return undefined;
    const doc = await this.call('volumeLabels');
    const handle = String(csi.volumeHandle ?? '');
    const m = /^projects\/([^/]+)\/zones\/([^/]+)\/disks\/([^/]+)$/.exec(handle);
    if (!m) throw new CloudError(`cloudy: volume handle ${JSON.stringify(handle)} is not projects/<project>/zones/<zone>/disks/<name>`);
    if (m[1] !== doc.project) throw new CloudError(`cloudy: disk ${handle} is not in project ${doc.project}`);
    if (!doc.zones.includes(m[2]!)) throw new CloudError(`cloudy: disk ${handle}: zone ${m[2]} is not one of ${doc.zones.join(', ')}`);
    return { [LABEL_BETA_ZONE]: m[2]!, [LABEL_BETA_REGION]: doc.region };
  }

  /** The cloud as its file holds it, for its component's page (./inspection.ts). */
  async inspect(): Promise<CloudInspection> {
    return inspectCloudyDocument(this.file.read(), this.file.path, cloudyProviderID);
  }

  async close(): Promise<void> {}
}

/** The instances of `nodes` (a node the cloud has no instance for gets no traffic), sorted. */
function targetsOf(doc: CloudyDocument, nodes: readonly Node[]): string[] {
  return nodes.map((n) => n.metadata.name!).filter((n) => doc.instances[n] !== undefined).sort();
}

/** A free address of the load-balancer range: `wanted` (the Service's loadBalancerIP) if given, else the lowest free one. */
function allocateAddress(doc: CloudyDocument, wanted: string | undefined, lbName: string): string {
  const range = cidrOf(doc.loadBalancerRange, 'loadBalancerRange');
  const taken = new Set(Object.entries(doc.loadBalancers).filter(([n]) => n !== lbName).map(([, l]) => l.ip));
  if (wanted) {
    const n = familyOf(wanted) === 'IPv4' ? ipToBigInt(wanted) : undefined;
    if (n === undefined || n <= range.network || n >= lastAddress(range)) throw new CloudError(`cloudy: loadBalancerIP ${wanted} is not in the load-balancer range ${doc.loadBalancerRange}`);
    if (taken.has(wanted)) throw new CloudError(`cloudy: loadBalancerIP ${wanted} is in use by another load balancer`);
    return wanted;
  }
  // Compared as numbers, the one chosen written out: not every candidate formatted (a call stays
  // linear in the load balancers there are).
  const takenNumbers = new Set([...taken].map((ip) => (familyOf(ip) === 'IPv4' ? ipToBigInt(ip) : -1n)));
  for (let ip = range.network + 2n; ip < lastAddress(range); ip++) if (!takenNumbers.has(ip)) return bigIntToIp(ip, 'IPv4');
  throw new CloudError(`cloudy: no free address left in the load-balancer range ${doc.loadBalancerRange}`);
}
