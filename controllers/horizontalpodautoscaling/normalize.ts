/**
 * From the replicas the metrics ask for to the replicas the HPA sets (the established rules):
 * stabilization over recent recommendations, min/max, and the scale rate (behavior policies, or
 * without a behavior the fixed rule: up to max(2 x current, 4)). Each HPA's history (its
 * recommendations and its scale events) is kept in a `ScalingHistory`, in memory, as established.
 *
 * Conditions carried over as established: AbleToScale (ReadyForNewScale, ScaleUpStabilized,
 * ScaleDownStabilized) and ScalingLimited (DesiredWithinRange False; TooFewReplicas,
 * TooManyReplicas, ScaleUpLimit, ScaleDownLimit True).
 */

export interface ScalingPolicy {
  type: 'Pods' | 'Percent';
  value: number;
  periodSeconds: number;
}

export interface ScalingRules {
  stabilizationWindowSeconds?: number;
  selectPolicy?: 'Max' | 'Min' | 'Disabled';
  policies?: ScalingPolicy[];
}

export interface Behavior {
  scaleUp?: ScalingRules;
  scaleDown?: ScalingRules;
}

export interface ConditionNote {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface Normalized {
  replicas: number;
  ableToScale: ConditionNote;
  scalingLimited: ConditionNote;
}

interface Recommendation {
  replicas: number;
  at: number;
}

interface ScaleEvent {
  change: number;
  at: number;
  outdated: boolean;
}

const READY: ConditionNote = { status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const WITHIN: ConditionNote = { status: 'False', reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };

/** The established defaults of a behavior's missing parts (scale-down window: the flag's). */
export function withDefaults(b: Behavior, downscaleStabilizationMs: number): Required<Behavior> {
  return {
    scaleUp: {
      stabilizationWindowSeconds: b.scaleUp?.stabilizationWindowSeconds ?? 0,
      selectPolicy: b.scaleUp?.selectPolicy ?? 'Max',
      policies: b.scaleUp?.policies ?? [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
    },
    scaleDown: {
      stabilizationWindowSeconds: b.scaleDown?.stabilizationWindowSeconds ?? Math.round(downscaleStabilizationMs / 1000),
      selectPolicy: b.scaleDown?.selectPolicy ?? 'Max',
      policies: b.scaleDown?.policies ?? [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    },
  };
}

export class ScalingHistory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly upEvents = new Map<string, ScaleEvent[]>();
  private readonly downEvents = new Map<string, ScaleEvent[]>();

  forget(key: string): void {
    this.recommendations.delete(key);
    this.upEvents.delete(key);
    this.downEvents.delete(key);
  }

  /** Without a behavior: the highest recommendation within the downscale window, then min/max and max(2x, 4). */
  normalize(key: string, current: number, desired: number, min: number, max: number, downscaleWindowMs: number, now: number): Normalized {
    const recs = this.recommendations.get(key) ?? [];
    let stabilized = desired;
    const cutoff = now - downscaleWindowMs;
    let old = -1;
    recs.forEach((r, i) => {
      if (r.at < cutoff) old = i;
      else if (r.replicas > stabilized) stabilized = r.replicas;
    });
    if (old >= 0) recs[old] = { replicas: desired, at: now };
    else recs.push({ replicas: desired, at: now });
    this.recommendations.set(key, recs);
    const ableToScale = stabilized !== desired
      ? { status: 'True' as const, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' }
      : READY;
    const upLimit = Math.max(2 * current, 4);
    let maxAllowed: number;
    let limit: ConditionNote;
    if (max > upLimit) {
      maxAllowed = upLimit;
      limit = { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
    } else {
      maxAllowed = max;
      limit = { status: 'True', reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
    }
    if (stabilized < min) return { replicas: min, ableToScale, scalingLimited: { status: 'True', reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' } };
    if (stabilized > maxAllowed) return { replicas: maxAllowed, ableToScale, scalingLimited: limit };
    return { replicas: stabilized, ableToScale, scalingLimited: WITHIN };
  }

  /** With a behavior: both stabilization windows, then the policies' rate limits and min/max. */
  normalizeWithBehavior(key: string, current: number, desired: number, min: number, max: number, b: Required<Behavior>, now: number): Normalized {
    const up = b.scaleUp;
    const down = b.scaleDown;
    const upCutoff = now - (up.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = now - (down.stabilizationWindowSeconds ?? 0) * 1000;
    let upRec = desired;
    let downRec = desired;
    let old = -1;
    const recs = this.recommendations.get(key) ?? [];
    recs.forEach((r, i) => {
      if (r.at > upCutoff) upRec = Math.min(r.replicas, upRec);
      if (r.at > downCutoff) downRec = Math.max(r.replicas, downRec);
      if (r.at < upCutoff && r.at < downCutoff) old = i;
    });
    let stabilized = current;
    if (stabilized < upRec) stabilized = upRec;
    if (stabilized > downRec) stabilized = downRec;
    if (old >= 0) recs[old] = { replicas: desired, at: now };
    else recs.push({ replicas: desired, at: now });
    this.recommendations.set(key, recs);
    const ableToScale: ConditionNote = stabilized === desired
      ? READY
      : desired >= current
        ? { status: 'True', reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' }
        : { status: 'True', reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
    if (stabilized > current) {
      const rate = Math.max(this.scaleUpLimit(key, current, up, now), current);
      let maxAllowed = max;
      let limit: ConditionNote = { status: 'True', reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' };
      if (max > rate) {
        maxAllowed = rate;
        limit = { status: 'True', reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' };
      }
      if (stabilized > maxAllowed) return { replicas: maxAllowed, ableToScale, scalingLimited: limit };
    } else if (stabilized < current) {
      const rate = Math.min(this.scaleDownLimit(key, current, down, now), current);
      let minAllowed = min;
      let limit: ConditionNote = { status: 'True', reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
      if (min < rate) {
        minAllowed = rate;
        limit = { status: 'True', reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' };
      }
      if (stabilized < minAllowed) return { replicas: minAllowed, ableToScale, scalingLimited: limit };
    }
    return { replicas: stabilized, ableToScale, scalingLimited: WITHIN };
  }

  /** Records a rescale, for the policies' periods (only with a behavior, as established). */
  recordScale(key: string, from: number, to: number, b: Required<Behavior>, now: number): void {
    if (to === from) return;
    const longest = Math.max(0, ...[...(b.scaleUp.policies ?? []), ...(b.scaleDown.policies ?? [])].map((p) => p.periodSeconds)) * 1000;
    const [mine, other] = to > from ? [this.upEvents, this.downEvents] : [this.downEvents, this.upEvents];
    // A scale the other way makes the other direction's events stale (they no longer limit).
    for (const e of other.get(key) ?? []) e.outdated = true;
    const events = (mine.get(key) ?? []).filter((e) => e.at >= now - longest);
    events.push({ change: Math.abs(to - from), at: now, outdated: false });
    mine.set(key, events);
  }

  private changeInPeriod(events: readonly ScaleEvent[] | undefined, periodSeconds: number, now: number): number {
    const cutoff = now - periodSeconds * 1000;
    return (events ?? []).filter((e) => e.at > cutoff && !e.outdated).reduce((a, e) => a + e.change, 0);
  }

  private scaleUpLimit(key: string, current: number, rules: ScalingRules, now: number): number {
    if (rules.selectPolicy === 'Disabled') return current;
    const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
    let result = rules.selectPolicy === 'Min' ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
    for (const p of rules.policies ?? []) {
      const start = current - this.changeInPeriod(this.upEvents.get(key), p.periodSeconds, now);
      const proposed = p.type === 'Pods' ? start + p.value : Math.ceil(start * (1 + p.value / 100));
      result = pick(result, proposed);
    }
    return result;
  }

  private scaleDownLimit(key: string, current: number, rules: ScalingRules, now: number): number {
    if (rules.selectPolicy === 'Disabled') return current;
    // Min picks the policy allowing the smaller change: the larger floor.
    const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
    let result = rules.selectPolicy === 'Min' ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
    for (const p of rules.policies ?? []) {
      const start = current + this.changeInPeriod(this.downEvents.get(key), p.periodSeconds, now);
      const proposed = p.type === 'Pods' ? start - p.value : Math.trunc(start * (1 - p.value / 100));
      result = pick(result, proposed);
    }
    return result;
  }
}
