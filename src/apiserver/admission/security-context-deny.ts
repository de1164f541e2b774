/**
 * SecurityContextDeny (selectable): a pod created or updated that sets, in its pod security context,
 * `supplementalGroups`, `seLinuxOptions`, `runAsUser` or `fsGroup`, or in a container's (or init
 * container's) `seLinuxOptions` or `runAsUser`, is refused (403) with the established message
 * naming the first such field (`pod.Spec.SecurityContext.RunAsUser is forbidden`,
 * `SecurityContext.RunAsUser is forbidden`). Validating.
 */
import type { Pod } from '../../api/generated/kinds.js';
import { type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

type Context = Record<string, unknown> | undefined;
const set = (ctx: Context, field: string) => ctx !== undefined && ctx !== null && ctx[field] !== undefined && ctx[field] !== null;

/** The established message for the first forbidden setting of a pod, or undefined. */
export function securityContextViolation(pod: Pod): string | undefined {
  const podCtx = pod.spec?.securityContext as Context;
  const podFields: [string, string][] = [['supplementalGroups', 'SupplementalGroups'], ['seLinuxOptions', 'SELinuxOptions'], ['runAsUser', 'RunAsUser'], ['fsGroup', 'FSGroup']];
  for (const [field, name] of podFields) if (set(podCtx, field)) return `pod.Spec.SecurityContext.${name} is forbidden`;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const ctx = (c as { securityContext?: Context }).securityContext;
    if (set(ctx, 'seLinuxOptions')) return 'SecurityContext.SELinuxOptions is forbidden';
    if (set(ctx, 'runAsUser')) return 'SecurityContext.RunAsUser is forbidden';
  }
  return undefined;
}

export function securityContextDeny(): AdmissionPlugin {
  return {
    name: 'SecurityContextDeny',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    validate(a) {
      const why = a.object ? securityContextViolation(a.object as Pod) : undefined;
      if (why) throw admissionForbidden(a, why);
    },
  };
}
