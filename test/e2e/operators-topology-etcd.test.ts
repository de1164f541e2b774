// The operators' topology (./operators-topology.ts) on a real etcd started for it (/usr/bin/etcd).
import { runOperatorsTopology } from './operators-topology.js';

runOperatorsTopology('etcd');
