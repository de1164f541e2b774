// The operators' topology (./operators-topology.ts) on the apiserver's embedded store.
import { runOperatorsTopology } from './operators-topology.js';

runOperatorsTopology('embedded');
