/**
 * What cloudy shows of itself on its component's page (CloudProvider.inspect, src/cloud/provider.ts):
 * the settings (project, region, zones, ranges, latency, the load-balancer quota) as facts, and
 * each object of the file as one row of flat facts: instances with their state and addresses, load
 * balancers with their ingress IP, listeners and targets, firewall rules, routes, and the injected
 * failures still pending. Read straight from the file (no latency, no injected failure: looking at
 * a broken cloud must work).
 */
import type { CloudInspection, CloudObjectFacts } from '../provider.js';
import type { CloudyDocument } from './state.js';

/** `providerID`: ./index.ts's cloudyProviderID (passed in: index imports this file). */
export function inspectCloudyDocument(doc: CloudyDocument, file: string, providerID: (doc: CloudyDocument, zone: string, name: string) => string): CloudInspection {
  const instances: CloudObjectFacts[] = Object.entries(doc.instances).map(([name, i]) => ({
    name,
    state: i.state,
    zone: i.zone,
    instanceType: i.instanceType,
    internalIP: i.internalIP,
    externalIP: i.externalIP,
    providerID: providerID(doc, i.zone, name),
    createdAt: i.createdAt,
  }));
  const loadBalancers: CloudObjectFacts[] = Object.entries(doc.loadBalancers).map(([name, lb]) => ({
    name,
    service: lb.service,
    ingressIP: lb.ip,
    listeners: lb.listeners.map((l) => `${l.protocol}:${l.port}->${l.nodePort}`),
    targets: lb.targets,
    firewallRules: Object.entries(doc.firewalls).filter(([, f]) => f.loadBalancer === name).map(([n]) => n),
    ...(lb.healthCheckNodePort ? { healthCheckNodePort: lb.healthCheckNodePort } : {}),
    cluster: lb.cluster,
    createdAt: lb.createdAt,
  }));
  const firewalls: CloudObjectFacts[] = Object.entries(doc.firewalls).map(([name, f]) => ({
    name,
    loadBalancer: f.loadBalancer,
    sourceRanges: f.sourceRanges,
    allowed: f.allowed.map((a) => `${a.protocol}:${a.ports.join(',')}`),
    targets: f.targets,
  }));
  const routes: CloudObjectFacts[] = Object.entries(doc.routes).map(([name, r]) => ({
    name,
    cluster: r.cluster,
    targetNode: r.targetNode,
    destinationCIDR: r.destinationCIDR,
    blackhole: doc.instances[r.targetNode] === undefined,
  }));
  const failures: CloudObjectFacts[] = Object.entries(doc.failures).map(([name, f]) => ({
    name,
    remaining: f.count === undefined ? 'every call until healed' : `${f.count} call(s)`,
    message: f.message ?? 'injected failure',
  }));
  return {
    provider: 'cloudy',
    facts: {
      file,
      project: doc.project,
      region: doc.region,
      zones: doc.zones,
      instanceType: doc.instanceType,
      internalRange: doc.internalRange,
      externalRange: doc.externalRange,
      loadBalancerRange: doc.loadBalancerRange,
      latencyMs: doc.latencyMs,
      loadBalancerQuota: doc.quotas.loadBalancers,
    },
    objects: { instances, loadBalancers, firewalls, routes, failures },
  };
}
