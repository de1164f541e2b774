/**
 * The replicationcontroller controller: the replicaset controller's logic for the older
 * ReplicationController kind, whose selector is a plain label map (defaulting to the template's
 * labels). Watches ReplicationControllers, owns Pods; same writes, events and guarantees as
 * controllers/replicaset. Lifecycle: the ReplicaSet's machine (machines/lifecycles/replicaset.ts),
 * charted and tracked as `replicationcontroller`.
 */
import type { ReplicationController } from '../../src/api/generated/kinds.js';
import { labelSelectorFromMap } from '../../src/api/labels.js';
import { resources } from '../../src/client/typed.js';
import type { ControllerDefinition } from '../../src/runtime/define-controller.js';
import { replicationControllerLifecycle } from '../../machines/lifecycles/replicaset.js';
import { replicaController, type Flavour } from '../replicaset/index.js';

const REPLICATIONCONTROLLER: Flavour = {
  name: 'replicationcontroller',
  ref: resources.replicationcontrollers,
  selectorOf: (o) => {
    // An RC without a selector selects by its template's labels (as defaulted by the server).
    const s = (o as ReplicationController).spec?.selector ?? o.spec?.template?.metadata?.labels;
    return s && Object.keys(s).length ? labelSelectorFromMap(s) : undefined;
  },
  lifecycle: replicationControllerLifecycle,
};

export function replicationControllerController(concurrency: number): ControllerDefinition<ReplicationController> {
  return replicaController(REPLICATIONCONTROLLER, concurrency) as ControllerDefinition<ReplicationController>;
}
