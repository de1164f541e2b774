/**
 * One pod on a simulated node: its containers' simulated life and the status that life shows.
 * Pure over the times it is given (no clock, no I/O): the node's pod runner asks `nextAt(now)` when
 * to look again, calls `advance(now)`, and writes `status(now)` when it differs from the last one
 * written (every time in it is an event's time, never `now`, so an unchanged pod gives equal text).
 *
 *   creating --image pull + start delay--> running --run-seconds--> exited
 *   exited: restartPolicy Never -> done (Succeeded if exit code 0, else Failed)
 *           OnFailure -> done (Succeeded) on 0, else back-off;  Always -> back-off
 *   back-off (10 s doubling to 300 s, per restart) --> running again, restartCount + 1
 *
 * Init containers run first, one after the other, each pulled, started and exiting with 0 within
 * one pull + start delay; the app containers start once the last has completed (`Initialized`).
 * A container is ready once it runs and its readiness probe passes (no probe: at once; by default
 * a probe passes at its first run, after initialDelaySeconds); the pod is Ready when every
 * container is. Probe failures the pod's annotations ask for (sim-probes.ts) are steps of their
 * own (`unhealthy`, an Event each), and a failing liveness or startup probe kills the run (exit
 * code 137) like an exit. Every container of a pod runs the same simulated program (the pod's
 * `sim.svc.io/*` annotations) and they share one life: a run killed by one container's probe
 * restarts them all.
 *
 * Where the pod stands is named by its lifecycle (machines/lifecycles/pod.ts: waiting.volumes /
 * .initializing / .creating, running.starting / .ready, restarting, terminated.succeeded / .failed),
 * evaluated on `lifecycleFacts(now)`; `status(now, state)` shows that state (phase, container states).
 */
import type { Condition, Pod, PodStatus } from '../api/generated/kinds.js';
import { rfc3339 } from '../api/time.js';
import { podLifecycle, type PodFacts } from '../../machines/lifecycles/pod.js';
import { evaluateLifecycle, type LifecycleState } from '../runtime/lifecycle.js';
import { podBehaviour, type PodBehaviour } from './sim-annotations.js';
import type { ContainerRun } from './sim-logs.js';
import { containerProbes, ProbePlan, type ContainerProbes, type ProbeKind } from './sim-probes.js';

export interface SimTimings {
  /** Simulated image pull, from the pod's first sight to its containers starting (default 500 ms). */
  imagePullMs: number;
  /** Simulated container start after the pull (default 200 ms). */
  containerStartMs: number;
  /** First restart back-off; doubles per restart (established: 10 s). */
  backoffBaseMs: number;
  /** Longest restart back-off (established: 300 s). */
  backoffMaxMs: number;
  /** How long a container takes to stop on SIGTERM (default 1 s; `sim.svc.io/stop-seconds` per pod). */
  containerStopMs: number;
  /**
   * How long a pod waits for its volumes to be attached and mounted before a `FailedMount` Event
   * (again after each such wait); default VOLUME_MOUNT_TIMEOUT_MS, the established 2 minutes.
   */
  volumeMountTimeoutMs?: number;
}

/** The established node agent's wait for a pod's volumes before it reports FailedMount. */
export const VOLUME_MOUNT_TIMEOUT_MS = 120_000;

export const DEFAULT_SIM_TIMINGS: Readonly<SimTimings> = Object.freeze({ imagePullMs: 500, containerStartMs: 200, backoffBaseMs: 10_000, backoffMaxMs: 300_000, containerStopMs: 1_000 });

/** A step of a pod's life that the node reports as Events (sim-node.ts). */
export type SimTransition =
  | { type: 'started'; restart: number }
  | { type: 'backoff'; restart: number; backoffMs: number }
  | { type: 'exited'; exitCode: number }
  /** A probe run of `containers[container]` failed. */
  | { type: 'unhealthy'; container: number; probe: ProbeKind; message: string }
  /** A failing liveness or startup probe of `containers[container]` killed the run; `restart`: by the restart policy. */
  | { type: 'killed'; container: number; probe: ProbeKind; restart: boolean };

/** The exit code of a container killed (SIGKILL) by the node. */
const KILLED_EXIT_CODE = 137;

/** A container status as the established node agent writes it (the schema keeps these free-form). */
export interface ContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: Record<string, Record<string, unknown>>;
  lastState: Record<string, Record<string, unknown>>;
}

interface Exit {
  exitCode: number;
  startedAt: number;
  finishedAt: number;
}

type Stage = { kind: 'creating'; startAt: number } | { kind: 'running'; since: number } | { kind: 'backoff'; until: number } | { kind: 'done'; exit: Exit };

export interface ContainerInfo {
  name: string;
  image: string;
  /** Its probes (app containers only); undefined: none. */
  probes: ContainerProbes | undefined;
  /** spec.containers[i].imagePullPolicy (defaulted as established when absent). */
  pullPolicy: string;
}

/** The established default: Always for `:latest` or no tag, IfNotPresent otherwise. */
function pullPolicy(c: { image?: string; imagePullPolicy?: string }): string {
  if (c.imagePullPolicy) return c.imagePullPolicy;
  const image = c.image ?? '';
  const name = image.split('@')[0]!;
  const tag = name.lastIndexOf(':') > name.lastIndexOf('/') ? name.slice(name.lastIndexOf(':') + 1) : '';
  return image.includes('@') ? 'IfNotPresent' : tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

export class SimPod {
  readonly uid: string;
  readonly containers: ContainerInfo[];
  readonly inits: ContainerInfo[];
  /** One init container's (and the app containers') pull + start. */
  private readonly stepMs: number;
  readonly behaviour: PodBehaviour;
  private readonly restartPolicy: string;
  private stage: Stage;
  private restarts = 0;
  private last: Exit | undefined;
  private readonly firstSeen: number;
  /**
   * When its containers' steps (pulls, init containers, the start) begin: at first sight, or, for
   * a pod held for its volumes (`holdForVolumes`), once they are attached (Infinity until then).
   */
  private containersFrom: number;
  /** The running stage's probe plans, one per app container (undefined entries: no probes); undefined: no container has probes. */
  private plans: Array<ProbePlan | undefined> | undefined;

  constructor(
    private readonly pod: Pod,
    private readonly timings: SimTimings,
    now: number,
    /** Its addresses, one per family of the node's podCIDRs, primary first (the host's for hostNetwork; none when the node's range ran out). */
    readonly podIPs: readonly string[],
    readonly hostIP: string,
  ) {
    this.uid = pod.metadata.uid ?? '';
    this.firstSeen = now;
    this.containersFrom = now;
    this.behaviour = podBehaviour(pod.metadata.annotations);
    this.restartPolicy = pod.spec?.restartPolicy ?? 'Always';
    this.containers = (pod.spec?.containers ?? []).map((c) => ({
      name: c.name ?? '',
      image: c.image ?? '',
      probes: containerProbes(c as Parameters<typeof containerProbes>[0], podIPs[0] ?? ''),
      pullPolicy: pullPolicy(c as { image?: string; imagePullPolicy?: string }),
    }));
    this.inits = (pod.spec?.initContainers ?? []).map((c) => ({ name: c.name ?? '', image: c.image ?? '', probes: undefined, pullPolicy: pullPolicy(c as { image?: string; imagePullPolicy?: string }) }));
    this.stepMs = timings.imagePullMs + timings.containerStartMs;
    this.stage = { kind: 'creating', startAt: now + (this.inits.length + 1) * this.stepMs };
  }

  get name(): string {
    return this.pod.metadata.name ?? '';
  }

  get namespace(): string {
    return this.pod.metadata.namespace ?? '';
  }

  /**
   * Holds the pod before its first container step until `volumesReady`: the established node
   * agent starts nothing before the pod's volumes are attached and mounted (it reports the pod
   * Pending, its containers waiting in ContainerCreating or PodInitializing).
   */
  holdForVolumes(): void {
    if (this.stage.kind !== 'creating') return;
    this.containersFrom = Infinity;
    this.stage = { kind: 'creating', startAt: Infinity };
  }

  /** Whether it is held for its volumes. */
  get waitingForVolumes(): boolean {
    return this.containersFrom === Infinity;
  }

  /** Its volumes are attached and mounted at `now`: the containers' steps begin. */
  volumesReady(now: number): void {
    if (!this.waitingForVolumes) return;
    this.containersFrom = now;
    this.stage = { kind: 'creating', startAt: now + (this.inits.length + 1) * this.stepMs };
  }

  /** True once the pod reached Succeeded or Failed: nothing more happens to it. */
  get finished(): boolean {
    return this.stage.kind === 'done';
  }

  /** When something next changes after `now` (a start, a container getting ready, an exit, a restart), if ever. */
  nextAt(now: number): number | undefined {
    const s = this.stage;
    switch (s.kind) {
      case 'creating': {
        // Each init container starting and completing is a status change of its own.
        for (let i = 0; i < this.inits.length; i++) {
          const { startedAt, finishedAt } = this.initTimes(i);
          if (startedAt > now && startedAt < s.startAt) return startedAt;
          if (finishedAt > now && finishedAt < s.startAt) return finishedAt;
        }
        return s.startAt === Infinity ? undefined : s.startAt;
      }
      case 'backoff':
        return s.until;
      case 'done':
        return undefined;
      case 'running': {
        let next = Math.min(this.runEnd(s.since), this.killAt());
        for (const plan of this.plans ?? []) {
          if (!plan) continue;
          for (const t of [plan.startedAt, plan.readyAt, plan.nextFailure()?.at ?? Infinity]) if (t > now && t < next) next = t;
          // A failure due but not yet reported (the pod was not looked at): at once.
          const due = plan.nextFailure()?.at;
          if (due !== undefined && due <= now) next = now;
        }
        return next === Infinity ? undefined : next;
      }
    }
  }

  /**
   * Moves through every step due by `now` (several, if the pod was not looked at for a while);
   * gives the steps taken, oldest first (the node records Events for them).
   */
  advance(now: number): SimTransition[] {
    const steps: SimTransition[] = [];
    for (let guard = 0; guard < 1000; guard++) {
      const s = this.stage;
      if (s.kind === 'creating' && now >= s.startAt) {
        this.run(s.startAt);
        steps.push({ type: 'started', restart: 0 });
      } else if (s.kind === 'running' && this.failureDue(now, steps)) {
        // One probe failure reported; look again.
      } else if (s.kind === 'running' && this.killAt() <= now && this.killAt() < this.runEnd(s.since)) {
        const at = this.killAt();
        const exit = { exitCode: KILLED_EXIT_CODE, startedAt: s.since, finishedAt: at };
        const restart = this.restartPolicy !== 'Never';
        this.plans!.forEach((plan, i) => {
          if (plan?.kill?.at === at) steps.push({ type: 'killed', container: i, probe: plan.kill.probe, restart });
        });
        steps.push(this.exited(exit));
      } else if (s.kind === 'running' && now >= this.runEnd(s.since)) {
        steps.push(this.exited({ exitCode: this.behaviour.exitCode, startedAt: s.since, finishedAt: this.runEnd(s.since) }));
      } else if (s.kind === 'backoff' && now >= s.until) {
        this.restarts++;
        this.run(s.until);
        steps.push({ type: 'started', restart: this.restarts });
      } else break;
    }
    return steps;
  }

  /** Enters the running stage at `since`, planning its probes (only when a container has any). */
  private run(since: number): void {
    this.stage = { kind: 'running', since };
    this.plans = this.containers.some((c) => c.probes) ? this.containers.map((c) => (c.probes ? new ProbePlan(c.probes, this.behaviour, since) : undefined)) : undefined;
  }

  /** When the run started at `since` exits by itself (`sim.svc.io/run-seconds`); Infinity: never. */
  private runEnd(since: number): number {
    return this.behaviour.runMs !== undefined ? since + this.behaviour.runMs : Infinity;
  }

  /** When a failing probe kills the current run; Infinity: never. */
  private killAt(): number {
    let at = Infinity;
    for (const plan of this.plans ?? []) if (plan?.kill && plan.kill.at < at) at = plan.kill.at;
    return at;
  }

  /** Reports the earliest probe failure due by `now` (before the run ends), if any. */
  private failureDue(now: number, steps: SimTransition[]): boolean {
    if (!this.plans || this.stage.kind !== 'running') return false;
    const end = Math.min(this.runEnd(this.stage.since), this.killAt());
    let best: { i: number; at: number; probe: ProbeKind; message: string } | undefined;
    this.plans.forEach((plan, i) => {
      const f = plan?.nextFailure();
      if (f && f.at <= now && f.at <= end && (!best || f.at < best.at)) best = { i, ...f };
    });
    if (!best) return false;
    const { i, at, probe, message } = best;
    this.plans[i]!.reported(probe, at);
    steps.push({ type: 'unhealthy', container: i, probe, message });
    return true;
  }

  private exited(exit: Exit): SimTransition {
    this.last = exit;
    const restart = this.restartPolicy === 'Always' || (this.restartPolicy === 'OnFailure' && exit.exitCode !== 0);
    if (!restart) {
      this.stage = { kind: 'done', exit };
      return { type: 'exited', exitCode: exit.exitCode };
    }
    const backoff = Math.min(this.timings.backoffBaseMs * 2 ** this.restarts, this.timings.backoffMaxMs);
    this.stage = { kind: 'backoff', until: exit.finishedAt + backoff };
    return { type: 'backoff', restart: this.restarts, backoffMs: backoff };
  }

  /** True while some container runs (so deleting the pod has something to stop). */
  get running(): boolean {
    return this.stage.kind === 'running';
  }

  /**
   * How long after the node sees the deletion the pod's containers have stopped: their stop time
   * (`sim.svc.io/stop-seconds`, else the node's), or the whole grace period when they ignore
   * SIGTERM; never more than the grace period (then they are killed). Nothing runs yet or any
   * more: at once.
   */
  stopDelayMs(graceMs: number, stop: Pick<PodBehaviour, 'ignoreSigterm' | 'stopMs'> = this.behaviour): number {
    if (this.stage.kind !== 'running' && this.stage.kind !== 'backoff') return 0;
    if (stop.ignoreSigterm) return graceMs;
    return Math.min(graceMs, stop.stopMs ?? this.timings.containerStopMs);
  }

  /**
   * The run whose output a log request for `container` gets at `now`, chosen as the established
   * node agent chooses from the container's status (previous: lastState.terminated; else the
   * running one, else the terminated one, else lastState.terminated), or the error message it
   * answers with (400) when there is none.
   */
  logRun(container: string, previous: boolean, now: number): ContainerRun | string {
    const podName = this.pod.metadata.name ?? '';
    const base = { namespace: this.pod.metadata.namespace ?? '', pod: podName, container };
    const notFound = `previous terminated container "${container}" in pod "${podName}" not found`;
    const initIndex = this.inits.findIndex((c) => c.name === container);
    if (initIndex >= 0) {
      const c = this.inits[initIndex]!;
      if (previous) return notFound;
      const { startedAt, finishedAt } = this.initTimes(initIndex);
      if (now < startedAt) return `container "${container}" in pod "${podName}" is waiting to start: PodInitializing`;
      return { ...base, image: c.image, restart: 0, startedAt, finishedAt: now >= finishedAt ? finishedAt : undefined };
    }
    const c = this.containers.find((x) => x.name === container);
    if (!c) return `container "${container}" not found in pod "${podName}"`;
    const s = this.stage;
    const lastRun = (restart: number): ContainerRun => ({ ...base, image: c.image, restart, startedAt: this.last!.startedAt, finishedAt: this.last!.finishedAt });
    if (previous) {
      if (!this.last || s.kind === 'done') return notFound;
      return lastRun(s.kind === 'backoff' ? this.restarts : this.restarts - 1);
    }
    switch (s.kind) {
      case 'running':
        return { ...base, image: c.image, restart: this.restarts, startedAt: s.since, finishedAt: undefined };
      case 'done':
        return { ...base, image: c.image, restart: this.restarts, startedAt: s.exit.startedAt, finishedAt: s.exit.finishedAt };
      case 'backoff':
        return lastRun(this.restarts);
      case 'creating':
        return `container "${container}" in pod "${podName}" is waiting to start: ${now >= this.initializedAt() ? 'ContainerCreating' : 'PodInitializing'}`;
    }
  }

  /**
   * Where the pod's life stands at `now`, as machines/lifecycles/pod.ts reads it (the node agent
   * tracks it per pod; the state then decides what the status shows).
   */
  lifecycleFacts(now: number): PodFacts {
    const s = this.stage;
    let initsDone = 0;
    for (let i = 0; i < this.inits.length; i++) if (now >= this.initTimes(i).finishedAt) initsDone++;
    const ready = s.kind === 'running' ? this.containers.filter((_, i) => { const plan = this.plans?.[i]; return plan ? now >= plan.readyAt : true; }).length : 0;
    return {
      heldForVolumes: this.waitingForVolumes,
      initContainers: this.inits.length,
      initsDone,
      running: s.kind === 'running',
      containers: this.containers.length,
      ready,
      backingOff: s.kind === 'backoff',
      backoffLeftMs: s.kind === 'backoff' ? Math.max(0, s.until - now) : 0,
      restarts: this.restarts,
      finished: s.kind === 'done',
      exitCode: s.kind === 'done' ? s.exit.exitCode : undefined,
      image: this.containers[0]?.image ?? '',
      startsInMs: s.kind === 'creating' && s.startAt !== Infinity ? Math.max(0, s.startAt - now) : undefined,
    };
  }

  /** The pod's lifecycle state at `now` (one xstate transition). */
  lifecycle(now: number): LifecycleState {
    return evaluateLifecycle(podLifecycle, this.lifecycleFacts(now));
  }

  /** The pod's phase (the same for every state of a stage, so the time of the look does not matter). */
  phase(): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
    return phaseOf(this.lifecycle(this.firstSeen).state);
  }

  /**
   * The status to write at `now` (merged over the stored one: PodScheduled and qosClass stay), as
   * its lifecycle state (`state`, evaluated here when the caller did not track it) shows it.
   */
  status(now: number, state: string = this.lifecycle(now).state): PodStatus {
    const phase = phaseOf(state);
    const containerStatuses = this.containers.map((c) => this.containerStatus(c, now, state));
    const allReady = containerStatuses.length > 0 && containerStatuses.every((c) => c.ready);
    const done = phase === 'Succeeded' || phase === 'Failed';
    const scheduled = (this.pod.status?.conditions ?? []).find((c) => c.type === 'PodScheduled');
    const changedAt = this.readinessChangedAt(now);
    const notReady = done ? 'PodCompleted' : allReady ? undefined : 'ContainersNotReady';
    const initialized = now >= this.initializedAt();
    const conditions: Condition[] = [
      initialized ? condition('Initialized', true, this.initializedAt(), done ? 'PodCompleted' : undefined) : condition('Initialized', false, this.firstSeen, 'ContainersNotInitialized'),
      condition('Ready', allReady, changedAt, notReady),
      condition('ContainersReady', allReady, changedAt, notReady),
      scheduled ? { ...scheduled } : condition('PodScheduled', true, this.firstSeen),
    ];
    return {
      phase,
      conditions,
      hostIP: this.hostIP,
      ...(phase === 'Pending' || !this.podIPs.length ? {} : { podIP: this.podIPs[0], podIPs: this.podIPs.map((ip) => ({ ip })) }),
      startTime: rfc3339(this.firstSeen),
      ...(this.inits.length ? { initContainerStatuses: this.inits.map((c, i) => this.initContainerStatus(c, i, now)) as unknown as Array<Record<string, unknown>> } : {}),
      containerStatuses: containerStatuses as unknown as Array<Record<string, unknown>>,
    };
  }

  /** When init container `i` starts and completes. */
  private initTimes(i: number): { startedAt: number; finishedAt: number } {
    return { startedAt: this.containersFrom + i * this.stepMs + this.timings.imagePullMs, finishedAt: this.containersFrom + (i + 1) * this.stepMs };
  }

  /** When the last init container completed (the pod's first sight when it has none). */
  private initializedAt(): number {
    return this.inits.length === 0 ? this.firstSeen : this.containersFrom + this.inits.length * this.stepMs;
  }

  private initContainerStatus(c: ContainerInfo, i: number, now: number): ContainerStatus {
    const { startedAt, finishedAt } = this.initTimes(i);
    const base = { name: c.name, image: c.image, restartCount: 0, lastState: {} };
    const id = `sim://${this.uid.slice(0, 8)}-${c.name}-0`;
    if (now >= finishedAt) {
      return { ...base, imageID: imageID(c.image), containerID: id, ready: false, started: false, state: { terminated: this.terminated({ exitCode: 0, startedAt, finishedAt }, id) } };
    }
    if (now >= startedAt) return { ...base, imageID: imageID(c.image), containerID: id, ready: false, started: true, state: { running: { startedAt: rfc3339(startedAt) } } };
    return { ...base, imageID: '', ready: false, started: false, state: { waiting: { reason: 'PodInitializing' } } };
  }

  /** When the pod's readiness last changed, as of `now`. */
  private readinessChangedAt(now: number): number {
    const s = this.stage;
    switch (s.kind) {
      case 'creating':
        return this.firstSeen;
      case 'backoff':
        return this.last?.finishedAt ?? this.firstSeen;
      case 'done':
        return s.exit.finishedAt;
      case 'running': {
        const readyAt = Math.max(s.since, ...(this.plans ?? []).map((p) => p?.readyAt ?? s.since));
        return now >= readyAt ? readyAt : s.since;
      }
    }
  }

  /** A container's status in lifecycle state `state`: waiting (with its reason), running, or terminated. */
  private containerStatus(c: ContainerInfo, now: number, state: string): ContainerStatus {
    const s = this.stage;
    const base = { name: c.name, image: c.image, imageID: imageID(c.image), restartCount: this.restarts };
    const id = `sim://${this.uid.slice(0, 8)}-${c.name}-${this.restarts}`;
    const lastState: Record<string, Record<string, unknown>> =
      this.last && s.kind !== 'done' ? { terminated: this.terminated(this.last, `sim://${this.uid.slice(0, 8)}-${c.name}-${Math.max(0, this.restarts - (s.kind === 'backoff' ? 0 : 1))}`) } : {};
    const group = state.split('.')[0];
    if (group === 'running' && s.kind === 'running') {
      const plan = this.plans?.[this.containers.indexOf(c)];
      const ready = plan ? now >= plan.readyAt : true;
      const started = plan ? now >= plan.startedAt : true;
      return { ...base, containerID: id, ready, started, state: { running: { startedAt: rfc3339(s.since) } }, lastState };
    }
    if (state === 'restarting' && s.kind === 'backoff') {
      const seconds = Math.round((s.until - (this.last?.finishedAt ?? s.until)) / 1000);
      const message = `back-off ${seconds}s restarting failed container=${c.name} pod=${this.pod.metadata.name ?? ''}_${this.pod.metadata.namespace ?? ''}(${this.uid})`;
      return { ...base, ready: false, started: false, state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState };
    }
    if (group === 'terminated' && s.kind === 'done') {
      return { ...base, containerID: id, ready: false, started: false, state: { terminated: this.terminated(s.exit, id) }, lastState: {} };
    }
    // waiting.volumes, waiting.initializing, waiting.creating
    const reason = now >= this.initializedAt() ? 'ContainerCreating' : 'PodInitializing';
    return { ...base, imageID: '', ready: false, started: false, state: { waiting: { reason } }, lastState: {} };
  }

  private terminated(exit: Exit, containerID: string): Record<string, unknown> {
    return {
      exitCode: exit.exitCode,
      reason: exit.exitCode === 0 ? 'Completed' : 'Error',
      startedAt: rfc3339(exit.startedAt),
      finishedAt: rfc3339(exit.finishedAt),
      containerID,
    };
  }
}

/** The phase a lifecycle state shows. */
function phaseOf(state: string): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (state.startsWith('waiting.')) return 'Pending';
  if (state === 'terminated.succeeded') return 'Succeeded';
  if (state === 'terminated.failed') return 'Failed';
  return 'Running';
}

function condition(type: string, status: boolean, at: number, reason?: string): Condition {
  return { type, status: status ? 'True' : 'False', lastTransitionTime: rfc3339(at), ...(reason ? { reason } : {}) } as Condition;
}

/** A stable, image-derived digest-like ID (no registry here to ask). */
function imageID(image: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < image.length; i++) h = Math.imul(h ^ image.charCodeAt(i), 0x01000193) >>> 0;
  return `sim://${image}@sha256:${h.toString(16).padStart(8, '0').repeat(8)}`;
}
