// Renewal timeliness on a simulated clock with an in-memory lock: a renewal whose timer fires late
// (the event loop was busy: here, the clock jumps past the due time) is logged as a late renewal
// with the event-loop delay, and counted in the election's live facts; on-time renewals are not.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, SimulatedClock } from 'xstate';
import { leaderElectionMachine } from '../../machines/leader-election.js';
import { LIVE_FACTS } from '../../src/runtime/inspection/live-facts.js';
import { leaderElectionConfig } from '../../src/runtime/leader-election/config.js';
import type { LeaderElectionRecord, ObservedRecord, ResourceLock } from '../../src/runtime/leader-election/record.js';
import { LATE_RENEWAL_MS, RenewalTiming } from '../../src/runtime/leader-election/renewal-timing.js';
import { capturedLogger } from '../helpers/sim.js';

/** A lock in memory: always answers at once. */
class MemoryLock implements ResourceLock {
  private record: LeaderElectionRecord | undefined;
  private version = 0;
  constructor(readonly identity: string) {}
  describe(): string {
    return 'memory/lock';
  }
  async get(): Promise<ObservedRecord | undefined> {
    return this.record ? { record: { ...this.record }, raw: String(this.version) } : undefined;
  }
  async create(record: LeaderElectionRecord): Promise<void> {
    this.record = { ...record };
    this.version++;
  }
  async update(record: LeaderElectionRecord): Promise<void> {
    this.record = { ...record };
    this.version++;
  }
}

const settle = () => new Promise((r) => setImmediate(r));

test('RenewalTiming: late past LATE_RENEWAL_MS by timer or attempt time, counted; facts carry the event-loop delay', () => {
  const t = new RenewalTiming();
  t.timerFired(100);
  assert.is(t.attemptEnded(50, 1_000), undefined);
  t.timerFired(LATE_RENEWAL_MS);
  assert.is(t.attemptEnded(20, 2_000), LATE_RENEWAL_MS + 20);
  t.timerFired(0);
  assert.is(t.attemptEnded(LATE_RENEWAL_MS + 5, undefined), LATE_RENEWAL_MS + 5);
  const facts = t[LIVE_FACTS]();
  assert.is(facts['lateRenewals'], 2);
  assert.is(facts['maxLateMs'], LATE_RENEWAL_MS + 20);
  assert.is(facts['lastRenewalAt'], new Date(2_000).toISOString());
  assert.type(facts['eventLoopLagMaxMs'], 'number');
  assert.type(facts['eventLoopLagP99Ms'], 'number');
});

test('a renewal whose timer fires 1.5 s late is logged as late and counted; on-time ones are not', async () => {
  const clock = new SimulatedClock();
  clock.set(1_700_000_000_000);
  const { logger, records } = capturedLogger();
  const actor = createActor(leaderElectionMachine, {
    clock,
    input: {
      lock: new MemoryLock('me'),
      config: leaderElectionConfig({ resourceName: 'x', identity: 'me' }),
      logger,
      clock,
      random: () => 0,
    },
  });
  actor.start();
  await settle();
  assert.ok(actor.getSnapshot().matches('leader'));
  // Three renewals on time (every 2 s retry period).
  for (let i = 0; i < 3; i++) {
    for (let ms = 0; ms < 2_000; ms += 100) {
      clock.increment(100);
      await settle();
    }
  }
  const late = () => records.filter((r) => r['msg'] === 'leader election: late renewal');
  assert.is(late().length, 0, JSON.stringify(records.slice(-3)));
  // The event loop "stalls": the clock jumps 3.5 s at once, 1.5 s past the renewal's due time.
  clock.increment(3_500);
  await settle();
  await settle();
  assert.ok(actor.getSnapshot().matches('leader'), 'still leader: 3.5 s is within the 10 s renew deadline');
  assert.is(late().length, 1);
  assert.is(late()[0]!['timerLateMs'], 1_500);
  assert.ok(typeof (late()[0]!['eventLoopLag'] as { maxMs: number }).maxMs === 'number');
  const facts = actor.getSnapshot().context.timing[LIVE_FACTS]();
  assert.is(facts['lateRenewals'], 1);
  assert.is(facts['lastTimerLateMs'], 1_500);
  actor.stop();
});

test.run();
