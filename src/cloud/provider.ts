/**
 * The cloud provider interface: what the cloud controllers (cloud-node, cloud-node-lifecycle,
 * route, service) ask of a cloud. A provider is one module that returns a `CloudProvider`
 * (registered by name in ./registry.ts); each part is optional, and a controller whose part a
 * provider lacks does not start (it says so), as established.
 *
 * Guarantees a provider gives (the controllers rely on them):
 * - Every method may be slow and may fail: it returns a promise and throws a `CloudError` (or any
 *   Error) on failure; the controllers retry with back-off and record an Event. No method may hold
 *   the event loop.
 * - `ensureLoadBalancer` and `createRoute` are idempotent: called again for the same Service or
 *   route they converge on one load balancer / route (the service controller after a leader
 *   failover calls them again for everything; nothing may be created twice).
 * - `ensureLoadBalancerDeleted` and `deleteRoute` succeed when the object is already gone.
 * - `instanceExistsByProviderID` answers false only when the cloud knows the instance is gone
 *   (deleted); an instance that is merely stopped exists and `instanceShutdownByProviderID` says so.
 *
 * The shapes follow the established interface (instances, zones, load balancers, routes,
 * clusters); names are camelCase and results are plain objects.
 */
import type { Node, PersistentVolume, Service } from '../api/generated/kinds.js';

/** A node address as a Node's status carries it (`InternalIP`, `ExternalIP`, `Hostname`, ...). */
export interface NodeAddress {
  type: 'Hostname' | 'ExternalIP' | 'InternalIP' | 'ExternalDNS' | 'InternalDNS';
  address: string;
}

/** Where an instance runs: the zone (failure domain) and its region. */
export interface Zone {
  failureDomain: string;
  region: string;
}

/** What the cloud says about one instance. */
export interface InstanceMetadata {
  providerID: string;
  instanceType: string;
  addresses: NodeAddress[];
  zone: Zone;
}

export interface Instances {
  /** The instance that runs node `nodeName` (undefined: the cloud has none of that name). */
  instanceMetadataByName(nodeName: string): Promise<InstanceMetadata | undefined>;
  /** The same, by provider ID (`<provider>://...`); undefined: unknown or deleted. */
  instanceMetadataByProviderID(providerID: string): Promise<InstanceMetadata | undefined>;
  /** False only when the cloud knows the instance is gone. */
  instanceExistsByProviderID(providerID: string): Promise<boolean>;
  /** True while the instance exists but is stopped. */
  instanceShutdownByProviderID(providerID: string): Promise<boolean>;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface LoadBalancerStatus {
  ingress: LoadBalancerIngress[];
}

export interface LoadBalancer {
  /** The cloud's name for a Service's load balancer (stable for the Service's UID). */
  loadBalancerName(clusterName: string, service: Service): string;
  /** Its status if it exists. */
  getLoadBalancer(clusterName: string, service: Service): Promise<{ status: LoadBalancerStatus; exists: boolean }>;
  /** Creates or updates it to forward the Service's ports to `nodes` (their NodePorts); returns its status. */
  ensureLoadBalancer(clusterName: string, service: Service, nodes: readonly Node[]): Promise<LoadBalancerStatus>;
  /** Points an existing load balancer at `nodes` (the node set changed). */
  updateLoadBalancer(clusterName: string, service: Service, nodes: readonly Node[]): Promise<void>;
  /** Deletes it and what belongs to it (firewall rules, health checks); fine when already gone. */
  ensureLoadBalancerDeleted(clusterName: string, service: Service): Promise<void>;
}

/** A route sending a node's pod CIDR to it. */
export interface Route {
  /** The cloud's name for it. */
  name: string;
  targetNode: string;
  destinationCIDR: string;
  /** The target node is gone: the route leads nowhere. */
  blackhole?: boolean;
}

export interface Routes {
  listRoutes(clusterName: string): Promise<Route[]>;
  /** `nameHint` is the node's UID, as established; idempotent for the same target and CIDR. */
  createRoute(clusterName: string, nameHint: string, route: Omit<Route, 'name' | 'blackhole'>): Promise<void>;
  deleteRoute(clusterName: string, route: Route): Promise<void>;
}

export interface Clusters {
  listClusters(): Promise<string[]>;
}

/** One object of the cloud as people look at it: its name and flat facts (lists of strings at most). */
export type CloudObjectFacts = { name: string } & Record<string, string | number | boolean | string[]>;

/**
 * What a provider shows of itself on its component's page (`/debug/cloud/...` and the cloud panel
 * of /debug/machines/ui): facts about the cloud as a whole (project, region, latency, quotas) and
 * its objects by kind (instances, load balancers, firewall rules, routes, injected failures; a real
 * cloud shows what it has). Read-only, and not an API call the controllers count on: it must not
 * fail for an injected failure nor wait out a simulated latency.
 */
export interface CloudInspection {
  provider: string;
  facts: Record<string, string | number | boolean | string[]>;
  objects: Record<string, CloudObjectFacts[]>;
}

export interface CloudProvider {
  /** The --cloud-provider name. */
  readonly name: string;
  /** The provider ID prefix of its instances (`cloudy://`). */
  readonly providerIdScheme: string;
  instances(): Instances | undefined;
  loadBalancer(): LoadBalancer | undefined;
  routes(): Routes | undefined;
  clusters(): Clusters | undefined;
  /**
   * The zone and region labels of a PersistentVolume backed by one of this cloud's disks (the
   * established PVLabeler, which the API server's PersistentVolumeLabel admission plugin asks):
   * undefined for a volume that is not the cloud's; throws when it is the cloud's but the cloud
   * cannot place it (the plugin then refuses the volume). Optional: a provider without disks.
   */
  volumeLabels?(pv: PersistentVolume): Promise<Record<string, string> | undefined>;
  /** What the cloud holds now, for people (optional: a provider without it has no cloud panel). */
  inspect?(): Promise<CloudInspection>;
  /** Stops what the provider runs in the background (file watchers). */
  close(): Promise<void>;
}

/** A cloud API call that failed (an injected failure, a quota, an unknown instance). */
export class CloudError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CloudError';
  }
}
