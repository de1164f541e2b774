/** State charts and live inspection of the runtime's machines (docs/inspection.md). */
export {
  chartModel, chartStates, isStateMachine, stateElementId,
  type ChartActorRef, type ChartModel, type ChartState, type ChartStateKind, type ChartTransition, type ChartTrigger,
} from './chart-model.js';
export { stateDetails, toDot } from './chart-dot.js';
export { CHART_EXTENSIONS, CHART_FORMATS, renderChart, type ChartFormat } from './chart-formats.js';
export { toMermaid } from './chart-mermaid.js';
export { renderDotToSvg, toSvg } from './chart-svg.js';
export { DEFAULT_SUMMARY_LIMITS, summarizeContext, type ContextSummary, type SummaryLimits, type SummaryValue } from './context-summary.js';
export {
  DEBUG_MACHINES_PATH, debugMachinesHandler, type DebugMachinesHandler, type DebugMachinesOptions, type DebugRequest, type DebugResponse,
} from './debug-machines-handler.js';
export type { DetailPanel } from './debug-machines-page.js';
export {
  MachineInspector,
  type ActorStatus, type InspectedActor, type InspectedTransition, type InspectorUpdate, type MachineInspectorOptions, type MachinesSnapshot,
} from './machine-inspector.js';
export { LIVE_FACTS, liveFactsOf, type LiveFactsSource, type LiveFactsValue } from './live-facts.js';
export { machinesOfModule, projectMachines, type NamedMachine } from './project-machines.js';
export { activePaths, describeStateValue, leafPaths, type StateValueLike } from './state-value.js';
export * from './controller-chart.js';
export { lifecycleChartId, lifecycleChartModel, lifecycleChartName } from './lifecycle-chart.js';
export { combineCharts } from './combined-chart.js';
