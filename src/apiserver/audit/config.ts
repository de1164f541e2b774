/**
 * The resolved audit settings (src/cli/apiserver-options.ts fills them from the --audit-* flags,
 * the policy file parsed and the webhook's svcconfig file read): the policy, and each backend that
 * is on with its mode, batching and truncation. Absent from ApiServerConfig: audit is off (no
 * policy, or no backend, and no dynamic audit), and the pipeline does no audit work at all.
 */
import type { ClientConfig } from '../../client/svcconfig.js';
import type { AuditMode, BatchOptions, TruncateOptions } from './backend.js';
import type { AuditPolicy } from './policy.js';

export interface AuditSinkSettings {
  mode: AuditMode;
  batch: BatchOptions;
  truncate: TruncateOptions;
  /** The group/version events are serialized with (audit.svc.io/v1 or audit.k8s.io/v1). */
  apiVersion: string;
}

export interface AuditLogSettings extends AuditSinkSettings {
  path: string;
  format: 'json' | 'legacy';
  maxAgeDays: number;
  maxBackups: number;
  maxSizeMB: number;
}

export interface AuditWebhookSettings extends AuditSinkSettings {
  client: ClientConfig;
  initialBackoffMs: number;
}

export interface AuditConfig {
  policy: AuditPolicy;
  /** --audit-dynamic-configuration: AuditSink objects are backends too (../audit/dynamic-backend.ts). */
  dynamic?: boolean;
  log?: AuditLogSettings;
  webhook?: AuditWebhookSettings;
}
