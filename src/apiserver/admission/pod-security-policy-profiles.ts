/**
 * The seccomp and AppArmor strategies of a PodSecurityPolicy, which 1.18 expresses as annotations
 * on the policy and on the pod (the established keys, in the project's spelling: the
 * `*.kubernetes.io` domains are `*.svc.io`):
 *
 * - policy `seccomp.security.alpha.svc.io/defaultProfileName` and `.../allowedProfileNames`
 *   (comma-separated, `*` for any): the pod gets the default profile when it names none
 *   (`seccomp.security.alpha.svc.io/pod`); the pod's and each container's profile
 *   (`container.seccomp.security.alpha.svc.io/<name>`, else the pod's) must be allowed, and with no
 *   allowed list none may be set;
 * - policy `apparmor.security.beta.svc.io/defaultProfileName` and `.../allowedProfileNames`: each
 *   container without a profile (`container.apparmor.security.beta.svc.io/<name>`) gets the
 *   default; with an allowed list, every container's profile must be set and in it.
 *
 * The simulated nodes run no profiles; the policy still decides what pods may ask for, as
 * established. Messages and field paths are the established ones.
 */
import type { FieldError } from '../../api/status.js';
import { fieldForbidden } from '../../api/validation/field-errors.js';

export const SECCOMP_DEFAULT_PROFILE = 'seccomp.security.alpha.svc.io/defaultProfileName';
export const SECCOMP_ALLOWED_PROFILES = 'seccomp.security.alpha.svc.io/allowedProfileNames';
export const SECCOMP_POD = 'seccomp.security.alpha.svc.io/pod';
export const SECCOMP_CONTAINER_PREFIX = 'container.seccomp.security.alpha.svc.io/';
export const APPARMOR_DEFAULT_PROFILE = 'apparmor.security.beta.svc.io/defaultProfileName';
export const APPARMOR_ALLOWED_PROFILES = 'apparmor.security.beta.svc.io/allowedProfileNames';
export const APPARMOR_CONTAINER_PREFIX = 'container.apparmor.security.beta.svc.io/';

type Annotations = Record<string, string>;

const annotationPath = (key: string): string => `pod.metadata.annotations[${key}]`;
const splitList = (v: string | undefined): string[] | undefined => (v === undefined ? undefined : v.split(',').map((s) => s.trim()).filter((s) => s !== ''));

export interface ProfileStrategies {
  /** The pod's annotations with the policy's default profiles added where the pod names none. */
  generate(annotations: Annotations | undefined, containers: readonly string[]): Annotations | undefined;
  /** The pod's own seccomp profile. */
  validatePod(annotations: Annotations | undefined): FieldError[];
  /** One container's AppArmor and seccomp profiles. */
  validateContainer(annotations: Annotations | undefined, container: string): FieldError[];
}

export function profileStrategies(policyAnnotations: Annotations | undefined): ProfileStrategies {
  const pa = policyAnnotations ?? {};
  const seccompDefault = pa[SECCOMP_DEFAULT_PROFILE];
  const seccompAllowed = splitList(pa[SECCOMP_ALLOWED_PROFILES]) ?? [];
  const seccompAny = seccompAllowed.includes('*');
  const seccompAllowedText = seccompAllowed.join(',');
  const appArmorDefault = pa[APPARMOR_DEFAULT_PROFILE] ?? '';
  const appArmorAllowed = splitList(pa[APPARMOR_ALLOWED_PROFILES]);

  function seccompErrors(path: string, profile: string): FieldError[] {
    if (!seccompAny && seccompAllowed.length === 0 && profile !== '') return [fieldForbidden(path, 'seccomp may not be set')];
    const allowed = (seccompAllowed.length === 0 && profile === '') || seccompAny || seccompAllowed.includes(profile);
    return allowed ? [] : [fieldForbidden(path, `${profile} is not an allowed seccomp profile. Valid values are ${seccompAllowedText}`)];
  }

  return {
    generate(annotations, containers) {
      let out = annotations;
      const set = (key: string, value: string) => {
        out = { ...(out ?? {}), [key]: value };
      };
      if (!annotations?.[SECCOMP_POD] && seccompDefault) set(SECCOMP_POD, seccompDefault);
      if (appArmorDefault) {
        for (const c of containers) if (!annotations?.[APPARMOR_CONTAINER_PREFIX + c]) set(APPARMOR_CONTAINER_PREFIX + c, appArmorDefault);
      }
      return out;
    },
    validatePod(annotations) {
      return seccompErrors(annotationPath(SECCOMP_POD), annotations?.[SECCOMP_POD] ?? '');
    },
    validateContainer(annotations, c) {
      const a = annotations ?? {};
      const errs: FieldError[] = [];
      if (appArmorAllowed !== undefined) {
        const key = APPARMOR_CONTAINER_PREFIX + c;
        const profile = a[key] ?? '';
        if (profile === '') {
          if (appArmorAllowed.length > 0) errs.push(fieldForbidden(annotationPath(key), 'AppArmor profile must be set'));
        } else if (!appArmorAllowed.includes(profile)) {
          errs.push(fieldForbidden(annotationPath(key), `${profile} is not an allowed profile. Allowed values: ${JSON.stringify(appArmorAllowed.join(','))}`));
        }
      }
      const key = SECCOMP_CONTAINER_PREFIX + c;
      errs.push(...seccompErrors(annotationPath(key), key in a ? a[key]! : (a[SECCOMP_POD] ?? '')));
      return errs;
    },
  };
}
