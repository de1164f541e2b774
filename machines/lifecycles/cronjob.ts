/**
 * The lifecycle of a CronJob, as the cronjob controller (controllers/cronjob/) sees it on each
 * reconcile: its schedule, its status's lastScheduleTime, its running Jobs and the clock decide the
 * state, in the order below; the reconcile does that state's step and requeues itself at the next
 * scheduled time (the Jobs' watch events bring it back sooner).
 *
 *   invalidSchedule         spec.schedule does not parse (a value out of range): InvalidSchedule, nothing runs
 *   suspended               spec.suspend: nothing starts (finished Jobs are still pruned)
 *   missed                  the time(s) since the last run passed more than startingDeadlineSeconds ago: not started
 *   waiting                 no scheduled time due since the last run: requeued at the next one
 *   due                     a scheduled time is due (the most recent one; older missed ones are not run)
 *     starting              create its Job, `<cronjob>-<time>`
 *     replacing             concurrencyPolicy Replace and Jobs still run: delete them, then create
 *     skippingForbidden     concurrencyPolicy Forbid and a Job still runs: skip this time (JobAlreadyActive)
 *
 * More than 100 missed times (TooManyMissedTimes) is warned about by the rule that finds the due time,
 * in whatever state follows; the most recent time still runs. The history cleanup (finished Jobs
 * beyond successfulJobsHistoryLimit / failedJobsHistoryLimit) is done by every reconcile before the
 * state's step, in every state, so it is no state of its own.
 */
import { setup } from 'xstate';
import { defineLifecycle, type LifecycleStateMeta } from '../../src/runtime/lifecycle.js';

/** What the reconcile observed (controllers/cronjob/due.ts `cronJobFacts` computes it with the controller's rules). */
export interface CronJobFacts {
  /** Why spec.schedule does not parse; undefined when it does. */
  scheduleError: string | undefined;
  suspended: boolean;
  /** The most recent scheduled time due (ms) whose Job is not made yet, within startingDeadlineSeconds. */
  dueAt: number | undefined;
  /** Scheduled times since the last run (within the window); over 100 is TooManyMissedTimes. */
  missed: number;
  /** A time since the last run was not started within startingDeadlineSeconds (and none in the window is due). */
  missedDeadline: boolean;
  /** The time found due was already older than startingDeadlineSeconds (the established MissSchedule check). */
  tooLateAt: number | undefined;
  startingDeadlineSeconds: number | undefined;
  concurrencyPolicy: string;
  /** Jobs of this CronJob not finished. */
  running: number;
  lastScheduleTime: string | undefined;
  /** The next scheduled time after now (ms). */
  nextAt: number | undefined;
  now: number;
}

type Meta = LifecycleStateMeta<CronJobFacts>;
const meta = (m: Meta): Meta => m;
const next = (f: CronJobFacts) => (f.nextAt === undefined ? 'no next time within 5 years' : `next at ${new Date(f.nextAt).toISOString()} (in ${Math.max(0, Math.ceil((f.nextAt - f.now) / 1000))} s)`);
const due = (f: CronJobFacts) =>
  `${f.dueAt === undefined ? '' : new Date(f.dueAt).toISOString()} due${f.missed > 1 ? `, ${f.missed} times missed since the last run${f.missed > 100 ? ' (TooManyMissedTimes)' : ''}` : ''}`;

export const cronJobLifecycleMachine = setup({
  types: { events: {} as { type: 'observed'; facts: CronJobFacts } },
  guards: {
    invalidSchedule: ({ event }) => event.facts.scheduleError !== undefined,
    suspended: ({ event }) => event.facts.suspended,
    missedDeadline: ({ event }) => event.facts.missedDeadline,
    nothingDue: ({ event }) => event.facts.dueAt === undefined,
    forbidden: ({ event }) => event.facts.concurrencyPolicy === 'Forbid' && event.facts.running > 0,
    replace: ({ event }) => event.facts.concurrencyPolicy === 'Replace' && event.facts.running > 0,
  },
}).createMachine({
  id: 'cronjob',
  initial: 'observing',
  on: {
    observed: [
      { guard: 'invalidSchedule', target: '.invalidSchedule' },
      { guard: 'suspended', target: '.suspended' },
      { guard: 'missedDeadline', target: '.missed' },
      { guard: 'nothingDue', target: '.waiting' },
      { guard: 'forbidden', target: '.due.skippingForbidden' },
      { guard: 'replace', target: '.due.replacing' },
      { target: '.due.starting' },
    ],
  },
  states: {
    observing: { description: 'not reconciled yet' },
    invalidSchedule: {
      description: 'spec.schedule does not parse: InvalidSchedule, nothing runs until it is fixed',
      meta: meta({ holds: (f) => `invalid schedule: ${f.scheduleError ?? ''}` }),
    },
    suspended: {
      tags: ['resting'],
      description: 'spec.suspend: no Job starts (finished Jobs are still pruned to the history limits)',
      meta: meta({ holds: (f) => `spec.suspend is true; ${f.running} Job${f.running === 1 ? '' : 's'} still running` }),
    },
    missed: {
      description: 'the scheduled time(s) since the last run passed more than startingDeadlineSeconds ago: not started; waiting for the next',
      meta: meta({ holds: (f) => `missed: not started within startingDeadlineSeconds ${f.startingDeadlineSeconds ?? '?'} of its time; ${next(f)}` }),
    },
    waiting: {
      tags: ['resting'],
      description: 'no scheduled time due since the last run: requeued at the next one',
      meta: meta({ holds: (f) => `${next(f)}${f.lastScheduleTime ? `; last at ${f.lastScheduleTime}` : ''}` }),
    },
    due: {
      initial: 'starting',
      states: {
        starting: {
          description: 'creating the Job of the most recent due time, named by it (a time never runs twice)',
          meta: meta({ holds: (f) => `${due(f)}; concurrencyPolicy ${f.concurrencyPolicy}, ${f.running} running` }),
        },
        replacing: {
          description: 'concurrencyPolicy Replace: deleting the running Jobs, then creating the Job of the due time',
          meta: meta({ holds: (f) => `${due(f)}; ${f.running} Job${f.running === 1 ? '' : 's'} to replace` }),
        },
        skippingForbidden: {
          description: 'concurrencyPolicy Forbid: a Job still runs, so the due time is skipped (JobAlreadyActive) until it finishes',
          meta: meta({ holds: (f) => `${due(f)}; Forbid: ${f.running} Job${f.running === 1 ? '' : 's'} still running` }),
        },
      },
    },
  },
});

export const cronJobLifecycle = defineLifecycle<CronJobFacts>('cronjob', 'CronJob', cronJobLifecycleMachine);
