/**
 * DefaultTolerationSeconds (default on): a pod created or updated without a toleration of the
 * NoExecute taints `node.svc.io/not-ready` and `node.svc.io/unreachable` gets one of each, operator
 * Exists, with `tolerationSeconds` from --default-not-ready-toleration-seconds and
 * --default-unreachable-toleration-seconds (300 each): so the node lifecycle controller's taint
 * manager evicts it that long after its node fails, not at once. A toleration with an empty key
 * (or empty effect) that already covers the taint counts, as established.
 */
import type { Pod } from '../../api/generated/kinds.js';
import type { Toleration } from '../../api/kind-parts.js';
import { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from '../../api/well-known-labels.js';
import type { AdmissionPlugin } from './chain.js';

export interface DefaultTolerationSettings {
  notReadySeconds: number;
  unreachableSeconds: number;
}

export const DEFAULT_TOLERATION_SECONDS: Readonly<DefaultTolerationSettings> = Object.freeze({ notReadySeconds: 300, unreachableSeconds: 300 });

const covers = (t: Toleration, key: string) => (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect);

export function defaultTolerationSeconds(s: DefaultTolerationSettings = DEFAULT_TOLERATION_SECONDS): AdmissionPlugin {
  return {
    name: 'DefaultTolerationSeconds',
    sideEffects: 'None',
    handles: (a) => a.def.group === '' && a.def.plural === 'pods' && a.subresource === '' && (a.operation === 'CREATE' || a.operation === 'UPDATE'),
    mutate(a) {
      const pod = a.object as Pod | undefined;
      if (!pod) return;
      const tolerations = pod.spec?.tolerations ?? [];
      const add: Toleration[] = [];
      if (!tolerations.some((t) => covers(t, TAINT_NODE_NOT_READY))) add.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s.notReadySeconds });
      if (!tolerations.some((t) => covers(t, TAINT_NODE_UNREACHABLE))) add.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s.unreachableSeconds });
      if (add.length) pod.spec = { ...(pod.spec ?? {}), tolerations: [...tolerations, ...add] } as NonNullable<Pod['spec']>;
    },
  };
}
