/** Public API of src/nodes: simulated node agents (a fleet in one process), their shapes and annotations. */
export { DEFAULT_EVENT_BURST, DEFAULT_EVENT_QPS, DEFAULT_FLEET_TIMINGS, NodeFleet, type FleetTimings, type NodeFleetOptions } from './fleet.js';
export { DEFAULT_NODE_GROUP, groupFromFlags, NodeProfileError, nodeShapes, parseNodeProfile, type NodeGroup, type NodeShape, type NodeTaint } from './node-shape.js';
export {
  ANNOTATION_CPU_USAGE, ANNOTATION_EXIT_CODE, ANNOTATION_FAULTS, ANNOTATION_IGNORE_SIGTERM, ANNOTATION_LOG, ANNOTATION_LOG_EVERY_SECONDS, ANNOTATION_LOG_LINE, ANNOTATION_LIVENESS_FAILS_AFTER_SECONDS, ANNOTATION_MEMORY_USAGE, ANNOTATION_READINESS_FAILS, ANNOTATION_READY_AFTER_SECONDS, ANNOTATION_RUN_SECONDS, ANNOTATION_STARTUP_FAILS, ANNOTATION_STOP_SECONDS, checkFaultNames, NODE_FAULTS, nodeFaults, podBehaviour, type NodeFault, type PodBehaviour,
} from './sim-annotations.js';
export { NODE_AGENT_COMPONENT, NODE_LEASE_NAMESPACE, SimNode } from './sim-node.js';
export { DEFAULT_SIM_TIMINGS, SimPod, type ContainerStatus, type SimTimings, type SimTransition } from './sim-pod.js';
export { containerProbes, ProbePlan, type ContainerProbes, type ProbeFailure, type ProbeKind, type ProbeSpec } from './sim-probes.js';
export { defaultStartLine, lineAt, lineCount, logTimestamp, parseLogQuery, renderLog, selectLines, type ContainerRun, type LogCuts } from './sim-logs.js';
export { startSvcletServer, type SvcletServer, type SvcletServerOptions } from './svclet-server.js';
export { StatusWriter, type StatusWriterOptions, type Write } from './status-writer.js';
export { formatCpu, formatMemory, nodeMetricsObject, podMetricsObject, podUsage, USAGE_WINDOW, type ContainerUsage } from './sim-usage.js';
export { reviewingAuthorizer, type VolumeReadAuthorizer } from './svclet-auth.js';
