/**
 * Calling admission webhooks: what the MutatingAdmissionWebhook and ValidatingAdmissionWebhook
 * plugins share (../mutating-admission-webhook.ts, ../validating-admission-webhook.ts).
 *
 * The configurations are read from the watch cache at every request (resourceVersion 0, as the
 * established plugins read theirs from an informer), so a created, changed or deleted
 * configuration counts from the next request after the cache has it (milliseconds); parsed hooks
 * are kept while the configurations' resourceVersions are unchanged. Configurations run in name
 * order, hooks in their order within one.
 *
 * One call (the established callHook):
 * - dry run: a hook whose sideEffects is not None or NoneOnDryRun refuses the request (400
 *   `admission webhook "x" does not support dry run`), whatever its failurePolicy;
 * - the first of its admissionReviewVersions this server speaks; the review POSTed with the
 *   hook's timeoutSeconds (./client.ts);
 * - a failed call or an invalid answer: failurePolicy Ignore skips the hook (logged), Fail refuses
 *   with 500 `Internal error occurred: failed calling webhook "x": <reason>`;
 * - allowed false: the webhook's Status with `admission webhook "x" denied the request: <message>`
 *   (code at least 400, status Failure; ToStatusErr);
 * - warnings become response Warning headers; auditAnnotations go to the request's audit event
 *   as `<webhook name>/<key>` (../chain.ts addAuditAnnotation; a refused key is logged);
 * - each call's duration and any rejection go to the admission metrics (`timedHook`, ../metrics.ts);
 * - the client identity: the --admission-control-config-file kubeconfig's user for the hook's
 *   address, else the proxy client certificate (./credentials.ts, ./client.ts).
 */
import type { Logger } from 'pino';
import { StatusError, badRequest, type StatusDetails, type StatusReason } from '../../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../../api/types.js';
import { addAuditAnnotation, type AdmissionAttributes } from '../chain.js';
import type { ResourceStore } from '../../resource-store.js';
import { resolveTarget, postReview, WebhookCallError, type ClientIdentity, type ServiceLookups } from './client.js';
import { exemptFromWebhooks, shouldCallHook, type MatchableWebhook, type MatchContext, type WebhookInvocation } from './matching.js';
import type { AdmissionMetrics } from '../metrics.js';
import type { WebhookCredentials } from './credentials.js';
import { buildReview, chooseReviewVersion, verifyReview, type ReviewResult } from './review.js';

type Loose = Record<string, unknown>;

/** One webhook of a configuration (v1 shape, defaults filled). */
export interface ConfiguredWebhook extends MatchableWebhook {
  /** `<configuration>/<index>`: identifies the hook across reinvocation. */
  key: string;
  clientConfig: Loose;
  failurePolicy: string;
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  reinvocationPolicy: string;
}

/** What the webhook plugins read (built from the AdmissionContext). */
export interface WebhookDeps extends MatchContext, ServiceLookups {
  /** The configurations of the plugin's kind as the watch cache has them. */
  configurations(): Promise<readonly SvcObject[]>;
  /** --proxy-client-cert-file / --proxy-client-key-file. */
  identity?: ClientIdentity;
  /** The per-webhook credentials of --admission-control-config-file's kubeconfig (./credentials.ts). */
  credentials?: WebhookCredentials;
  /** The server's admission metrics (absent in unit tests). */
  metrics?: AdmissionMetrics;
  logger?: Logger;
}

/** Parsed hooks of the current configurations, re-parsed only when one changes. */
export class WebhookSource {
  private key = '';
  private parsed: ConfiguredWebhook[] = [];

  constructor(private readonly read: () => Promise<readonly SvcObject[]>) {}

  async hooks(): Promise<ConfiguredWebhook[]> {
    const configs = await this.read();
    const key = configs.map((c) => `${c.metadata.name}@${c.metadata.resourceVersion}`).join(',');
    if (key !== this.key) {
      this.parsed = parseConfigurations(configs);
      this.key = key;
    }
    return this.parsed;
  }
}

/** The hooks of `configs`, configurations in name order, hooks in order. */
export function parseConfigurations(configs: readonly SvcObject[]): ConfiguredWebhook[] {
  const sorted = [...configs].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const out: ConfiguredWebhook[] = [];
  for (const c of sorted) {
    const hooks = Array.isArray(c['webhooks']) ? (c['webhooks'] as Loose[]) : [];
    hooks.forEach((h, i) => {
      const str = (k: string, d: string) => (typeof h[k] === 'string' ? (h[k] as string) : d);
      out.push({
        key: `${c.metadata.name ?? ''}/${i}`,
        name: str('name', ''),
        rules: Array.isArray(h['rules']) ? (h['rules'] as MatchableWebhook['rules']) : [],
        matchPolicy: str('matchPolicy', 'Equivalent'),
        namespaceSelector: (h['namespaceSelector'] as Loose | undefined) ?? {},
        objectSelector: (h['objectSelector'] as Loose | undefined) ?? {},
        clientConfig: (h['clientConfig'] as Loose | undefined) ?? {},
        failurePolicy: str('failurePolicy', 'Fail'),
        sideEffects: str('sideEffects', 'Unknown'),
        timeoutSeconds: typeof h['timeoutSeconds'] === 'number' ? h['timeoutSeconds'] : 10,
        admissionReviewVersions: Array.isArray(h['admissionReviewVersions']) ? (h['admissionReviewVersions'] as string[]) : [],
        reinvocationPolicy: str('reinvocationPolicy', 'Never'),
      });
    });
  }
  return out;
}

/** The hooks to call for this request (in order) with their invocations. */
export async function matchingHooks(hooks: readonly ConfiguredWebhook[], a: AdmissionAttributes, deps: MatchContext): Promise<{ hook: ConfiguredWebhook; inv: WebhookInvocation }[]> {
  if (hooks.length === 0 || exemptFromWebhooks(a.def)) return [];
  const out: { hook: ConfiguredWebhook; inv: WebhookInvocation }[] = [];
  for (const hook of hooks) {
    const inv = await shouldCallHook(hook, a, deps);
    if (inv) out.push({ hook, inv });
  }
  return out;
}

/** Errors that are failed calls under failurePolicy Fail, and webhooks' refusals (for the rejection metric). */
const CALL_FAILURES = new WeakSet<object>();
const REFUSALS = new WeakSet<object>();

/** Internal error occurred: ... (apierrors.NewInternalError). */
function internal(message: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/**
 * Runs one hook's work (`call`: the call and what the plugin does with the answer) and records it
 * as established: its duration, rejected when it threw, and a rejection by kind.
 */
export async function timedHook<T>(hook: ConfiguredWebhook, type: 'admit' | 'validating', a: AdmissionAttributes, deps: WebhookDeps, call: () => Promise<T>): Promise<T> {
  const metrics = deps.metrics;
  if (!metrics) return call();
  const start = performance.now();
  let failure: unknown;
  let failed = false;
  try {
    return await call();
  } catch (e) {
    failed = true;
    failure = e;
    throw e;
  } finally {
    metrics.webhook(hook.name, type, a, (performance.now() - start) / 1000, failed);
    if (failed) {
      const f = failure as object;
      if (f && typeof f === 'object' && CALL_FAILURES.has(f)) metrics.webhookRejection(hook.name, type, a, 'calling_webhook_error', 0);
      else if (f instanceof StatusError && REFUSALS.has(f)) metrics.webhookRejection(hook.name, type, a, 'no_error', f.status.code);
      else metrics.webhookRejection(hook.name, type, a, 'apiserver_internal_error', 0);
    }
  }
}

/** A refusal with the webhook's Status (webhookerrors.ToStatusErr). */
export function deniedBy(name: string, status: Loose | undefined): StatusError {
  const s = status ?? {};
  const deniedText = `admission webhook ${JSON.stringify(name)} denied the request`;
  const code = typeof s['code'] === 'number' && s['code'] >= 400 ? s['code'] : 400;
  const message = typeof s['message'] === 'string' && s['message'] !== '' ? `${deniedText}: ${s['message']}` : typeof s['reason'] === 'string' && s['reason'] !== '' ? `${deniedText}: ${s['reason']}` : `${deniedText} without explanation`;
  const reason = (typeof s['reason'] === 'string' ? s['reason'] : '') as StatusReason;
  const details = s['details'] && typeof s['details'] === 'object' ? (s['details'] as StatusDetails) : undefined;
  const refusal = new StatusError(code, reason, message, details);
  REFUSALS.add(refusal);
  return refusal;
}

const safeOnDryRun = (sideEffects: string): boolean => sideEffects === 'None' || sideEffects === 'NoneOnDryRun';

/**
 * Calls one hook: its checked answer, or undefined when the call failed and failurePolicy is
 * Ignore. Throws the refusals described in the file comment (a denial is the caller's to raise).
 */
export async function callHook(hook: ConfiguredWebhook, inv: WebhookInvocation, a: AdmissionAttributes, deps: WebhookDeps, mutating: boolean): Promise<ReviewResult | undefined> {
  if (a.dryRun && !safeOnDryRun(hook.sideEffects)) throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
  try {
    const version = chooseReviewVersion(hook.admissionReviewVersions);
    if (!version) throw new WebhookCallError('webhook does not accept known AdmissionReview versions');
    const target = await resolveTarget(hook.clientConfig, deps, deps.identity, deps.credentials);
    const review = buildReview(version, a, inv);
    const answer = await postReview(target, review.body, hook.timeoutSeconds);
    let result: ReviewResult;
    try {
      result = verifyReview(review, answer, mutating);
    } catch (e) {
      throw new WebhookCallError(`received invalid webhook response: ${(e as Error).message}`);
    }
    for (const w of result.warnings) a.warn?.(w);
    // As established: each key under the webhook's name, for the audit event.
    for (const [k, v] of Object.entries(result.auditAnnotations)) {
      const key = `${hook.name}/${k}`;
      const refused = addAuditAnnotation(a, key, v);
      if (refused) deps.logger?.warn({ webhook: hook.name, key, value: v, err: refused }, 'Failed to set admission audit annotation');
    }
    return result;
  } catch (e) {
    if (!(e instanceof WebhookCallError)) throw e;
    const message = `failed calling webhook ${JSON.stringify(hook.name)}: ${e.message}`;
    if (hook.failurePolicy === 'Ignore') {
      deps.logger?.warn({ webhook: hook.name, err: e.message }, 'Failed calling webhook, failing open');
      return undefined;
    }
    deps.logger?.warn({ webhook: hook.name, err: e.message }, 'Failed calling webhook, failing closed');
    const failure = internal(message);
    CALL_FAILURES.add(failure);
    throw failure;
  }
}

/** Builds the plugins' reads from the server's stores (each undefined kind reads as empty). */
export function webhookDeps(opts: {
  configurationsStore: ResourceStore | undefined;
  namespaces: ResourceStore | undefined;
  services: ResourceStore | undefined;
  endpoints: ResourceStore | undefined;
  definitions: () => readonly ResourceDefinition[];
  identity?: ClientIdentity;
  credentials?: WebhookCredentials;
  metrics?: AdmissionMetrics;
  logger?: Logger;
}): WebhookDeps {
  const peek = (s: ResourceStore | undefined) => async (ns: string, name: string) => s?.peek(ns, name);
  const ns = peek(opts.namespaces);
  const store = opts.configurationsStore;
  return {
    configurations: async () => (store ? (await store.list({ namespace: '', resourceVersion: '0', filtered: false })).items.map((v) => v.object) : []),
    namespace: (name) => ns('', name),
    definitions: opts.definitions,
    service: peek(opts.services),
    endpoints: peek(opts.endpoints),
    ...(opts.identity ? { identity: opts.identity } : {}),
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  };
}
