/**
 * The admission chain: plugins that may reject (validating) or change (mutating) a write before it
 * is stored. Built-in plugins run in a fixed order; a plugin declares whether it has side effects so
 * a dry-run request that would trigger one fails instead (spec: Dry run, rule 2).
 *
 * Three things every step shares, as established:
 * - audit annotations (`addAuditAnnotation`): a step records `<plugin or webhook domain>/<key>` on
 *   the request's attributes, and the handler passes each one on to the request's audit event at once
 *   (`attrs.onAuditAnnotation`), so a refused request's event has them too;
 * - reinvocation: when a mutating webhook changed the object (`reinvocation.shouldReinvoke`), the
 *   whole mutating chain runs a second time, the built-in plugins all again and the webhook plugin
 *   only for the hooks that ask for it (reinvocationPolicy IfNeeded); never a third time;
 * - metrics: each plugin's and each phase's duration go to the observer (./metrics.ts).
 */
import { badRequest } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { isQualifiedName } from '../../api/validation/names.js';
import type { UserInfo } from '../auth/user.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** The state of one request's mutating phase across its (at most two) runs. */
export interface ReinvocationContext {
  /** True during the second run. */
  isReinvoke: boolean;
  /** Set by a step that wants the chain run again (the webhook plugin, when a hook changed the object). */
  shouldReinvoke: boolean;
  /** Each plugin's own state across the runs, by plugin name. */
  values: Map<string, unknown>;
}

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  def: ResourceDefinition;
  namespace: string;
  name: string;
  subresource: string;
  /** The object about to be stored (mutating plugins may change it). */
  object?: SvcObject;
  oldObject?: SvcObject;
  dryRun: boolean;
  /** Who is asking (the request's authenticated, or impersonated, user). */
  user: UserInfo;
  /**
   * Annotations admission steps added for the request's audit event (established AddAnnotation:
   * keys are `<plugin domain>/<name>`, e.g. `imagepolicywebhook.image-policy.svc.io/failed-open`).
   * Add them with `addAuditAnnotation`, which checks the key and passes it on.
   */
  auditAnnotations?: Record<string, string>;
  /** The request's audit event (set by the handlers; absent when nothing records annotations). */
  onAuditAnnotation?: (key: string, value: string) => void;
  /** Options fields the client sent (DeleteOptions' propagationPolicy, ...), for admission webhooks' `options`. */
  options?: Record<string, unknown>;
  /** Adds a `Warning` header to the response (admission webhooks' warnings); absent where there is none. */
  warn?: (text: string) => void;
  /** The mutating phase's reinvocation state (created by AdmissionChain.mutate). */
  reinvocation?: ReinvocationContext;
}

/**
 * Records an audit annotation on the request (established AddAnnotation): the key must be a
 * qualified name with a domain prefix, and a key already set keeps its value. Returns the reason
 * when the annotation was not taken (callers log it; a request never fails over an annotation).
 */
export function addAuditAnnotation(a: AdmissionAttributes, key: string, value: string): string | undefined {
  if (key.split('/').length !== 2) {
    return `annotation key has invalid format, the right format is a DNS subdomain prefix and '/' and key name. (e.g. 'podsecuritypolicy.admission.svc.io/admit-policy'): ${JSON.stringify(key)}`;
  }
  const problems = isQualifiedName(key);
  if (problems.length > 0) {
    return `annotation key has invalid format ${problems.join(',')}. A qualified name like 'podsecuritypolicy.admission.svc.io/admit-policy' is required.`;
  }
  const record = (a.auditAnnotations ??= {});
  if (key in record) {
    if (record[key] === value) return undefined;
    return `admission annotations are not allowd to be overridden, key:${JSON.stringify(key)}, old value: ${record[key]}, new value: ${value}`;
  }
  record[key] = value;
  a.onAuditAnnotation?.(key, value);
  return undefined;
}

/** `None` and `NoneOnDryRun` are safe for dry run; anything else makes a dry-run request fail. */
export type SideEffects = 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';

export interface AdmissionPlugin {
  name: string;
  sideEffects: SideEffects;
  /** Applies to this request? (cheap filter, e.g. by resource) */
  handles(attrs: AdmissionAttributes): boolean;
  mutate?(attrs: AdmissionAttributes): Promise<void> | void;
  validate?(attrs: AdmissionAttributes): Promise<void> | void;
}

/** Where the chain reports durations (the server's admission metrics; absent in unit tests). */
export interface AdmissionObserver {
  /** One plugin's mutate or validate (`admit` / `validate`, as established). */
  controller(name: string, type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void;
  /** A whole phase. */
  step(type: 'admit' | 'validate', a: AdmissionAttributes, seconds: number, rejected: boolean): void;
}

const seconds = (start: number): number => (performance.now() - start) / 1000;

export class AdmissionChain {
  constructor(
    private readonly plugins: AdmissionPlugin[],
    private readonly observer?: AdmissionObserver,
  ) {}

  private applicable(attrs: AdmissionAttributes): AdmissionPlugin[] {
    const hit = this.plugins.filter((p) => p.handles(attrs));
    if (attrs.dryRun) {
      const unsafe = hit.find((p) => p.sideEffects !== 'None' && p.sideEffects !== 'NoneOnDryRun');
      if (unsafe) {
        throw badRequest(`admission plugin "${unsafe.name}" has side effects and does not support dry run`);
      }
    }
    return hit;
  }

  /** Every mutating step, and all of them once more when a webhook asked for it (established reinvoker). */
  async mutate(attrs: AdmissionAttributes): Promise<void> {
    const ctx: ReinvocationContext = (attrs.reinvocation ??= { isReinvoke: false, shouldReinvoke: false, values: new Map() });
    await this.step('admit', attrs, async () => {
      await this.run('admit', attrs);
      if (ctx.shouldReinvoke && !ctx.isReinvoke) {
        ctx.isReinvoke = true;
        await this.run('admit', attrs);
      }
    });
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    await this.step('validate', attrs, () => this.run('validate', attrs));
  }

  /** A whole phase, timed as one step (both runs of a reinvoked mutating phase count as one, as established). */
  private async step(type: 'admit' | 'validate', attrs: AdmissionAttributes, body: () => Promise<void>): Promise<void> {
    if (!this.observer) return body();
    const start = performance.now();
    let ok = false;
    try {
      await body();
      ok = true;
    } finally {
      this.observer.step(type, attrs, seconds(start), !ok);
    }
  }

  /** Each applicable plugin's mutate or validate in order, each timed. */
  private async run(type: 'admit' | 'validate', attrs: AdmissionAttributes): Promise<void> {
    const obs = this.observer;
    for (const p of this.applicable(attrs)) {
      const fn = type === 'admit' ? p.mutate : p.validate;
      if (!fn) continue;
      if (!obs) {
        await fn.call(p, attrs);
        continue;
      }
      const start = performance.now();
      let ok = false;
      try {
        await fn.call(p, attrs);
        ok = true;
      } finally {
        obs.controller(p.name, type, attrs, seconds(start), !ok);
      }
    }
  }
}
