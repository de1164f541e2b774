/**
 * The project's own machines under stable names: what `svc charts` exports and docs/charts/
 * holds. Add a machine here when machines/ gains one.
 */
import type { AnyStateMachine } from 'xstate';
import { controllerMachine, leaderElectionMachine, workerMachine } from '../../../machines/index.js';

export interface NamedMachine {
  /** File-name-safe, stable: the chart files are `docs/charts/<name>.mmd` and `.svg`. */
  name: string;
  machine: AnyStateMachine;
  /** One line for listings. */
  description: string;
}

export function projectMachines(): NamedMachine[] {
  return [
    { name: 'leader-election', machine: leaderElectionMachine, description: 'leader election: follower, acquiring, leader (holding/renewing), lost' },
    { name: 'controller', machine: controllerMachine, description: 'a controller: waiting for leadership, syncing caches, running with resync, stopping' },
    { name: 'worker', machine: workerMachine, description: 'one worker of a controller: takes a key, reconciles it, settles the outcome' },
  ];
}
