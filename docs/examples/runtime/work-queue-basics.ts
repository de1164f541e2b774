// The work queue on its own, on a simulated clock: deduplication, exclusivity, back-off.
import { SimulatedClock } from 'xstate';
import { ExponentialBackoffRateLimiter, WorkQueue } from 'svc';

export function workQueueBasics(): string[] {
  const log: string[] = [];
  const clock = new SimulatedClock();
  const queue = new WorkQueue({ name: 'demo', clock, rateLimiter: new ExponentialBackoffRateLimiter() });

  queue.add('default/a');
  queue.add('default/a'); // deduplicated
  log.push(`queued: ${queue.length}`); // queued: 1

  const key = queue.tryGet()!; // a worker takes it
  queue.add(key); // changed while being processed: not handed out again yet
  log.push(`while processing: ${queue.tryGet() ?? 'nothing'}`); // while processing: nothing
  queue.done(key); // ...and now it is queued again
  log.push(`after done: ${queue.tryGet()}`); // after done: default/a

  queue.addRateLimited(key); // failed: retry after 5 ms
  queue.done(key);
  clock.increment(4);
  log.push(`after 4 ms: ${queue.length}`); // after 4 ms: 0
  clock.increment(1);
  log.push(`after 5 ms: ${queue.length}`); // after 5 ms: 1
  return log;
}
