/**
 * The horizontalpodautoscaling controller: sets the replicas of each HPA's target from observed
 * metrics (the established HPA controller).
 *
 * - Watches: HorizontalPodAutoscalers (autoscaling/v2, the stored version; v1 objects are the same
 *   objects converted). Each is synced once per `--horizontal-pod-autoscaler-sync-period`; a spec
 *   change (new generation) is synced at once.
 * - Reads: the target's `scale` subresource (any scalable kind: built-in, or a custom resource with a
 *   scale subresource, found by discovery), pods (cache, by the scale's selector) and PodMetrics
 *   (metrics.svc.io, cache; what the simulated nodes report).
 * - Metrics: Resource and ContainerResource (Utilization, AverageValue) from PodMetrics; the
 *   calculation is ./replica-calculator.ts. Pods, Object and External metrics need a custom or
 *   external metrics API, which this cluster does not serve: such a metric is invalid
 *   (ScalingActive=False, FailedGetPodsMetric / FailedGetObjectMetric / FailedGetExternalMetric).
 * - Normalization (./normalize.ts): stabilization (`--horizontal-pod-autoscaler-downscale-stabilization`
 *   or the behavior's windows), min/max, scale rate (behavior policies, else max(2x, 4)).
 * - Writes: the target's scale (PUT), the HPA's status (currentReplicas, desiredReplicas,
 *   currentMetrics, lastScaleTime, observedGeneration; AbleToScale, ScalingActive, ScalingLimited),
 *   Events SuccessfulRescale, FailedRescale, FailedGetScale, FailedGetResourceMetric, ...
 * - Timers: requeue after the sync period.
 */
import type { HorizontalPodAutoscaler, Pod, PodMetrics } from '../../src/api/generated/kinds.js';
import { parseDurationMs } from '../../src/api/duration.js';
import { canonicalJson } from '../../src/api/json-walk.js';
import { parseLabelSelector } from '../../src/api/labels.js';
import { rfc3339 } from '../../src/api/time.js';
import { formatMilli, toMilli } from '../../src/api/quota/amounts.js';
import type { SvcObject } from '../../src/api/types.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient, type DiscoveredResource, type ResourceRef } from '../../src/client/types.js';
import { setCondition, type ConditionInput } from '../../src/runtime/conditions.js';
import { defineController, type ControllerDefinition, type ReconcileContext } from '../../src/runtime/define-controller.js';
import { done, requeueAfter } from '../../src/runtime/outcome.js';
import { ScalingHistory, withDefaults, type Behavior } from './normalize.js';
import { MetricError, replicasForAverageValue, replicasForUtilization, type CalculatorSettings, type MetricSample, type PodForMetrics } from './replica-calculator.js';

export interface HpaOptions extends CalculatorSettings {
  syncPeriodMs: number;
  downscaleStabilizationMs: number;
  concurrency: number;
}

/** The Scale subresource (autoscaling/v1). */
interface Scale extends SvcObject {
  spec?: { replicas?: number };
  status?: { replicas?: number; selector?: string };
}

type Hpa = HorizontalPodAutoscaler;
type HpaStatus = NonNullable<Hpa['status']>;
type MetricSpec = NonNullable<NonNullable<Hpa['spec']>['metrics']>[number];
type MetricStatus = NonNullable<HpaStatus['currentMetrics']>[number];

const DISCOVERY_TTL_MS = 30_000;
const METRICS = resources['pods.metrics.svc.io'];
const SCALABLE_BUILTINS: readonly ResourceRef[] = [resources.deployments, resources.replicasets, resources.statefulsets, resources.replicationcontrollers];

/** One metric's proposal: replicas, what to call it, its status entry. */
interface Proposal {
  replicas: number;
  name: string;
  status: MetricStatus;
}

class InvalidMetric extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

const readyOf = (p: Pod) => (p.status?.conditions ?? []).find((c) => c.type === 'Ready');
const time = (s: string | undefined) => (s ? Date.parse(s) : undefined);

/** The pods' request of `resource` (milli-units; undefined when a container asks nothing). */
function podRequest(p: Pod, resource: string, container: string | undefined): number | undefined {
  let sum = 0;
  for (const c of p.spec?.containers ?? []) {
    if (container !== undefined && c.name !== container) continue;
    const q = c.resources?.requests?.[resource];
    if (q === undefined) return undefined;
    sum += Number(toMilli(q));
  }
  return sum;
}

export function hpaController(o: HpaOptions): ControllerDefinition<Hpa> {
  const history = new ScalingHistory();
  const lastSync = new Map<string, { at: number; generation: number | undefined }>();
  let discovered: { at: number; list: DiscoveredResource[] } | undefined;

  /** One discovery at a time, shared by the workers. */
  let discovering: Promise<DiscoveredResource[]> | undefined;
  async function scaleRef(client: ApiClient, apiVersion: string, kind: string, now: number): Promise<ResourceRef> {
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    // Built-in scalable kinds need no discovery.
    const builtin = SCALABLE_BUILTINS.find((r) => r.kind === kind && r.group === group);
    if (builtin) return builtin;
    const find = () => discovered?.list.find((r) => r.kind === kind && r.group === group);
    if (!discovered || now - discovered.at > DISCOVERY_TTL_MS || !find()) {
      discovering ??= client.discover().finally(() => (discovering = undefined));
      discovered = { at: now, list: await discovering };
    }
    const r = find();
    if (!r) throw new Error(`no matches for kind "${kind}" in group "${group}"`);
    return r;
  }

  function resourceProposal(ctx: ReconcileContext<Hpa>, hpa: Hpa, m: MetricSpec, current: number, pods: Pod[], now: number): Proposal {
    const src = (m.type === 'ContainerResource' ? m.containerResource : m.resource) as { name?: string; container?: string; target?: { type?: string; averageUtilization?: number; averageValue?: string | number } };
    const resource = src.name ?? '';
    const container = m.type === 'ContainerResource' ? src.container : undefined;
    const reason = m.type === 'ContainerResource' ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
    const samples = new Map<string, MetricSample>();
    for (const pm of ctx.cacheOf<PodMetrics>(METRICS).byIndex('namespace', hpa.metadata.namespace ?? '')) {
      let value = 0;
      let seen = false;
      for (const c of pm.containers ?? []) {
        if (container !== undefined && c.name !== container) continue;
        const q = c.usage?.[resource];
        if (q === undefined) continue;
        value += Number(toMilli(q));
        seen = true;
      }
      if (seen) samples.set(pm.metadata.name ?? '', { value, timestamp: time(pm.timestamp) ?? now, windowMs: parseDurationMs(pm.window ?? '') ?? 30_000 });
    }
    const forCalc: PodForMetrics[] = pods.map((p) => ({
      name: p.metadata.name ?? '',
      phase: p.status?.phase,
      deleting: !!p.metadata.deletionTimestamp,
      startTime: time(p.status?.startTime),
      ready: readyOf(p)?.status === 'True',
      readyTransition: time(readyOf(p)?.lastTransitionTime),
      request: podRequest(p, resource, container),
    }));
    // Only the target's pods' samples count.
    const names = new Set(forCalc.map((p) => p.name));
    for (const n of [...samples.keys()]) if (!names.has(n)) samples.delete(n);
    const target = src.target ?? {};
    const entry = (current2: Record<string, unknown>): MetricStatus =>
      (m.type === 'ContainerResource'
        ? { type: 'ContainerResource', containerResource: { name: resource, container, current: current2 } }
        : { type: 'Resource', resource: { name: resource, current: current2 } }) as MetricStatus;
    try {
      if (target.type === 'Utilization') {
        const r = replicasForUtilization(current, target.averageUtilization ?? 0, resource, forCalc, samples, o, now);
        return {
          replicas: r.replicas,
          name: `${resource} resource utilization (percentage of request)`,
          status: entry({ averageUtilization: r.utilization, averageValue: formatMilli(BigInt(Math.round(r.rawAverage)), false) }),
        };
      }
      const r = replicasForAverageValue(current, Number(toMilli(target.averageValue ?? 0)), resource, forCalc, samples, o, now);
      return { replicas: r.replicas, name: `${resource} resource`, status: entry({ averageValue: formatMilli(BigInt(Math.round(r.rawAverage)), false) }) };
    } catch (e) {
      if (e instanceof MetricError) {
        const what = target.type === 'Utilization' ? `${resource} utilization` : `${resource} usage`;
        throw new InvalidMetric(reason, `the HPA was unable to compute the replica count: failed to get ${what}: ${e.message}`);
      }
      throw e;
    }
  }

  function unservedProposal(m: MetricSpec): never {
    const id = (x: { metric?: { name?: string } } | undefined) => x?.metric?.name ?? '';
    switch (m.type) {
      case 'Pods':
        throw new InvalidMetric('FailedGetPodsMetric', `the HPA was unable to compute the replica count: unable to get metric ${id(m.pods)}: no custom metrics API (custom.metrics.svc.io) is served`);
      case 'Object':
        throw new InvalidMetric('FailedGetObjectMetric', `the HPA was unable to compute the replica count: unable to get metric ${id(m.object)}: no custom metrics API (custom.metrics.svc.io) is served`);
      default:
        throw new InvalidMetric('FailedGetExternalMetric', `the HPA was unable to compute the replica count: unable to get external metric ${id(m.external)}: no external metrics API (external.metrics.svc.io) is served`);
    }
  }

  return defineController<Hpa>({
    name: 'horizontalpodautoscaling',
    watches: resources.horizontalpodautoscalers,
    concurrency: o.concurrency,
    // Pods and their samples are read from caches on each sync; their changes queue nothing.
    triggers: [
      { resource: resources.pods, keysFor: () => [] },
      { resource: METRICS, keysFor: () => [] },
    ],
    permissions: [
      { apiGroups: ['*'], resources: ['*/scale'], verbs: ['get', 'update'] },
      { apiGroups: ['autoscaling'], resources: ['horizontalpodautoscalers/status'], verbs: ['update'] },
    ],
    async reconcile(key, ctx) {
      const hpa = ctx.object;
      if (!hpa) {
        history.forget(key);
        lastSync.delete(key);
        return done();
      }
      const now = ctx.clock.now();
      const last = lastSync.get(key);
      // Once per sync period, as established (status writes and other changes do not hurry it); a new generation at once.
      if (last && last.generation === hpa.metadata.generation && now - last.at < o.syncPeriodMs) return requeueAfter(o.syncPeriodMs - (now - last.at));
      lastSync.set(key, { at: now, generation: hpa.metadata.generation });
      // The next sync is one period after this one began, not after it ended: a sync's own writes
      // (and the queue's wait behind the other HPAs of a round) must not push every later sync back,
      // or the HPAs of a round drift later each period and a change waits longer than one period.
      const nextSync = () => requeueAfter(Math.max(0, o.syncPeriodMs - (ctx.clock.now() - now)));
      const ns = hpa.metadata.namespace ?? '';
      const spec = hpa.spec ?? {};
      const min = spec.minReplicas ?? 1;
      const max = spec.maxReplicas ?? 1;
      let conditions = hpa.status?.conditions;
      const cond = (type: string, c: Omit<ConditionInput, 'type'>) => (conditions = setCondition(conditions, { type, ...c }, now));
      const status: HpaStatus = { ...(hpa.status ?? {}), observedGeneration: hpa.metadata.generation };
      const writeStatus = async () => {
        status.conditions = conditions;
        // Key order aside: an unchanged status is not written (no event, no extra sync).
        if (canonicalJson(status) === canonicalJson(hpa.status ?? {})) return;
        await ctx.client.updateStatus(resources.horizontalpodautoscalers, ns, { ...hpa, status } as Hpa);
      };
      const target = spec.scaleTargetRef ?? {};
      let ref: ResourceRef;
      let scale: Scale;
      try {
        ref = await scaleRef(ctx.client, target.apiVersion ?? '', target.kind ?? '', now);
        scale = await ctx.client.subresource<Scale>(ref, ns, target.name ?? '', 'scale', 'GET');
      } catch (e) {
        const msg = `the HPA controller was unable to get the target's current scale: ${(e as Error).message}`;
        cond('AbleToScale', { status: 'False', reason: 'FailedGetScale', message: msg });
        await ctx.recorder.event(hpa, 'Warning', 'FailedGetScale', (e as Error).message);
        await writeStatus().catch(() => undefined);
        return nextSync();
      }
      cond('AbleToScale', { status: 'True', reason: 'SucceededGetScale', message: "the HPA controller was able to get the target's current scale" });
      const current = scale.spec?.replicas ?? 0;
      status.currentReplicas = scale.status?.replicas ?? 0;
      let desired = current;
      let reason = '';
      const behavior = spec.behavior ? withDefaults(spec.behavior as Behavior, o.downscaleStabilizationMs) : undefined;
      if (current === 0 && min !== 0) {
        desired = 0;
        cond('ScalingActive', { status: 'False', reason: 'ScalingDisabled', message: 'scaling is disabled since the replica count of the target is zero' });
      } else if (current > max) {
        desired = max;
        reason = 'Current number of replicas above Spec.MaxReplicas';
      } else if (current < min) {
        desired = min;
        reason = 'Current number of replicas below Spec.MinReplicas';
      } else {
        const selector = scale.status?.selector;
        const sel = selector ? parseLabelSelector(selector) : undefined;
        const pods = sel ? ctx.cacheOf<Pod>(resources.pods).byIndex('namespace', ns).filter((p) => sel.matches(p.metadata.labels)) : [];
        let best: Proposal | undefined;
        const statuses: MetricStatus[] = [];
        let invalid = 0;
        let firstError: InvalidMetric | undefined;
        const metrics = spec.metrics ?? [];
        for (const m of metrics) {
          try {
            if (!selector) throw new InvalidMetric('InvalidSelector', 'the HPA target\'s scale is missing a selector');
            const p = m.type === 'Resource' || m.type === 'ContainerResource' ? resourceProposal(ctx, hpa, m, current, pods, now) : unservedProposal(m);
            statuses.push(p.status);
            if (!best || p.replicas > best.replicas) best = p;
          } catch (e) {
            if (!(e instanceof InvalidMetric)) throw e;
            invalid++;
            firstError ??= e;
            await ctx.recorder.event(hpa, 'Warning', e.reason, e.message);
          }
        }
        status.currentMetrics = statuses;
        if (invalid > 0 && (invalid >= metrics.length || (best && best.replicas < current))) {
          // Established: with any metric invalid there is no scale-down; with all invalid, no scaling.
          const msg = invalid >= metrics.length ? firstError!.message : `invalid metrics (${invalid} invalid out of ${metrics.length}), first error is: ${firstError!.message}`;
          cond('ScalingActive', { status: 'False', reason: firstError!.reason, message: msg });
          status.desiredReplicas = current;
          await writeStatus().catch((e) => ctx.logger.warn({ err: (e as Error).message }, 'status update failed'));
          return nextSync();
        }
        cond('ScalingActive', { status: 'True', reason: 'ValidMetricFound', message: `the HPA was able to successfully calculate a replica count from ${best!.name}` });
        const n = behavior
          ? history.normalizeWithBehavior(key, current, best!.replicas, min, max, behavior, now)
          : history.normalize(key, current, best!.replicas, min, max, o.downscaleStabilizationMs, now);
        cond('AbleToScale', n.ableToScale);
        cond('ScalingLimited', n.scalingLimited);
        desired = n.replicas;
        reason = desired > current ? `${best!.name} above target` : 'All metrics below target';
      }
      status.desiredReplicas = desired;
      if (desired !== current) {
        try {
          await ctx.client.subresource(ref, ns, target.name ?? '', 'scale', 'PUT', { ...scale, spec: { ...(scale.spec ?? {}), replicas: desired } });
        } catch (e) {
          const msg = (e as Error).message;
          cond('AbleToScale', { status: 'False', reason: 'FailedUpdateScale', message: `the HPA controller was unable to update the target scale: ${msg}` });
          await ctx.recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${msg}`);
          await writeStatus().catch(() => undefined);
          return nextSync();
        }
        cond('AbleToScale', { status: 'True', reason: 'SucceededRescale', message: `the HPA controller was able to update the target scale to ${desired}` });
        void ctx.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
        if (behavior) history.recordScale(key, current, desired, behavior, now);
        status.lastScaleTime = rfc3339(now);
        ctx.logger.info({ from: current, to: desired, reason }, 'rescaled');
      }
      try {
        await writeStatus();
      } catch (e) {
        // A newer HPA: the next sync writes against it.
        if (e instanceof ApiError && e.code === 409) return nextSync();
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      }
      return nextSync();
    },
  });
}
