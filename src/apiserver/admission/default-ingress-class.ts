/**
 * DefaultIngressClass (default on): a new Ingress that names no class (neither
 * `spec.ingressClassName` nor the deprecated `svc.io/ingress.class` annotation) gets the name of the
 * default IngressClass: the one annotated `ingressclass.svc.io/is-default-class: "true"` (the
 * established `ingressclass.kubernetes.io/is-default-class` is accepted as an alias). With none the
 * Ingress is left without a class; with more than one, the create is refused, as established:
 * `ingresses.networking.svc.io "x" is forbidden: Internal error occurred: 2 default IngressClasses
 * were found, only 1 allowed`. Mutating, on create only; classes read from the watch cache.
 */
import type { Ingress, IngressClass } from '../../api/generated/kinds.js';
import {
  ANNOTATION_DEFAULT_INGRESS_CLASS, ANNOTATION_DEFAULT_INGRESS_CLASS_ALIAS, ANNOTATION_INGRESS_CLASS, ANNOTATION_INGRESS_CLASS_ALIAS,
} from '../../api/kinds/networking/ingress.js';
import { type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

export const isDefaultIngressClass = (c: IngressClass) =>
  c.metadata.annotations?.[ANNOTATION_DEFAULT_INGRESS_CLASS] === 'true' || c.metadata.annotations?.[ANNOTATION_DEFAULT_INGRESS_CLASS_ALIAS] === 'true';

export function defaultIngressClass(listClasses: () => Promise<IngressClass[]>): AdmissionPlugin {
  return {
    name: 'DefaultIngressClass',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && a.subresource === '' && a.def.plural === 'ingresses' && a.def.group === 'networking.svc.io',
    async mutate(a) {
      const ingress = a.object as Ingress | undefined;
      if (!ingress) return;
      const spec = (ingress.spec ??= {});
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      const annotations = ingress.metadata.annotations ?? {};
      if (annotations[ANNOTATION_INGRESS_CLASS] !== undefined || annotations[ANNOTATION_INGRESS_CLASS_ALIAS] !== undefined) return;
      const defaults = (await listClasses()).filter(isDefaultIngressClass);
      if (defaults.length > 1) throw admissionForbidden(a, `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`);
      if (defaults.length === 1) spec.ingressClassName = defaults[0]!.metadata.name!;
    },
  };
}
