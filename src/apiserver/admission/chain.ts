/**
 * The admission chain: plugins that may reject (validating) or change (mutating) a write before it
 * is stored. Built-in plugins run in a fixed order; a plugin declares whether it has side effects so
 * a dry-run request that would trigger one fails instead (spec: Dry run, rule 2).
 */
import { badRequest } from '../../api/status.js';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import type { UserInfo } from '../auth/user.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

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
   * Annotations plugins add for the request's audit event (established AddAnnotation: keys are
   * `<plugin domain>/<name>`, e.g. `imagepolicywebhook.image-policy.svc.io/failed-open`).
   */
  auditAnnotations?: Record<string, string>;
  /** Options fields the client sent (DeleteOptions' propagationPolicy, ...), for admission webhooks' `options`. */
  options?: Record<string, unknown>;
  /** Adds a `Warning` header to the response (admission webhooks' warnings); absent where there is none. */
  warn?: (text: string) => void;
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

export class AdmissionChain {
  constructor(private readonly plugins: AdmissionPlugin[]) {}

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

  async mutate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.applicable(attrs)) await p.mutate?.(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.applicable(attrs)) await p.validate?.(attrs);
  }
}

