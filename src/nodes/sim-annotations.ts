/**
 * The annotations simulated nodes read: on a Pod, how its containers behave; on a Node, the faults
 * it should show. They are the whole interface between a test (or `svc nodes fault`) and the fleet.
 *
 * Pod (docs/simulated-nodes.md):
 *   sim.svc.io/run-seconds   containers exit after this many seconds of running (absent: they run until deleted)
 *   sim.svc.io/exit-code     their exit code when they exit (default 0)
 *   sim.svc.io/cpu-usage     cpu the running pod uses (a quantity, e.g. 250m), reported as PodMetrics
 *   sim.svc.io/memory-usage  memory the running pod uses (e.g. 300Mi), reported as PodMetrics
 *   sim.svc.io/stop-seconds  how long its containers take to stop on SIGTERM (default: the node's
 *                            --container-stop-delay, 1 s); never longer than the grace period
 *   sim.svc.io/ignore-sigterm "true": containers ignore SIGTERM, so they are killed at the end of
 *                            the whole termination grace period (exit code 137)
 *   sim.svc.io/log           the text each container prints at every start (lines split on \n);
 *                            absent: one default line per start (sim-logs.ts)
 *   sim.svc.io/log-every-seconds  while running, one more line every N seconds (logs -f shows growth)
 *   sim.svc.io/log-line      that periodic line; `{n}` is replaced by its count (default `tick {n}`)
 *   Probes (only containers that have the probe are affected; sim-probes.ts):
 *   sim.svc.io/readiness-fails "true": the readiness probe always fails (Running, never Ready)
 *   sim.svc.io/ready-after-seconds  the readiness probe fails until N s after each start, then passes
 *   sim.svc.io/liveness-fails-after-seconds  from N s after each start the liveness probe fails; at
 *                            failureThreshold failures the container is killed and restarted
 *   sim.svc.io/startup-fails "true": the startup probe always fails: the container is killed after
 *                            failureThreshold runs (liveness and readiness never start)
 * Node:
 *   sim.svc.io/faults        comma-separated: stop-heartbeats, not-ready, memory-pressure,
 *                            disk-pressure, pid-pressure, network-unavailable, crash
 */
export const ANNOTATION_RUN_SECONDS = 'sim.svc.io/run-seconds';
export const ANNOTATION_EXIT_CODE = 'sim.svc.io/exit-code';
export const ANNOTATION_FAULTS = 'sim.svc.io/faults';
export const ANNOTATION_CPU_USAGE = 'sim.svc.io/cpu-usage';
export const ANNOTATION_MEMORY_USAGE = 'sim.svc.io/memory-usage';
export const ANNOTATION_STOP_SECONDS = 'sim.svc.io/stop-seconds';
export const ANNOTATION_IGNORE_SIGTERM = 'sim.svc.io/ignore-sigterm';
export const ANNOTATION_LOG = 'sim.svc.io/log';
export const ANNOTATION_LOG_EVERY_SECONDS = 'sim.svc.io/log-every-seconds';
export const ANNOTATION_LOG_LINE = 'sim.svc.io/log-line';
export const ANNOTATION_READINESS_FAILS = 'sim.svc.io/readiness-fails';
export const ANNOTATION_READY_AFTER_SECONDS = 'sim.svc.io/ready-after-seconds';
export const ANNOTATION_LIVENESS_FAILS_AFTER_SECONDS = 'sim.svc.io/liveness-fails-after-seconds';
export const ANNOTATION_STARTUP_FAILS = 'sim.svc.io/startup-fails';

/** The periodic log line when `sim.svc.io/log-line` is absent. */
export const DEFAULT_LOG_LINE = 'tick {n}';

/** Faults a node can be given; each is independent of the others. */
export const NODE_FAULTS = ['stop-heartbeats', 'not-ready', 'memory-pressure', 'disk-pressure', 'pid-pressure', 'network-unavailable', 'crash'] as const;
export type NodeFault = (typeof NODE_FAULTS)[number];

/** How a pod's containers behave, read from its annotations (bad values fall back to the defaults). */
export interface PodBehaviour {
  /** Milliseconds a container runs before it exits; undefined: until the pod is deleted. */
  runMs: number | undefined;
  exitCode: number;
  /** Milliseconds a container takes to stop on SIGTERM; undefined: the node's default. */
  stopMs: number | undefined;
  /** Containers ignore SIGTERM: they are killed when the grace period ends. */
  ignoreSigterm: boolean;
  /** Lines printed at each start; undefined: the default line. */
  logLines: string[] | undefined;
  /** One periodic line every this many milliseconds while running; undefined: none. */
  logEveryMs: number | undefined;
  /** The periodic line (`{n}`: its count from 1). */
  logLine: string;
  /** Readiness probes always fail. */
  readinessFails: boolean;
  /** Readiness probes fail until this long after each start; undefined: they pass. */
  readyAfterMs: number | undefined;
  /** Liveness probes fail from this long after each start; undefined: they pass. */
  livenessFailsAfterMs: number | undefined;
  /** Startup probes always fail. */
  startupFails: boolean;
  /** True when any of the four above is set (else no probe run can fail: no timers for probes). */
  probesFail: boolean;
}

function seconds(annotations: Readonly<Record<string, string>> | undefined, key: string, min: number): number | undefined {
  const raw = annotations?.[key];
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = Number(raw);
  return Number.isFinite(v) && v >= min ? Math.round(v * 1000) : undefined;
}

export function podBehaviour(annotations: Readonly<Record<string, string>> | undefined): PodBehaviour {
  const run = Number(annotations?.[ANNOTATION_RUN_SECONDS]);
  const code = Number(annotations?.[ANNOTATION_EXIT_CODE]);
  const log = annotations?.[ANNOTATION_LOG];
  const every = seconds(annotations, ANNOTATION_LOG_EVERY_SECONDS, 0.001);
  const flag = (key: string) => annotations?.[key]?.trim().toLowerCase() === 'true';
  const readinessFails = flag(ANNOTATION_READINESS_FAILS);
  const readyAfterMs = seconds(annotations, ANNOTATION_READY_AFTER_SECONDS, 0);
  const livenessFailsAfterMs = seconds(annotations, ANNOTATION_LIVENESS_FAILS_AFTER_SECONDS, 0);
  const startupFails = flag(ANNOTATION_STARTUP_FAILS);
  return {
    runMs: annotations?.[ANNOTATION_RUN_SECONDS] !== undefined && Number.isFinite(run) && run >= 0 ? Math.round(run * 1000) : undefined,
    exitCode: Number.isInteger(code) && code >= 0 && code <= 255 ? code : 0,
    stopMs: seconds(annotations, ANNOTATION_STOP_SECONDS, 0),
    ignoreSigterm: annotations?.[ANNOTATION_IGNORE_SIGTERM]?.trim().toLowerCase() === 'true',
    logLines: log === undefined ? undefined : log.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n'),
    // At least 100 ms apart, so a typo cannot flood a follower.
    logEveryMs: every === undefined ? undefined : Math.max(100, every),
    logLine: annotations?.[ANNOTATION_LOG_LINE] ?? DEFAULT_LOG_LINE,
    readinessFails,
    readyAfterMs,
    livenessFailsAfterMs,
    startupFails,
    probesFail: readinessFails || readyAfterMs !== undefined || livenessFailsAfterMs !== undefined || startupFails,
  };
}

/** The faults a node's annotation names; unknown names are ignored (and listed in `unknown`). */
export function nodeFaults(annotations: Readonly<Record<string, string>> | undefined): { faults: Set<NodeFault>; unknown: string[] } {
  const faults = new Set<NodeFault>();
  const unknown: string[] = [];
  for (const raw of (annotations?.[ANNOTATION_FAULTS] ?? '').split(',')) {
    const f = raw.trim();
    if (!f) continue;
    if ((NODE_FAULTS as readonly string[]).includes(f)) faults.add(f as NodeFault);
    else unknown.push(f);
  }
  return { faults, unknown };
}

/** Checks fault names given on a command line; throws naming the bad one. */
export function checkFaultNames(names: readonly string[]): NodeFault[] {
  for (const n of names) {
    if (!(NODE_FAULTS as readonly string[]).includes(n)) throw new Error(`unknown fault ${JSON.stringify(n)}; the faults are ${NODE_FAULTS.join(', ')}`);
  }
  return names as NodeFault[];
}
