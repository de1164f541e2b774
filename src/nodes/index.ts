/** Public API of src/nodes: simulated node agents (a fleet in one process), their shapes and annotations. */
export { DEFAULT_FLEET_TIMINGS, NodeFleet, type FleetTimings, type NodeFleetOptions } from './fleet.js';
export { DEFAULT_NODE_GROUP, groupFromFlags, NodeProfileError, nodeShapes, parseNodeProfile, type NodeGroup, type NodeShape, type NodeTaint } from './node-shape.js';
export {
  ANNOTATION_CPU_USAGE, ANNOTATION_EXIT_CODE, ANNOTATION_FAULTS, ANNOTATION_MEMORY_USAGE, ANNOTATION_RUN_SECONDS, checkFaultNames, NODE_FAULTS, nodeFaults, podBehaviour, type NodeFault, type PodBehaviour,
} from './sim-annotations.js';
export { NODE_LEASE_NAMESPACE, SimNode } from './sim-node.js';
export { DEFAULT_SIM_TIMINGS, SimPod, type ContainerStatus, type SimTimings } from './sim-pod.js';
export { StatusWriter, type StatusWriterOptions, type Write } from './status-writer.js';
export { formatCpu, formatMemory, nodeMetricsObject, podMetricsObject, podUsage, USAGE_WINDOW, type ContainerUsage } from './sim-usage.js';
