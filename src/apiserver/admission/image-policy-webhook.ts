/**
 * ImagePolicyWebhook (off by default; validating, pod CREATE and UPDATE): a remote service decides
 * which images pods may run. Established behaviour, kept:
 *
 * - configuration (required: without it the server does not start), in
 *   --admission-control-config-file or the legacy unversioned file:
 *
 *       imagePolicy:
 *         kubeConfigFile: /etc/svc/image-policy.svcconfig   # the webhook: server, CA, client certificate
 *         allowTTL: 50        # seconds an allow is cached (0: 300; -1: not cached; else 1..1800)
 *         denyTTL: 50         # seconds a denial is cached (0: 30; -1: not cached; else 1..1800)
 *         retryBackoff: 500   # ms before the first retry (0: 500; -1: none; else up to 300000)
 *         defaultAllow: true  # what a failed call means
 *
 * - the request: POST of an `ImageReview` (`imagepolicy.svc.io/v1alpha1`) whose spec lists every
 *   container's and init container's image, the pod's annotations whose key contains
 *   `.image-policy.svc.io/` (or the established `.image-policy.k8s.io/`), and the namespace;
 * - the answer's `status.allowed` decides; a denial is 403 `pods "<name>" is forbidden: image policy
 *   webhook backend denied one or more images: <reason>` (`one or more images rejected by webhook
 *   backend` without a reason); `status.auditAnnotations` become audit annotations
 *   `imagepolicywebhook.image-policy.svc.io/<key>`;
 * - answers are cached per review spec (1024 reviews) for allowTTL / denyTTL;
 * - a failed call (unreachable, non-2xx, not JSON, after the retries the webhook client makes for
 *   retryable failures): with `defaultAllow` the pod is admitted and marked
 *   `alpha.image-policy.svc.io/failed-open: "true"` (and the audit annotation
 *   `imagepolicywebhook.image-policy.svc.io/failed-open`); without it, 403 with the failure.
 *
 * `kubeConfigFile` is read at start, relative to the working directory as established.
 */
import type { Pod } from '../../api/generated/kinds.js';
import { ClientConfigError, parseSvcconfigFile, type ClientConfig } from '../../client/svcconfig.js';
import { AnswerCache, RemoteCallError, WebhookClient, type Backoff } from '../auth/webhook-client.js';
import { addAuditAnnotation, type AdmissionPlugin } from './chain.js';
import { pluginConfigError, type PluginConfiguration } from './config-file.js';
import { admissionForbidden } from './refusal.js';

export const IMAGE_REVIEW_API_VERSION = 'imagepolicy.svc.io/v1alpha1';
export const AUDIT_KEY_PREFIX = 'imagepolicywebhook.image-policy.svc.io/';
export const FAILED_OPEN_ANNOTATION = 'alpha.image-policy.svc.io/failed-open';
const ANNOTATION_MARKS = ['.image-policy.svc.io/', '.image-policy.k8s.io/'];

export interface ImagePolicyConfig {
  client: ClientConfig;
  allowTtlMs: number;
  denyTtlMs: number;
  retryBackoffMs: number;
  defaultAllow: boolean;
}

/** The established normalizeConfigDuration: -1 off, 0 the default, else `value * unit` within [min, max]. */
function duration(field: string, raw: unknown, unitMs: number, minMs: number, maxMs: number, defaultMs: number, fail: (m: string) => never): number {
  const v = raw ?? 0;
  if (typeof v !== 'number' || !Number.isInteger(v)) return fail(`imagePolicy.${field}: must be an integer, got ${JSON.stringify(v)}`);
  if (v === -1) return 0;
  if (v === 0) return defaultMs;
  const ms = v * unitMs;
  if (ms < minMs || ms > maxMs) return fail(`imagePolicy.${field}: valid value is between ${minMs / unitMs} and ${maxMs / unitMs} (${unitMs === 1000 ? 'seconds' : 'milliseconds'}), got ${v}`);
  return ms;
}

export function parseImagePolicyConfiguration(cfg: PluginConfiguration | undefined): ImagePolicyConfig {
  if (!cfg) throw pluginConfigError('ImagePolicyWebhook', undefined, 'no config specified: it needs imagePolicy: {kubeConfigFile: ..., allowTTL, denyTTL, retryBackoff, defaultAllow} in --admission-control-config-file');
  const fail = (msg: string): never => {
    throw pluginConfigError('ImagePolicyWebhook', cfg.source, msg);
  };
  const doc = cfg.value;
  const section = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>)['imagePolicy'] : undefined;
  if (section === null || typeof section !== 'object' || Array.isArray(section)) return fail('imagePolicy: Required value: {kubeConfigFile: ..., allowTTL, denyTTL, retryBackoff, defaultAllow}');
  const s = section as Record<string, unknown>;
  for (const k of Object.keys(s)) if (!['kubeConfigFile', 'allowTTL', 'denyTTL', 'retryBackoff', 'defaultAllow'].includes(k)) fail(`imagePolicy.${k}: unknown field (known: kubeConfigFile, allowTTL, denyTTL, retryBackoff, defaultAllow)`);
  const file = s['kubeConfigFile'];
  if (typeof file !== 'string' || file === '') return fail('imagePolicy.kubeConfigFile: Required value: the webhook\'s client configuration file');
  const defaultAllow = s['defaultAllow'] ?? false;
  if (typeof defaultAllow !== 'boolean') return fail(`imagePolicy.defaultAllow: must be true or false, got ${JSON.stringify(defaultAllow)}`);
  const retryBackoffMs = duration('retryBackoff', s['retryBackoff'], 1, 1, 5 * 60_000, 500, fail);
  const allowTtlMs = duration('allowTTL', s['allowTTL'], 1000, 1000, 30 * 60_000, 300_000, fail);
  const denyTtlMs = duration('denyTTL', s['denyTTL'], 1000, 1000, 30 * 60_000, 30_000, fail);
  let client: ClientConfig;
  try {
    client = parseSvcconfigFile(file);
  } catch (err) {
    if (err instanceof ClientConfigError) return fail(`imagePolicy.kubeConfigFile: ${err.message}`);
    throw err;
  }
  return { client, allowTtlMs, denyTtlMs, retryBackoffMs, defaultAllow };
}

interface ReviewStatus {
  allowed: boolean;
  reason?: string;
  auditAnnotations?: Record<string, string>;
}

/** The answer's status (either group spelling; a missing status is a denial, as decoding one gives). */
function statusOf(answer: unknown): ReviewStatus {
  const status = (answer as { status?: Record<string, unknown> } | null)?.status ?? {};
  const out: ReviewStatus = { allowed: status['allowed'] === true };
  if (typeof status['reason'] === 'string') out.reason = status['reason'];
  const ann = status['auditAnnotations'];
  if (ann && typeof ann === 'object' && !Array.isArray(ann)) {
    out.auditAnnotations = Object.fromEntries(Object.entries(ann).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }
  return out;
}

export function imagePolicyWebhook(config: ImagePolicyConfig): AdmissionPlugin {
  const backoff: Backoff = { initialMs: config.retryBackoffMs, factor: 1.5, jitter: 0.2, steps: 5 };
  const client = new WebhookClient(config.client, { backoff });
  const cache = new AnswerCache<ReviewStatus>(1024);
  return {
    name: 'ImagePolicyWebhook',
    sideEffects: 'None',
    handles: (a) => (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.def.group === '' && a.def.plural === 'pods' && a.subresource === '' && !!a.object,
    async validate(a) {
      const pod = a.object as Pod;
      const spec = pod.spec ?? {};
      const containers = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c) => ({ image: c.image ?? '' }));
      const annotations = Object.fromEntries(
        Object.entries(pod.metadata.annotations ?? {})
          .filter(([k]) => ANNOTATION_MARKS.some((m) => k.includes(m)))
          .sort(([x], [y]) => (x < y ? -1 : 1)),
      );
      const reviewSpec = { containers, ...(Object.keys(annotations).length ? { annotations } : {}), namespace: a.namespace };
      const key = JSON.stringify(reviewSpec);
      let status: ReviewStatus;
      try {
        status = await cache.getOrLoad(key, async () => {
          const answer = await client.post({ apiVersion: IMAGE_REVIEW_API_VERSION, kind: 'ImageReview', metadata: { creationTimestamp: null }, spec: reviewSpec, status: { allowed: false } });
          const s = statusOf(answer);
          cache.set(key, s, s.allowed ? config.allowTtlMs : config.denyTtlMs);
          return s;
        });
      } catch (err) {
        if (!(err instanceof RemoteCallError)) throw err;
        if (!config.defaultAllow) throw admissionForbidden(a, err.message);
        addAuditAnnotation(a, `${AUDIT_KEY_PREFIX}failed-open`, 'true');
        pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [FAILED_OPEN_ANNOTATION]: 'true' };
        return;
      }
      for (const [k, v] of Object.entries(status.auditAnnotations ?? {})) addAuditAnnotation(a, AUDIT_KEY_PREFIX + k, v);
      if (!status.allowed) {
        throw admissionForbidden(a, status.reason ? `image policy webhook backend denied one or more images: ${status.reason}` : 'one or more images rejected by webhook backend');
      }
    },
  };
}
