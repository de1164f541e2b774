/**
 * AlwaysPullImages (selectable): every container of a new pod, and of an updated pod whose update
 * brings an image the pod did not have, gets `imagePullPolicy: Always`, so an image on a node is
 * used only by pods whose credentials could pull it. Mutating, and validating (a later mutation
 * that sets another policy is refused with the established field error:
 * `pods "p" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"`).
 */
import type { Container, Pod } from '../../api/generated/kinds.js';
import { type AdmissionAttributes, type AdmissionPlugin } from './chain.js';
import { admissionForbidden, aggregateMessages } from './refusal.js';

/** Every container of the spec with its field path, init containers first, as established. */
function containersWithPath(pod: Pod | undefined): [Container, string][] {
  const spec = pod?.spec;
  if (!spec) return [];
  const out: [Container, string][] = [];
  (spec.initContainers ?? []).forEach((c, i) => out.push([c, `spec.initContainers[${i}]`]));
  (spec.containers ?? []).forEach((c, i) => out.push([c, `spec.containers[${i}]`]));
  ((spec as { ephemeralContainers?: Container[] }).ephemeralContainers ?? []).forEach((c, i) => out.push([c, `spec.ephemeralContainers[${i}]`]));
  return out;
}

/** An update that brings no image the pod did not already have is left alone. */
function updateWithNoNewImages(a: AdmissionAttributes): boolean {
  if (a.operation !== 'UPDATE') return false;
  const old = new Set(containersWithPath(a.oldObject as Pod | undefined).map(([c]) => c.image));
  return containersWithPath(a.object as Pod | undefined).every(([c]) => old.has(c.image));
}

export function alwaysPullImages(): AdmissionPlugin {
  return {
    name: 'AlwaysPullImages',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && a.def.group === '' && a.def.plural === 'pods' && (a.operation === 'CREATE' || a.operation === 'UPDATE') && !updateWithNoNewImages(a),
    mutate(a) {
      for (const [c] of containersWithPath(a.object as Pod | undefined)) c.imagePullPolicy = 'Always';
    },
    validate(a) {
      const errs = containersWithPath(a.object as Pod | undefined)
        .filter(([c]) => c.imagePullPolicy !== 'Always')
        .map(([c, path]) => `${path}.imagePullPolicy: Unsupported value: ${JSON.stringify(c.imagePullPolicy ?? '')}: supported values: "Always"`);
      if (errs.length > 0) throw admissionForbidden(a, aggregateMessages(errs));
    },
  };
}
