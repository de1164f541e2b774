/** Every wire package's field-number table (the one source of the generated `.proto` files). */
import { APPS_V1_PROTO } from './apps.js';
import { CORE_V1_PROTO } from './core.js';
import {
  AUTHORIZATION_V1_PROTO, AUTOSCALING_V1_PROTO, BATCH_V1_PROTO, BATCH_V1BETA1_PROTO, CERTIFICATES_V1_PROTO, COORDINATION_V1_PROTO, DISCOVERY_V1BETA1_PROTO, POLICY_V1BETA1_PROTO, RBAC_V1_PROTO, SCHEDULING_V1_PROTO,
} from './groups.js';
import { INTSTR_PROTO, META_PROTO, RESOURCE_PROTO, RUNTIME_PROTO } from './meta.js';
import type { ProtoPackageTable } from './table.js';

export type { ProtoMessageTable, ProtoPackageTable } from './table.js';

export const PROTO_PACKAGES: readonly ProtoPackageTable[] = [
  RUNTIME_PROTO,
  INTSTR_PROTO,
  RESOURCE_PROTO,
  META_PROTO,
  CORE_V1_PROTO,
  APPS_V1_PROTO,
  BATCH_V1_PROTO,
  BATCH_V1BETA1_PROTO,
  COORDINATION_V1_PROTO,
  SCHEDULING_V1_PROTO,
  DISCOVERY_V1BETA1_PROTO,
  POLICY_V1BETA1_PROTO,
  AUTOSCALING_V1_PROTO,
  RBAC_V1_PROTO,
  CERTIFICATES_V1_PROTO,
  AUTHORIZATION_V1_PROTO,
];
