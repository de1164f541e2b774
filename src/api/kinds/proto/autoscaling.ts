/**
 * Field numbers of autoscaling/v2 (the established generated.proto); autoscaling/v2beta2 has the
 * same numbers and shares the messages. v1's are in groups.ts.
 */
import type { ProtoPackageTable } from './table.js';

export const AUTOSCALING_V2_PROTO: ProtoPackageTable = {
  package: 'svc.api.autoscaling.v2',
  file: 'api/autoscaling/v2/generated.proto',
  groupVersion: 'autoscaling/v2',
  kinds: { HorizontalPodAutoscaler: 'HorizontalPodAutoscalerV2' },
  messages: {
    // Established names HorizontalPodAutoscaler{,Spec,Status}; suffixed because v1's carry those names here.
    HorizontalPodAutoscalerV2: { fields: { metadata: '1 ObjectMeta', spec: '2 HorizontalPodAutoscalerSpecV2', status: '3 HorizontalPodAutoscalerStatusV2' } },
    HorizontalPodAutoscalerSpecV2: {
      fields: {
        scaleTargetRef: '1 CrossVersionObjectReference',
        minReplicas: '2 optional int32',
        maxReplicas: '3 optional int32',
        metrics: '4 repeated MetricSpec',
        behavior: '5 HorizontalPodAutoscalerBehavior',
      },
    },
    MetricSpec: {
      fields: {
        type: '1 string',
        object: '2 ObjectMetricSource',
        pods: '3 PodsMetricSource',
        resource: '4 ResourceMetricSource',
        external: '5 ExternalMetricSource',
        containerResource: '7 ContainerResourceMetricSource',
      },
    },
    ObjectMetricSource: { fields: { describedObject: '1 CrossVersionObjectReference', target: '2 MetricTarget', metric: '3 MetricIdentifier' } },
    PodsMetricSource: { fields: { metric: '1 MetricIdentifier', target: '2 MetricTarget' } },
    ResourceMetricSource: { fields: { name: '1 string', target: '2 MetricTarget' } },
    ContainerResourceMetricSource: { fields: { name: '1 string', target: '2 MetricTarget', container: '3 string' } },
    ExternalMetricSource: { fields: { metric: '1 MetricIdentifier', target: '2 MetricTarget' } },
    MetricIdentifier: { fields: { name: '1 string', selector: '2 LabelSelector' } },
    MetricTarget: { fields: { type: '1 string', value: '2 Quantity', averageValue: '3 Quantity', averageUtilization: '4 optional int32' } },
    HorizontalPodAutoscalerBehavior: { fields: { scaleUp: '1 HPAScalingRules', scaleDown: '2 HPAScalingRules' } },
    HPAScalingRules: { fields: { selectPolicy: '1 optional string', policies: '2 repeated HPAScalingPolicy', stabilizationWindowSeconds: '3 optional int32' } },
    HPAScalingPolicy: { fields: { type: '1 string', value: '2 optional int32', periodSeconds: '3 optional int32' } },
    HorizontalPodAutoscalerStatusV2: {
      fields: {
        observedGeneration: '1 optional int64',
        lastScaleTime: '2 Time',
        currentReplicas: '3 int32',
        desiredReplicas: '4 optional int32',
        currentMetrics: '5 repeated MetricStatus',
        conditions: '6 repeated HorizontalPodAutoscalerCondition',
      },
    },
    HorizontalPodAutoscalerCondition: {
      fields: { type: '1 string', status: '2 string', lastTransitionTime: '3 Time', reason: '4 string', message: '5 string' },
      notOnWire: ['lastUpdateTime', 'lastProbeTime', 'lastHeartbeatTime', 'observedGeneration'],
    },
    MetricStatus: {
      fields: {
        type: '1 string',
        object: '2 ObjectMetricStatus',
        pods: '3 PodsMetricStatus',
        resource: '4 ResourceMetricStatus',
        external: '5 ExternalMetricStatus',
        containerResource: '7 ContainerResourceMetricStatus',
      },
    },
    ObjectMetricStatus: { fields: { metric: '1 MetricIdentifier', current: '2 MetricValueStatus', describedObject: '3 CrossVersionObjectReference' } },
    PodsMetricStatus: { fields: { metric: '1 MetricIdentifier', current: '2 MetricValueStatus' } },
    ResourceMetricStatus: { fields: { name: '1 string', current: '2 MetricValueStatus' } },
    ContainerResourceMetricStatus: { fields: { name: '1 string', current: '2 MetricValueStatus', container: '3 string' } },
    ExternalMetricStatus: { fields: { metric: '1 MetricIdentifier', current: '2 MetricValueStatus' } },
    MetricValueStatus: { fields: { value: '1 Quantity', averageValue: '2 Quantity', averageUtilization: '3 int32' } },
  },
};

export const AUTOSCALING_V2BETA2_PROTO: ProtoPackageTable = {
  package: 'svc.api.autoscaling.v2beta2',
  file: 'api/autoscaling/v2beta2/generated.proto',
  groupVersion: 'autoscaling/v2beta2',
  kinds: { HorizontalPodAutoscaler: 'HorizontalPodAutoscalerV2' },
  messages: {},
};
