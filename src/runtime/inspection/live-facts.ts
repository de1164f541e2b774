/**
 * Live facts: what an actor wants /debug/machines to show about work that does not pass through
 * its state transitions (a controller's queue, the keys its workers hold, its recent reconciles).
 *
 * An object in an actor's context that has a `[LIVE_FACTS]()` method is asked for its facts each
 * time the inspector describes the actor; the answer (plain JSON) is served as `live` beside the
 * context summary and refreshed on the live page about once a second. The method must be cheap
 * and bounded (a few dozen entries), as it runs on every snapshot and refresh.
 *
 * Such an object may also have a `[LIVE_CHART]()` method returning charts of its own (a controller's
 * chart drawn from its definition, its objects' lifecycle); the page draws them beside the
 * machine's, found by the `chart` ids its facts name.
 */
import type { ChartModel } from './chart-model.js';

/** The method name an object implements to report live facts (a registered symbol, one per realm). */
export const LIVE_FACTS: unique symbol = Symbol.for('svc.liveFacts') as typeof LIVE_FACTS;

/** The method name for an object's own chart (see the module comment). */
export const LIVE_CHART: unique symbol = Symbol.for('svc.liveChart') as typeof LIVE_CHART;

/** Plain JSON, as the facts are served. */
export type LiveFactsValue = string | number | boolean | null | LiveFactsValue[] | { [key: string]: LiveFactsValue };

/** An object that reports live facts (see the module comment). */
export interface LiveFactsSource {
  [LIVE_FACTS](): { [key: string]: LiveFactsValue };
  [LIVE_CHART]?(): readonly ChartModel[];
}

function isLiveFactsSource(v: unknown): v is LiveFactsSource {
  return typeof v === 'object' && v !== null && typeof (v as Partial<LiveFactsSource>)[LIVE_FACTS] === 'function';
}

/** The first top-level context value that reports live facts (a controller's ControllerActivity). */
export function liveSourceOf(context: unknown): LiveFactsSource | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  for (const value of Object.values(context as Record<string, unknown>)) if (isLiveFactsSource(value)) return value;
  return undefined;
}

/** The facts of the first top-level context value that reports some; undefined when none does. */
export function liveFactsOf(context: unknown): { [key: string]: LiveFactsValue } | undefined {
  if (typeof context !== 'object' || context === null) return undefined;
  for (const value of Object.values(context as Record<string, unknown>)) {
    if (isLiveFactsSource(value)) return value[LIVE_FACTS]();
  }
  return undefined;
}

/** The charts of the first top-level context value that offers some. */
export function liveChartsOf(context: unknown): readonly ChartModel[] {
  if (typeof context !== 'object' || context === null) return [];
  for (const value of Object.values(context as Record<string, unknown>)) {
    if (isLiveFactsSource(value) && typeof value[LIVE_CHART] === 'function') return value[LIVE_CHART]();
  }
  return [];
}
