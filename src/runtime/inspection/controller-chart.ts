/**
 * The chart of one `defineController` controller, drawn from its definition rather than from the
 * machine every controller shares: what it watches (kind and selector), what it owns and what else
 * triggers it, feeding its queue; its workers; and the outcomes of a reconcile as transitions
 * (done, requeueAfter's planned wait, an error's back-off, a terminal error dropping the key). A planned
 * requeue is its own state (`scheduled`), never `backoff`: the live page lights each from the queue's
 * own counts (ControllerActivityFacts.queue.scheduled / backingOff). The shared
 * machine's chart stays available as `svc charts --machine controller`.
 *
 * Contract: pure; the model has the shape chart-model.ts gives machines, so every format draws it.
 */
import type { ChartModel, ChartState, ChartTransition, ChartTrigger } from './chart-model.js';

/** What of a definition the chart reads (ControllerSpec, without importing the runtime into inspection). */
export interface ControllerChartSpec {
  name: string;
  watches: { resource: string; kind: string; group: string };
  selector?: { namespace?: string; labelSelector?: string; fieldSelector?: string };
  owns?: readonly { resource: string; kind: string }[];
  triggers?: readonly { resource: { resource: string; kind: string } }[];
  concurrency?: number;
}

function state(path: string, description?: string, kind: ChartState['kind'] = 'atomic'): ChartState {
  return { path, key: path, kind, entry: [], exit: [], invokes: [], spawns: [], tags: [], children: [], ...(description ? { description } : {}) };
}

function transition(source: string, target: string, trigger: ChartTrigger, label: string): ChartTransition {
  return { source, targets: [target], trigger, actions: [], reenter: false, label };
}

const selectorText = (s: ControllerChartSpec['selector']) =>
  [s?.namespace ? `namespace ${s.namespace}` : '', s?.labelSelector ? `labels ${s.labelSelector}` : '', s?.fieldSelector ? `fields ${s.fieldSelector}` : ''].filter(Boolean).join(', ');

/** The controller's own chart (named after it). */
export function controllerChartModel(spec: ControllerChartSpec): ChartModel {
  const workers = spec.concurrency ?? 1;
  const watchPath = `watch_${spec.watches.resource}`;
  const sel = selectorText(spec.selector);
  const sources: ChartState[] = [state(watchPath, `watches ${spec.watches.kind}${sel ? ` (${sel})` : ''}`)];
  const transitions: ChartTransition[] = [transition(watchPath, 'queue', { kind: 'event', event: `${spec.watches.kind} changed` }, `${spec.watches.kind} added, changed or deleted / its key`)];
  for (const owned of spec.owns ?? []) {
    const p = `owns_${owned.resource}`;
    sources.push(state(p, `owns ${owned.kind}`));
    transitions.push(transition(p, 'queue', { kind: 'event', event: `${owned.kind} changed` }, `owned ${owned.kind} changed / its controller's key`));
  }
  (spec.triggers ?? []).forEach((t, i) => {
    const p = `trigger_${i}_${t.resource.resource}`;
    sources.push(state(p, `triggered by ${t.resource.kind}`));
    transitions.push(transition(p, 'queue', { kind: 'event', event: `${t.resource.kind} changed` }, `${t.resource.kind} changed / keysFor`));
  });
  const states: ChartState[] = [
    ...sources,
    state('queue', 'work queue: one entry per key, rate-limited'),
    state('reconcile', `${workers} worker${workers === 1 ? '' : 's'}: reconcile(key)`),
    state('backoff', 'exponential back-off per key'),
    state('scheduled', 'waiting (requeueAfter): planned, not a failure'),
    state('dropped', 'key forgotten until its next change', 'final'),
  ];
  transitions.push(
    transition('queue', 'reconcile', { kind: 'event', event: 'worker free' }, `a worker is free (${workers} at once) / take a key`),
    transition('reconcile', 'queue', { kind: 'event', event: 'done' }, 'done() / forget the key'),
    transition('reconcile', 'scheduled', { kind: 'event', event: 'requeueAfter' }, 'requeueAfter(ms) / forget its back-off'),
    transition('reconcile', 'backoff', { kind: 'error', actor: 'reconcile' }, 'error / back off'),
    transition('backoff', 'queue', { kind: 'after', delay: 'backoff' }, 'after the back-off / add the key again'),
    transition('scheduled', 'queue', { kind: 'after', delay: 'requeueAfter' }, 'after ms / add the key again'),
    transition('reconcile', 'dropped', { kind: 'error', actor: 'reconcile' }, 'TerminalError / forget the key'),
  );
  const root: ChartState = { ...state('', undefined, 'compound'), key: spec.name, initial: watchPath, children: states };
  return { name: spec.name, machineId: spec.name, root, transitions, actors: ['reconcile'] };
}
