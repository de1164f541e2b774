/**
 * AuditSink (auditregistration.svc.io/v1alpha1, alias auditregistration.k8s.io; cluster-scoped):
 * a dynamic audit backend, the DynamicAuditing gate's kind. An alpha group/version, so served only
 * with `--runtime-config=auditregistration.k8s.io/v1alpha1=true`; the API server sends events to the
 * sinks only with `--audit-dynamic-configuration` (src/apiserver/audit/dynamic-backend.ts).
 *
 *     spec:
 *       policy: {level: Metadata, stages: [ResponseComplete]}   # what this sink receives
 *       webhook:
 *         throttle: {qps: 10, burst: 15}                         # batches per second (defaults)
 *         clientConfig: {url: https://..., caBundle: ...}        # or service: {namespace, name, path, port: 443}
 *
 * Defaults and validation are the established v1alpha1 ones: a level other than None needs stages;
 * qps and burst must be positive; exactly one of url and service (a URL may be http or https).
 */
import type { FieldError } from '../../status.js';
import type { SvcObject } from '../../types.js';
import { invalidValue, notSupported, required } from '../../validation/field-errors.js';
import { validateClientConfig } from '../admissionregistration/webhook-configurations.js';
import { asRecord, defineKind, section } from '../define.js';
import { atomicList, bytes, int32, int64, obj, objectSchema, str } from '../schema-dsl.js';

export const AUDITREGISTRATION_GROUP = 'auditregistration.svc.io';
export const AUDITREGISTRATION_VERSION = 'v1alpha1';

const LEVELS = ['Metadata', 'None', 'Request', 'RequestResponse'] as const;
const STAGES = ['Panic', 'RequestReceived', 'ResponseComplete', 'ResponseStarted'] as const;

export const auditSinkDefinition = defineKind({
  group: AUDITREGISTRATION_GROUP,
  version: AUDITREGISTRATION_VERSION,
  kind: 'AuditSink',
  plural: 'auditsinks',
  namespaced: false,
  schema: objectSchema({
    spec: obj({
      policy: obj({ level: str(), stages: atomicList(str()) }),
      webhook: obj({
        throttle: obj({ qps: int64(), burst: int64() }),
        clientConfig: obj({ url: str(), service: obj({ namespace: str(), name: str(), path: str(), port: int32() }), caBundle: bytes() }),
      }),
    }),
  }),
  defaults(o: SvcObject): void {
    const spec = section(o);
    const webhook = asRecord(spec['webhook']);
    if (spec['webhook'] === undefined) spec['webhook'] = webhook;
    const throttle = asRecord(webhook['throttle']);
    if (webhook['throttle'] === undefined || webhook['throttle'] === null) webhook['throttle'] = throttle;
    if (throttle['qps'] === undefined || throttle['qps'] === null) throttle['qps'] = 10;
    if (throttle['burst'] === undefined || throttle['burst'] === null) throttle['burst'] = 15;
    const service = asRecord(webhook['clientConfig'])['service'];
    if (service && typeof service === 'object' && (service as Record<string, unknown>)['port'] === undefined) (service as Record<string, unknown>)['port'] = 443;
  },
  validate: validateAuditSink,
});

function validateAuditSink(o: SvcObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = asRecord(o.spec);
  const policy = asRecord(spec['policy']);
  const stages = Array.isArray(policy['stages']) ? (policy['stages'] as unknown[]) : [];
  stages.forEach((s, i) => {
    if (!(STAGES as readonly unknown[]).includes(s)) errs.push(invalidValue(`spec.policy.stages[${i}]`, s, `allowed stages are ${STAGES.join(',')}`));
  });
  const level = policy['level'];
  if (level === undefined || level === null || level === '') errs.push(required('spec.policy.level'));
  else if (!(LEVELS as readonly unknown[]).includes(level)) errs.push(notSupported('spec.policy.level', level, LEVELS));
  // Established: a level that records something with no stage to record it at is the one error shown.
  if (level !== 'None' && stages.length === 0) return [required('spec.policy.stages')];
  const webhook = asRecord(spec['webhook']);
  const throttle = asRecord(webhook['throttle']);
  for (const k of ['qps', 'burst'] as const) {
    const v = throttle[k];
    if (v !== undefined && v !== null && (typeof v !== 'number' || v <= 0)) errs.push(invalidValue(`spec.webhook.throttle.${k}`, v, `${k} must be a positive number`));
  }
  validateClientConfig(asRecord(webhook['clientConfig']), 'spec.webhook.clientConfig', errs, false);
  return errs;
}
