/**
 * The taints the node lifecycle controller owns on a Node, and how it changes them.
 *
 * - NoSchedule taints follow the node's conditions (TaintNodesByCondition): Ready False ->
 *   `node.svc.io/not-ready`, Ready Unknown -> `node.svc.io/unreachable`, MemoryPressure /
 *   DiskPressure / PIDPressure / NetworkUnavailable True -> the matching `node.svc.io/*` key, and
 *   `spec.unschedulable` -> `node.svc.io/unschedulable`. Only taints of these keys with effect
 *   NoSchedule are compared; any other taint is left alone.
 * - NoExecute taints `node.svc.io/not-ready` / `node.svc.io/unreachable` are put on (rate limited,
 *   by zone) and lifted by the monitor pass; the two are mutually exclusive, like Ready's values.
 * - `swapTaints` writes a change: read the node, add (with `timeAdded` now) and remove, update with
 *   its resourceVersion; a conflict re-reads and tries again (the established SwapNodeControllerTaint).
 */
import type { Node } from '../../src/api/generated/kinds.js';
import type { Taint } from '../../src/api/kind-parts.js';
import { rfc3339 } from '../../src/api/time.js';
import {
  TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE,
} from '../../src/api/well-known-labels.js';
import { resources } from '../../src/client/typed.js';
import { ApiError, type ApiClient } from '../../src/client/types.js';

export const NOT_READY_NO_EXECUTE: Readonly<Taint> = Object.freeze({ key: TAINT_NODE_NOT_READY, effect: 'NoExecute' });
export const UNREACHABLE_NO_EXECUTE: Readonly<Taint> = Object.freeze({ key: TAINT_NODE_UNREACHABLE, effect: 'NoExecute' });

/** Condition type -> status -> taint key (NoSchedule). */
const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NODE_NOT_READY, Unknown: TAINT_NODE_UNREACHABLE },
  MemoryPressure: { True: TAINT_NODE_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_NODE_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NODE_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_NODE_PID_PRESSURE },
};
const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

export const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;
export const hasTaint = (node: Node, t: Taint) => (node.spec?.taints ?? []).some((x) => sameTaint(x, t));

/** The NoSchedule taints the node's conditions and spec.unschedulable call for. */
export function conditionTaints(node: Node): Taint[] {
  const out: Taint[] = [];
  for (const c of node.status?.conditions ?? []) {
    const key = CONDITION_TAINTS[c.type ?? '']?.[c.status ?? ''];
    if (key) out.push({ key, effect: 'NoSchedule' });
  }
  if (node.spec?.unschedulable) out.push({ key: TAINT_NODE_UNSCHEDULABLE, effect: 'NoSchedule' });
  return out;
}

/** What the NoSchedule pass must add and remove (empty both: nothing to do). */
export function noScheduleDiff(node: Node): { add: Taint[]; remove: Taint[] } {
  const want = conditionTaints(node);
  const have = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' && (t.key === TAINT_NODE_UNSCHEDULABLE || CONDITION_TAINT_KEYS.has(t.key ?? '')));
  return { add: want.filter((w) => !have.some((h) => sameTaint(h, w))), remove: have.filter((h) => !want.some((w) => sameTaint(h, w))) };
}

/** The node's NoExecute taints. */
export const noExecuteTaints = (node: Node | undefined): Taint[] => (node?.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');

const CONFLICT_RETRIES = 5;

/**
 * Adds `add` and removes `remove` on the stored node (taints already there are not added twice).
 * Resolves false when the node is gone; throws on other failures (the caller retries).
 */
export async function swapTaints(client: ApiClient, name: string, add: readonly Taint[], remove: readonly Taint[], now: number): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    let node: Node;
    try {
      node = await client.get<Node>(resources.nodes, '', name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return false;
      throw e;
    }
    const before = node.spec?.taints ?? [];
    let taints = before.filter((t) => !remove.some((r) => sameTaint(r, t)));
    for (const a of add) if (!taints.some((t) => sameTaint(t, a))) taints = [...taints, { ...a, timeAdded: rfc3339(now) }];
    if (taints.length === before.length && taints.every((t, i) => t === before[i])) return true;
    const spec = { ...(node.spec ?? {}) };
    if (taints.length) spec.taints = taints;
    else delete spec.taints;
    try {
      await client.update<Node>(resources.nodes, '', { ...node, spec });
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return false;
      if (e instanceof ApiError && e.code === 409 && attempt < CONFLICT_RETRIES) continue;
      throw e;
    }
  }
}
