/**
 * Protobuf against JSON: encoding and decoding a 1,000-pod list in this process (time and bytes),
 * then the same list served by the apiserver as JSON, Protobuf and Table (requests per second).
 * The pods look like scheduled, running pods of a Deployment (labels, owner, managed fields,
 * probes, resources, a volume, status with conditions and container statuses).
 */
import { GCProfiler } from 'node:v8';
import type { Dispatcher } from 'undici';
import { ProtobufCodec, PROTOBUF_MEDIA_TYPE } from '../src/codec/protobuf/index.js';
import { TABLE_REPRESENTATION } from '../src/codec/negotiation.js';
import { call, type LoadResult, median, nowMs, runLoad } from './load.js';

const BASE = Date.UTC(2026, 10, 22, 8, 0, 0);
const at = (s: number) => new Date(BASE + s * 1000).toISOString().replace('.000Z', 'Z');

/** The pod as a client creates it (spec only). */
export function benchPodSpec(namespace: string, i: number): Record<string, unknown> {
  const name = `web-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app: 'web', 'pod-template-hash': '7d9c8b6f5' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c8b6f5', uid: '5b1d3c1e-2f0a-4c39-9d57-7b2f0e1c9a11', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      volumes: [{ name: 'config', configMap: { name: 'web-config', defaultMode: 420 } }],
      containers: [
        {
          name: 'web',
          image: 'registry.example.com/team/web:1.27.3',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'MODE', value: 'production' }, { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }],
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
          volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }],
          livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 5, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
          readinessProbe: { httpGet: { path: '/ready', port: 'http', scheme: 'HTTP' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
        },
      ],
      nodeName: `node-${i % 50}`,
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    },
  };
}

/** The pod as the store holds it once it runs (server metadata, defaults and status filled in). */
export function benchPod(namespace: string, i: number): Record<string, unknown> {
  const pod = benchPodSpec(namespace, i) as { metadata: Record<string, unknown>; spec: Record<string, unknown> } & Record<string, unknown>;
  const created = at(i);
  pod.metadata = {
    ...pod.metadata,
    uid: `0a8c${String(i).padStart(4, '0')}-6e2b-4f1d-8c3a-2b9e7d1f${String(i).padStart(4, '0')}`,
    resourceVersion: String(1000 + i),
    creationTimestamp: created,
    managedFields: [
      { manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: created, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': {} } } },
    ],
  };
  const c = (pod.spec['containers'] as Record<string, unknown>[])[0]!;
  Object.assign(c, { terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent' });
  Object.assign(pod.spec, { restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', serviceAccount: 'default', securityContext: {}, schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority' });
  pod['status'] = {
    phase: 'Running',
    conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: at(i + 2) })),
    hostIP: `10.0.${i % 50}.1`,
    podIP: `10.244.${i % 50}.${i % 250}`,
    podIPs: [{ ip: `10.244.${i % 50}.${i % 250}` }],
    startTime: at(i + 1),
    containerStatuses: [{ name: 'web', state: { running: { startedAt: at(i + 3) } }, lastState: {}, ready: true, restartCount: 0, image: 'registry.example.com/team/web:1.27.3', imageID: 'registry.example.com/team/web@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', containerID: `containerd://${'ab'.repeat(32)}`, started: true }],
    qosClass: 'Burstable',
  };
  return pod;
}

export interface CodecFigures {
  items: number;
  /** Timed runs per step (spread over `blocks` blocks, the steps taking turns). */
  runs: number;
  blocks: number;
  jsonBytes: number;
  protobufBytes: number;
  jsonEncodeMs: number;
  protobufEncodeMs: number;
  jsonDecodeMs: number;
  protobufDecodeMs: number;
  /** Garbage collection inside the timed runs, per run (V8's GCProfiler): part of the times above. */
  gcMsPerRun: { jsonEncode: number; protobufEncode: number; jsonDecode: number; protobufDecode: number };
}

type Step = keyof CodecFigures['gcMsPerRun'];

/**
 * Encode and decode of one list, both formats. The four steps take turns in `blocks` blocks (2
 * warm-up runs, then `runs / blocks` timed ones each), so a noisy neighbour or a slow phase of the
 * machine hits every step alike; the median run of each step is reported. Objects are not cached.
 */
export function measureCodec(items: number, runs: number, blocks = 5): CodecFigures {
  const codec = new ProtobufCodec();
  const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '5000' }, items: Array.from({ length: items }, (_, i) => benchPod('bench', i)) };
  // Stored objects carry no nulls; drop them as the store would.
  const clean = JSON.parse(JSON.stringify(list, (_k, v: unknown) => (v === null ? undefined : v))) as typeof list;
  const json = JSON.stringify(clean);
  const pb = codec.encodeList(clean);
  const steps: Record<Step, () => unknown> = {
    jsonEncode: () => JSON.stringify(clean),
    protobufEncode: () => codec.encodeList(clean),
    jsonDecode: () => JSON.parse(json),
    protobufDecode: () => codec.decodeObject(pb),
  };
  const names = Object.keys(steps) as Step[];
  const times = Object.fromEntries(names.map((n) => [n, [] as number[]])) as Record<Step, number[]>;
  const gcMs = Object.fromEntries(names.map((n) => [n, 0])) as Record<Step, number>;
  const perBlock = Math.max(1, Math.round(runs / blocks));
  for (let b = 0; b < blocks; b++) {
    for (const n of names) {
      const f = steps[n];
      for (let i = 0; i < 2; i++) f();
      const gc = new GCProfiler();
      gc.start();
      for (let i = 0; i < perBlock; i++) {
        const t0 = nowMs();
        f();
        times[n].push(nowMs() - t0);
      }
      gcMs[n] += gc.stop().statistics.reduce((sum, e) => sum + e.cost, 0) / 1000;
    }
  }
  const total = perBlock * blocks;
  return {
    items,
    runs: total,
    blocks,
    jsonBytes: Buffer.byteLength(json),
    protobufBytes: pb.length,
    jsonEncodeMs: median(times.jsonEncode),
    protobufEncodeMs: median(times.protobufEncode),
    jsonDecodeMs: median(times.jsonDecode),
    protobufDecodeMs: median(times.protobufDecode),
    gcMsPerRun: { jsonEncode: gcMs.jsonEncode / total, protobufEncode: gcMs.protobufEncode / total, jsonDecode: gcMs.jsonDecode / total, protobufDecode: gcMs.protobufDecode / total },
  };
}

export interface ServedListFigures {
  json: LoadResult;
  protobuf: LoadResult;
  /** Absent when the Table representation is not served. */
  table?: LoadResult;
}

export interface ServedListOptions {
  namespace: string;
  items: number;
  concurrency: number;
  /** Per representation and round. */
  durationMs: number;
  /** Rounds, each serving every representation in turn; the median round of each is reported. */
  rounds: number;
}

/**
 * Creates the pods, then GETs the whole list in each representation in turn, for several rounds
 * (so a GC pause or a noisy neighbour does not decide the comparison); the median round is kept.
 */
export async function measureServedLists(pool: Dispatcher, opts: ServedListOptions): Promise<ServedListFigures> {
  const collection = `/api/v1/namespaces/${opts.namespace}/pods`;
  await runLoad({
    pool,
    concurrency: opts.concurrency,
    total: opts.items,
    next: (i) => ({ method: 'POST', path: collection, body: Buffer.from(JSON.stringify(benchPodSpec(opts.namespace, i))) }),
    expectStatus: 201,
  });
  const check = JSON.parse((await call(pool, 'GET', collection)).text) as { items: unknown[] };
  if (check.items.length !== opts.items) throw new Error(`expected ${opts.items} pods, listed ${check.items.length}`);
  const accepts = { json: 'application/json', protobuf: PROTOBUF_MEDIA_TYPE, table: TABLE_REPRESENTATION.contentType } as const;
  const serve = (accept: string, durationMs: number) =>
    runLoad({ pool, concurrency: opts.concurrency, durationMs, next: () => ({ method: 'GET' as const, path: collection, accept }), expectStatus: 200 });
  for (const accept of Object.values(accepts)) await serve(accept, 1_000);
  const runs: Record<keyof typeof accepts, LoadResult[]> = { json: [], protobuf: [], table: [] };
  for (let r = 0; r < opts.rounds; r++) {
    for (const [name, accept] of Object.entries(accepts) as [keyof typeof accepts, string][]) runs[name].push(await serve(accept, opts.durationMs));
  }
  const mid = (xs: LoadResult[]) => [...xs].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(xs.length / 2)]!;
  return { json: mid(runs.json), protobuf: mid(runs.protobuf), table: mid(runs.table) };
}
