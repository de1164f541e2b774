/**
 * Object builders for tests: `pod(...)`, `node(...)` and friends return typed objects with the
 * fields a test names and sensible defaults for the rest, so a table-driven plugin test reads
 * as its cases. Every builder returns a fresh object (tests may mutate it).
 */
import type { CustomResourceDefinition, Namespace, Node, Pod, ReplicaSet } from '../../src/api/generated/kinds.js';
import { LABEL_HOSTNAME } from '../../src/api/well-known-labels.js';

let uidCounter = 0;
const nextUid = (prefix: string) => `${prefix}-${++uidCounter}`;

export interface PodOptions {
  namespace?: string;
  labels?: Record<string, string>;
  /** Container requests, e.g. `{ cpu: '500m', memory: '1Gi' }` (one container). */
  requests?: Record<string, string>;
  nodeName?: string;
  priority?: number;
  schedulerName?: string;
}

/** A pod named `name`; `spec` fields given in `extra.spec` are merged over the defaults. */
export function pod(name: string, opts: PodOptions = {}, extra: Partial<Pod> = {}): Pod {
  const spec: NonNullable<Pod['spec']> = {
    containers: [{ name: 'c', image: 'registry.example/app:1', ...(opts.requests ? { resources: { requests: opts.requests } } : {}) }],
    schedulerName: opts.schedulerName ?? 'default-scheduler',
    ...(opts.nodeName ? { nodeName: opts.nodeName } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    ...(extra.spec ?? {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    ...extra,
    metadata: { name, namespace: opts.namespace ?? 'default', uid: nextUid(name), ...(opts.labels ? { labels: opts.labels } : {}), ...(extra.metadata ?? {}) },
    spec,
  };
}

export interface NodeOptions {
  labels?: Record<string, string>;
  /** Allocatable (and capacity); default 4 cpu, 8Gi memory, 110 pods, 100Gi ephemeral storage. */
  allocatable?: Record<string, string>;
  taints?: NonNullable<NonNullable<Node['spec']>['taints']>;
  unschedulable?: boolean;
}

export function node(name: string, opts: NodeOptions = {}, extra: Partial<Node> = {}): Node {
  const allocatable = opts.allocatable ?? { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    ...extra,
    metadata: { name, uid: nextUid(name), labels: { [LABEL_HOSTNAME]: name, ...(opts.labels ?? {}) }, ...(extra.metadata ?? {}) },
    spec: { ...(opts.taints ? { taints: opts.taints } : {}), ...(opts.unschedulable ? { unschedulable: true } : {}), ...(extra.spec ?? {}) },
    status: { capacity: allocatable, allocatable, conditions: [{ type: 'Ready', status: 'True' }], ...(extra.status ?? {}) },
  };
}

/** A ReplicaSet selecting `app: <name>`, its template a one-container pod with that label. */
export function replicaSet(name: string, replicas: number, opts: { namespace?: string; minReadySeconds?: number; terminationGracePeriodSeconds?: number } = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: opts.namespace ?? 'default' },
    spec: {
      replicas,
      ...(opts.minReadySeconds !== undefined ? { minReadySeconds: opts.minReadySeconds } : {}),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'c', image: 'registry.example/app:1' }],
          ...(opts.terminationGracePeriodSeconds !== undefined ? { terminationGracePeriodSeconds: opts.terminationGracePeriodSeconds } : {}),
        },
      },
    },
  };
}

export function namespace(name: string): Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
}

/** A namespaced custom resource `<plural>.<group>` of kind `kind`, version v1, any fields allowed. */
export function customResourceDefinition(group: string, plural: string, kind: string): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.svc.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-svc-preserve-unknown-fields': true } } }],
    },
  } as CustomResourceDefinition;
}
