/**
 * The scheduler machine's own cost per pod: a fake Scheduler whose cycles decide at once and whose
 * bindings finish after `BIND_MS` (default 20 ms, so many are in flight), M pods.
 *   M=20000 node dist/bench/try-scheduler-machine.js
 */
import pino from 'pino';
import { createActor } from 'xstate';
import { schedulerMachine, type BindingWork, type CycleResult, type Scheduler } from '../machines/scheduler.js';

const M = Number(process.env['M'] ?? 20000);
const BIND_MS = Number(process.env['BIND_MS'] ?? 20);
let left = M;
let bound = 0;
let done!: () => void;
const finished = new Promise<void>((r) => (done = r));
let n = 0;
const fake: Scheduler = {
  logger: pino({ level: 'silent' }),
  startFeeding: (cb) => setImmediate(() => cb.onSynced()),
  stopFeeding: () => {},
  hasActivePods: () => left > 0,
  nodeCount: () => 1,
  scheduleOne: async (): Promise<CycleResult> => {
    if (left === 0) return { kind: 'idle' };
    left--;
    return { kind: 'scheduled', binding: { podUid: `uid-${n++}` } as BindingWork };
  },
  bind: () => new Promise<boolean>((r) => setTimeout(() => {
    bound++;
    if (bound === M) done();
    r(true);
  }, BIND_MS)),
  flushBackoff: () => 0,
  flushUnschedulable: () => 0,
};
const t0 = process.hrtime.bigint();
const actor = createActor(schedulerMachine, { input: { scheduler: fake, needsLeader: false } }).start();
await finished;
const us = Number(process.hrtime.bigint() - t0) / 1000 / M;
console.log(JSON.stringify({ pods: M, bindMs: BIND_MS, usPerPod: Math.round(us * 10) / 10 }));
actor.stop();
process.exit(0);
