/**
 * A simulated container's probes over one run: when its startup probe passes, when it becomes
 * ready, which probe results fail (each one an `Unhealthy` Event) and when a failing liveness or
 * startup probe kills it. Pure arithmetic over times (no clock, no timers): the probe "runs" at
 * `start + initialDelaySeconds + k * periodSeconds` as the established node agent runs it, and
 * the pod's `sim.svc.io/*` probe annotations (sim-annotations.ts) say which results fail:
 *
 *   startup    passes at its first run (readiness and liveness wait for it); `startup-fails`: it
 *              fails `failureThreshold` runs in a row and the container is killed at the last
 *   readiness  passes at its first run (no probe: ready when started); `readiness-fails`: never;
 *              `ready-after-seconds: N`: fails every run before N s after the start, passes after
 *   liveness   passes; `liveness-fails-after-seconds: N`: every run from N s after the start
 *              fails, and the container is killed at the `failureThreshold`-th failure
 *
 * A container without probes (or a pod without these annotations) has no failures: its plan is
 * three numbers, so a fleet of 150,000 such pods pays nothing per period.
 */
import type { PodBehaviour } from './sim-annotations.js';

export type ProbeKind = 'Startup' | 'Readiness' | 'Liveness';

export interface ProbeSpec {
  initialDelayMs: number;
  periodMs: number;
  failureThreshold: number;
  /** What a failed run reports (`<Kind> probe failed: <message>`), as the established prober words it. */
  message: string;
}

export interface ContainerProbes {
  startup?: ProbeSpec;
  readiness?: ProbeSpec;
  liveness?: ProbeSpec;
}

interface RawProbe {
  initialDelaySeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
  httpGet?: { port?: number | string; scheme?: string };
  tcpSocket?: { port?: number | string };
  grpc?: { port?: number };
  exec?: { command?: string[] };
}

interface RawContainer {
  startupProbe?: unknown;
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  ports?: { name?: string; containerPort?: number }[];
}

/** The probes of a container spec, with the established defaults (period 10 s, threshold 3). */
export function containerProbes(c: RawContainer, podIP: string): ContainerProbes | undefined {
  const spec = (raw: unknown): ProbeSpec | undefined => {
    if (!raw || typeof raw !== 'object') return undefined;
    const p = raw as RawProbe;
    const num = (v: unknown, dflt: number, min: number) => (typeof v === 'number' && Number.isFinite(v) && v >= min ? v : dflt);
    return {
      initialDelayMs: num(p.initialDelaySeconds, 0, 0) * 1000,
      periodMs: num(p.periodSeconds, 10, 1) * 1000,
      failureThreshold: Math.floor(num(p.failureThreshold, 3, 1)),
      message: failureMessage(p, c, podIP),
    };
  };
  const probes: ContainerProbes = {};
  const startup = spec(c.startupProbe);
  const readiness = spec(c.readinessProbe);
  const liveness = spec(c.livenessProbe);
  if (startup) probes.startup = startup;
  if (readiness) probes.readiness = readiness;
  if (liveness) probes.liveness = liveness;
  return startup || readiness || liveness ? probes : undefined;
}

/** The established prober's output for a failed run of each handler. */
function failureMessage(p: RawProbe, c: RawContainer, podIP: string): string {
  const port = (v: number | string | undefined) => (typeof v === 'string' ? (c.ports?.find((x) => x.name === v)?.containerPort ?? v) : (v ?? 0));
  if (p.httpGet) return 'HTTP probe failed with statuscode: 503';
  if (p.tcpSocket) return `dial tcp ${podIP}:${port(p.tcpSocket.port)}: connect: connection refused`;
  if (p.grpc) return 'service unhealthy (responded with "NOT_SERVING")';
  // An exec probe reports its command's output; the simulated command prints nothing.
  return '';
}

/** A failing probe run. */
export interface ProbeFailure {
  at: number;
  probe: ProbeKind;
  message: string;
}

/** One series of probe runs `base + k * period`, failing for k in [from, to]. */
interface Series {
  probe: ProbeKind;
  spec: ProbeSpec;
  base: number;
  from: number;
  to: number;
  /** Failures up to this time were reported. */
  cursor: number;
}

/** One container's probes over one run that started at `since`. */
export class ProbePlan {
  /** When the container counts as started (its startup probe passed); Infinity: never. */
  readonly startedAt: number;
  /** When it becomes ready; Infinity: never in this run. */
  readonly readyAt: number;
  /** When a failing probe kills it, and which. */
  readonly kill: { at: number; probe: ProbeKind } | undefined;
  private readonly series: Series[] = [];

  constructor(probes: ContainerProbes, behaviour: PodBehaviour, since: number) {
    const { startup, readiness, liveness } = probes;
    const add = (probe: ProbeKind, spec: ProbeSpec, base: number, from: number, to: number) => {
      if (from <= to) this.series.push({ probe, spec, base, from, to, cursor: since - 1 });
    };
    let kill: { at: number; probe: ProbeKind } | undefined;
    if (startup && behaviour.startupFails) {
      const base = since + startup.initialDelayMs;
      add('Startup', startup, base, 0, startup.failureThreshold - 1);
      kill = { at: base + (startup.failureThreshold - 1) * startup.periodMs, probe: 'Startup' };
      this.startedAt = Infinity;
    } else {
      this.startedAt = startup ? since + startup.initialDelayMs : since;
    }
    const started = this.startedAt;
    /** The first run index whose time is at or after `t`. */
    const firstAt = (base: number, period: number, t: number) => Math.max(0, Math.ceil((t - base) / period));
    if (!readiness) {
      this.readyAt = started;
    } else if (started === Infinity) {
      this.readyAt = Infinity;
    } else {
      const base = started + readiness.initialDelayMs;
      if (behaviour.readinessFails) {
        add('Readiness', readiness, base, 0, Infinity);
        this.readyAt = Infinity;
      } else if (behaviour.readyAfterMs !== undefined) {
        const passing = firstAt(base, readiness.periodMs, since + behaviour.readyAfterMs);
        add('Readiness', readiness, base, 0, passing - 1);
        this.readyAt = base + passing * readiness.periodMs;
      } else {
        this.readyAt = base;
      }
    }
    if (liveness && behaviour.livenessFailsAfterMs !== undefined && started !== Infinity) {
      const base = started + liveness.initialDelayMs;
      const first = firstAt(base, liveness.periodMs, since + behaviour.livenessFailsAfterMs);
      const last = first + liveness.failureThreshold - 1;
      add('Liveness', liveness, base, first, last);
      kill = { at: base + last * liveness.periodMs, probe: 'Liveness' };
    }
    this.kill = kill;
    // Nothing is probed once the container is killed.
    if (kill) for (const s of this.series) s.to = Math.min(s.to, Math.floor((kill.at - s.base) / s.spec.periodMs));
  }

  /** True when some probe run of this plan fails (the pod then needs a timer per failure). */
  get failing(): boolean {
    return this.series.length > 0;
  }

  /** The earliest failure not yet reported, if any. */
  nextFailure(): ProbeFailure | undefined {
    let best: Series | undefined;
    let bestAt = Infinity;
    for (const s of this.series) {
      const k = Math.max(s.from, Math.floor((s.cursor - s.base) / s.spec.periodMs) + 1);
      if (k > s.to) continue;
      const at = s.base + k * s.spec.periodMs;
      if (at < bestAt) {
        bestAt = at;
        best = s;
      }
    }
    return best ? { at: bestAt, probe: best.probe, message: best.spec.message } : undefined;
  }

  /** Marks the failures of `probe` up to `at` reported. */
  reported(probe: ProbeKind, at: number): void {
    for (const s of this.series) if (s.probe === probe) s.cursor = at;
  }
}
