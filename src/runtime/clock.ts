/**
 * The one notion of time the runtime uses: the client layer's `Clock` (the runtime sits above the
 * client, so both share one definition). xstate's `SimulatedClock` satisfies it, so tests drive the
 * work queue, the controller machine and leader election with the same simulated clock the actors
 * use; production uses `systemClock`.
 */
export { systemClock, type Clock } from '../client/clock.js';
