/**
 * PodSecurityPolicy (--enable-admission-plugins=PodSecurityPolicy; not in the default list, as
 * established): a pod is admitted only under a PodSecurityPolicy that the requesting user, or the
 * pod's service account, may `use` (verb `use` on `podsecuritypolicies` named by the policy, group
 * `policy` or the legacy `extensions`, in the pod's namespace, so a RoleBinding grants a policy in
 * one namespace). The established algorithm:
 *
 * - create (mutating phase): policies in name order; each is applied to a copy of the pod (its
 *   defaults, ./pod-security-policy-provider.ts) and validated. The first usable policy that admits
 *   the pod unchanged wins; otherwise the first (by name) usable policy that admits it with its
 *   defaults wins, and the pod gets those defaults. The pod is annotated `svc.io/psp: <policy>`
 *   (established `kubernetes.io/psp`) and its audit event `podsecuritypolicy.policy.svc.io/admit-policy`;
 * - every create and update (validating phase, after the other plugins' changes): the pod must be
 *   admitted unchanged by a usable policy (the annotated one is tried first), so an update cannot
 *   move a pod outside every policy and defaults are never applied to an existing pod; the audit
 *   event gets `podsecuritypolicy.policy.svc.io/validate-policy`;
 * - refused: 403 `pods "<name>" is forbidden: unable to validate against any pod security policy:
 *   [<errors>]`, listing the errors of the policies the user or service account may use; with no
 *   policy at all, `no providers available to validate pod request`. So enabling the plugin before
 *   creating and granting policies refuses every pod (docs/security.md says so);
 * - not its business: other resources, subresources (status, binding, ...), and updates that change
 *   only owner references and finalizers (the garbage collector's writes).
 *
 * Policies are read from the watch cache, as the established plugin reads its informer.
 */
import { canonicalJson, cloneJson } from '../../api/json-walk.js';
import { forbidden, type FieldError, type StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { serviceAccountGroups, serviceAccountUsername } from '../../api/service-account-token-format.js';
import type { Authorizer } from '../auth/authorization.js';
import type { UserInfo } from '../auth/user.js';
import { addAuditAnnotation, type AdmissionAttributes, type AdmissionPlugin } from './chain.js';
import { podSecurityPolicyProvider, type PodSecurityPolicyProvider } from './pod-security-policy-provider.js';
import { StrategyError } from './pod-security-policy-strategies.js';

/** The annotation naming the policy a pod was admitted under (the established `kubernetes.io/psp`). */
export const VALIDATED_PSP_ANNOTATION = 'svc.io/psp';

/**
 * The audit annotations naming the policy that admitted (`admit-policy`) and validated
 * (`validate-policy`) the pod (established prefix `podsecuritypolicy.policy.k8s.io`).
 */
export const PSP_AUDIT_KEY_PREFIX = 'podsecuritypolicy.policy.svc.io/';

/** The groups whose `use` on podsecuritypolicies grants a policy (the legacy one too, as established). */
const PSP_GROUPS = ['policy', 'extensions'];

export interface PodSecurityPolicyAccess {
  /** Every PodSecurityPolicy (from the cache). */
  policies(): Promise<SvcObject[]>;
  authorizer(): Authorizer;
}

/** A field error as the established ErrorList prints it: `<path>: <message>`. */
const render = (e: FieldError): string => (e.field ? `${e.field}: ${e.message}` : e.message);

/** Outcome of matching a pod against the policies. */
type Match = { pod: SvcObject; policy: string } | { errors: FieldError[] } | { noProviders: true };

async function mayUse(authorizer: Authorizer, user: UserInfo | undefined, namespace: string, policy: string): Promise<boolean> {
  if (!user) return false;
  for (const group of PSP_GROUPS) {
    const d = await authorizer.authorize(user, { kind: 'resource', verb: 'use', group, version: '*', resource: 'podsecuritypolicies', subresource: '', namespace, name: policy });
    if (d.allowed) return true;
  }
  return false;
}

/** Only owner references and finalizers changed (what the garbage collector writes), as established. */
function onlyGcFieldsChanged(next: SvcObject | undefined, old: SvcObject | undefined): boolean {
  if (!next || !old) return false;
  const strip = (o: SvcObject): unknown => {
    const { ownerReferences: _o, finalizers: _f, managedFields: _m, resourceVersion: _r, generation: _g, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  };
  return canonicalJson(strip(next)) === canonicalJson(strip(old));
}

export function podSecurityPolicyAdmission(access: PodSecurityPolicyAccess): AdmissionPlugin {
  async function match(a: AdmissionAttributes, pod: SvcObject, mutationAllowed: boolean): Promise<Match> {
    const serviceAccount = String((pod.spec as { serviceAccountName?: unknown } | undefined)?.serviceAccountName ?? '');
    const saUser: UserInfo | undefined = serviceAccount ? { username: serviceAccountUsername(a.namespace, serviceAccount), groups: serviceAccountGroups(a.namespace) } : undefined;
    const hint = mutationAllowed ? undefined : pod.metadata.annotations?.[VALIDATED_PSP_ANNOTATION];
    const policies = [...(await access.policies())].sort((x, y) => {
      const nx = x.metadata.name ?? '';
      const ny = y.metadata.name ?? '';
      if (hint !== undefined && nx !== ny && (nx === hint || ny === hint)) return nx === hint ? -1 : 1;
      return nx < ny ? -1 : nx > ny ? 1 : 0;
    });
    const providers: PodSecurityPolicyProvider[] = [];
    for (const p of policies) {
      try {
        providers.push(podSecurityPolicyProvider(p));
      } catch (err) {
        // A policy that cannot be applied (MustRunAs without ranges, ...) is skipped, as established.
        if (!(err instanceof StrategyError)) throw err;
      }
    }
    if (providers.length === 0) return { noProviders: true };
    const authorizer = access.authorizer();
    const usable = async (name: string) => (await mayUse(authorizer, saUser, a.namespace, name)) || (await mayUse(authorizer, a.user, a.namespace, name));
    const original = canonicalJson(pod);
    const failed = new Map<string, FieldError[]>();
    let mutated: { pod: SvcObject; policy: string } | undefined;
    for (const provider of providers) {
      const copy = cloneJson(pod);
      const errs = [...provider.mutate(copy), ...provider.validate(copy)];
      if (errs.length > 0) {
        failed.set(provider.name, errs);
        continue;
      }
      const changed = canonicalJson(copy) !== original;
      if (changed && !mutationAllowed) continue;
      if (!(await usable(provider.name))) continue;
      if (!changed) return { pod: copy, policy: provider.name };
      mutated ??= { pod: copy, policy: provider.name };
    }
    if (mutated) return mutated;
    // Refused: only the errors of policies the user or service account may use are shown.
    const errors: FieldError[] = [];
    for (const [name, errs] of failed) if (await usable(name)) errors.push(...errs);
    return { errors };
  }

  function refuse(a: AdmissionAttributes, pod: SvcObject, why: string): StatusError {
    const name = a.name || pod.metadata.name || pod.metadata.generateName || '';
    return forbidden(`pods ${JSON.stringify(name)} is forbidden: ${why}`, { group: '', resource: 'pods', name });
  }

  async function decide(a: AdmissionAttributes, mutationAllowed: boolean): Promise<{ pod: SvcObject; policy: string }> {
    const pod = a.object!;
    const m = await match(a, pod, mutationAllowed);
    if ('noProviders' in m) throw refuse(a, pod, 'no providers available to validate pod request');
    if ('errors' in m) throw refuse(a, pod, `unable to validate against any pod security policy: [${m.errors.map(render).join(' ')}]`);
    return m;
  }

  return {
    name: 'PodSecurityPolicy',
    sideEffects: 'None',
    handles: (a) =>
      a.def.group === '' &&
      a.def.plural === 'pods' &&
      a.subresource === '' &&
      a.object !== undefined &&
      (a.operation === 'CREATE' || (a.operation === 'UPDATE' && !onlyGcFieldsChanged(a.object, a.oldObject))),
    async mutate(a) {
      // Defaults only on create; an update is validated as it is.
      if (a.operation !== 'CREATE') return;
      const { pod, policy } = await decide(a, true);
      const target = a.object!;
      // Copy the admitted pod into the request's object (the chain and the handler hold that one).
      for (const key of Object.keys(target)) if (!(key in pod)) delete target[key];
      Object.assign(target, pod);
      target.metadata.annotations = { ...(target.metadata.annotations ?? {}), [VALIDATED_PSP_ANNOTATION]: policy };
      addAuditAnnotation(a, `${PSP_AUDIT_KEY_PREFIX}admit-policy`, policy);
    },
    async validate(a) {
      const { policy } = await decide(a, false);
      addAuditAnnotation(a, `${PSP_AUDIT_KEY_PREFIX}validate-policy`, policy);
    },
  };
}
