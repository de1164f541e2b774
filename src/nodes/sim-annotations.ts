/**
 * The annotations simulated nodes read: on a Pod, how its containers behave; on a Node, the faults
 * it should show. They are the whole interface between a test (or `svc nodes fault`) and the fleet.
 *
 * Pod (docs/simulated-nodes.md):
 *   sim.svc.io/run-seconds   containers exit after this many seconds of running (absent: they run until deleted)
 *   sim.svc.io/exit-code     their exit code when they exit (default 0)
 *   sim.svc.io/cpu-usage     cpu the running pod uses (a quantity, e.g. 250m), reported as PodMetrics
 *   sim.svc.io/memory-usage  memory the running pod uses (e.g. 300Mi), reported as PodMetrics
 * Node:
 *   sim.svc.io/faults        comma-separated: stop-heartbeats, not-ready, memory-pressure,
 *                            disk-pressure, pid-pressure, network-unavailable, crash
 */
export const ANNOTATION_RUN_SECONDS = 'sim.svc.io/run-seconds';
export const ANNOTATION_EXIT_CODE = 'sim.svc.io/exit-code';
export const ANNOTATION_FAULTS = 'sim.svc.io/faults';
export const ANNOTATION_CPU_USAGE = 'sim.svc.io/cpu-usage';
export const ANNOTATION_MEMORY_USAGE = 'sim.svc.io/memory-usage';

/** Faults a node can be given; each is independent of the others. */
export const NODE_FAULTS = ['stop-heartbeats', 'not-ready', 'memory-pressure', 'disk-pressure', 'pid-pressure', 'network-unavailable', 'crash'] as const;
export type NodeFault = (typeof NODE_FAULTS)[number];

/** How a pod's containers behave, read from its annotations (bad values fall back to the defaults). */
export interface PodBehaviour {
  /** Milliseconds a container runs before it exits; undefined: until the pod is deleted. */
  runMs: number | undefined;
  exitCode: number;
}

export function podBehaviour(annotations: Readonly<Record<string, string>> | undefined): PodBehaviour {
  const run = Number(annotations?.[ANNOTATION_RUN_SECONDS]);
  const code = Number(annotations?.[ANNOTATION_EXIT_CODE]);
  return {
    runMs: annotations?.[ANNOTATION_RUN_SECONDS] !== undefined && Number.isFinite(run) && run >= 0 ? Math.round(run * 1000) : undefined,
    exitCode: Number.isInteger(code) && code >= 0 && code <= 255 ? code : 0,
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
