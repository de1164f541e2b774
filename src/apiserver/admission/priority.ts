/**
 * Priority (default on): a pod's priority is decided at admission, from PriorityClasses, as
 * established; the scheduler then reads `spec.priority` and nothing else.
 *
 * - Pods on create (mutating): `spec.priorityClassName` names a class, else the global default
 *   class (`globalDefault: true`; with several, the lowest value) is taken and its name written;
 *   with none the priority is 0. `spec.priority` becomes the class's value; a pod that brings a
 *   different value is refused (403). With the NonPreemptingPriority gate on, `spec.preemptionPolicy`
 *   likewise becomes the class's (a different one refused). A name no class has is refused:
 *   `pods "p" is forbidden: no PriorityClass with name x was found`. The built-in classes
 *   `system-node-critical` and `system-cluster-critical` are objects the API server keeps
 *   (./system-objects.ts), so they resolve like any other.
 * - Pods on update (mutating): a priority (and policy) the update leaves out is kept from the stored
 *   pod (the spec's validation refuses any other change of them).
 * - PriorityClasses on create and update (validating): a second `globalDefault` class is refused:
 *   `PriorityClass x is already marked as default. Only one default can exist`.
 *
 * Classes are read from the watch cache; a name the cache does not have yet is read from storage.
 */
import type { Pod, PriorityClass } from '../../api/generated/kinds.js';
import { type AdmissionAttributes, type AdmissionPlugin } from './chain.js';
import { admissionForbidden } from './refusal.js';

/** The priority of a pod when it names no class and no class is the global default. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS = 0;

export interface PriorityClassAccess {
  /** One class by name (cache first, then storage), or undefined. */
  get(name: string): Promise<PriorityClass | undefined>;
  /** Every class, as the cache has them. */
  list(): Promise<PriorityClass[]>;
}

export interface PriorityOptions {
  /** The NonPreemptingPriority gate (alpha, off): on, the class's preemptionPolicy is the pod's too. */
  nonPreemptingPriority: boolean;
}

/** The global default class; when a race left several, the one with the lowest value. */
export function defaultPriorityClass(classes: readonly PriorityClass[]): PriorityClass | undefined {
  let found: PriorityClass | undefined;
  for (const c of classes) if (c.globalDefault === true && (!found || (found.value ?? 0) > (c.value ?? 0))) found = c;
  return found;
}

const isPods = (a: AdmissionAttributes) => a.def.group === '' && a.def.plural === 'pods';
const isClasses = (a: AdmissionAttributes) => a.def.group === 'scheduling.svc.io' && a.def.plural === 'priorityclasses';

export function priorityAdmission(access: PriorityClassAccess, opts: PriorityOptions): AdmissionPlugin {
  const admitPod = async (a: AdmissionAttributes): Promise<void> => {
    const pod = a.object as Pod;
    const spec = (pod.spec ??= {});
    if (a.operation === 'UPDATE') {
      const old = (a.oldObject as Pod | undefined)?.spec;
      if (spec.priority === undefined && old?.priority !== undefined) spec.priority = old.priority;
      if (spec.preemptionPolicy === undefined && old?.preemptionPolicy !== undefined) spec.preemptionPolicy = old.preemptionPolicy;
      return;
    }
    let priority: number;
    let policy: string | undefined;
    if (!spec.priorityClassName) {
      const d = defaultPriorityClass(await access.list());
      if (d) spec.priorityClassName = d.metadata.name!;
      else delete spec.priorityClassName;
      priority = d?.value ?? DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS_EXISTS;
      policy = d ? d.preemptionPolicy : 'PreemptLowerPriority';
    } else {
      const pc = await access.get(spec.priorityClassName);
      if (!pc) throw admissionForbidden(a, `no PriorityClass with name ${spec.priorityClassName} was found`);
      priority = pc.value ?? 0;
      policy = pc.preemptionPolicy;
    }
    if (typeof spec.priority === 'number' && spec.priority !== priority) {
      throw admissionForbidden(a, `the integer value of priority (${spec.priority}) must not be provided in pod spec; priority admission controller computed ${priority} from the given PriorityClass name`);
    }
    spec.priority = priority;
    if (opts.nonPreemptingPriority && policy) {
      if (spec.preemptionPolicy && spec.preemptionPolicy !== policy) {
        throw admissionForbidden(a, `the string value of PreemptionPolicy (${spec.preemptionPolicy}) must not be provided in pod spec; priority admission controller computed ${policy} from the given PriorityClass name`);
      }
      spec.preemptionPolicy = policy;
    }
  };

  return {
    name: 'Priority',
    sideEffects: 'None',
    handles: (a) => a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE') && (isPods(a) || isClasses(a)),
    async mutate(a) {
      if (isPods(a) && a.object) await admitPod(a);
    },
    async validate(a) {
      if (!isClasses(a) || !a.object) return;
      const pc = a.object as PriorityClass;
      if (pc.globalDefault !== true) return;
      const existing = defaultPriorityClass(await access.list());
      // A second default is refused; the default itself may be updated.
      if (existing && (a.operation === 'CREATE' || existing.metadata.name !== pc.metadata.name)) {
        throw admissionForbidden(a, `PriorityClass ${existing.metadata.name} is already marked as default. Only one default can exist`);
      }
    },
  };
}
