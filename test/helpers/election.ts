/**
 * Two (or more) leader-election machines on one simulated clock against the real apiserver, and
 * the lock's history as seen by a real watch.
 */
import type { Subscription } from 'rxjs';
import { createActor, SimulatedClock } from 'xstate';
import { leaderElectionMachine, type LeaderElectionActor, type LeaderElectionCallbacks, type StoppedLeadingReason } from '../../machines/leader-election.js';
import type { SvcObject } from '../../src/api/types.js';
import type { ApiClient } from '../../src/client/types.js';
import { leaderElectionConfig, type LeaderElectionConfig } from '../../src/runtime/leader-election/config.js';
import { newResourceLock } from '../../src/runtime/leader-election/new-lock.js';
import { LEASES } from '../../src/runtime/resource-refs.js';
import { instrumented, type InstrumentedClient } from './instrumented-client.js';
import { capturedLogger } from './sim.js';

export interface Elector {
  identity: string;
  actor: LeaderElectionActor;
  net: InstrumentedClient;
  /** Simulated times at which it started and stopped leading. */
  started: number[];
  stopped: Array<{ at: number; reason: StoppedLeadingReason }>;
  isLeader(): boolean;
}

export class ElectionHarness {
  readonly clock = new SimulatedClock();
  readonly electors: Elector[] = [];
  /** Holder and transitions of every version of the Lease, in order. */
  readonly history: Array<{ holder: string; transitions: number; renewTime: string; acquireTime: string }> = [];
  private sub: Subscription | undefined;

  constructor(
    private readonly makeClient: () => ApiClient,
    readonly name: string,
    readonly namespace = 'svc-system',
  ) {
    // Real epoch times, so record timestamps read naturally; the simulated clock moves from here.
    this.clock.set(Date.now());
  }

  watchHistory(): void {
    this.sub = this.makeClient()
      .watch(LEASES, { namespace: this.namespace, fieldSelector: `metadata.name=${this.name}` })
      .subscribe({ error: () => {}, next: (ev) => {
        const spec = ((ev.object as SvcObject)['spec'] ?? {}) as Record<string, string | number | undefined>;
        this.history.push({
          holder: String(spec['holderIdentity'] ?? ''),
          transitions: Number(spec['leaseTransitions'] ?? 0),
          renewTime: String(spec['renewTime'] ?? ''),
          acquireTime: String(spec['acquireTime'] ?? ''),
        });
      } });
  }

  /** Waits (real time, up to 10 s) until the watched history satisfies `pred`. */
  async historyWhere(pred: (h: ElectionHarness['history']) => boolean): Promise<void> {
    for (const deadline = Date.now() + 10_000; !pred(this.history); ) {
      if (Date.now() > deadline) throw new Error(`lock history never matched: ${JSON.stringify(this.history)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  add(identity: string, over: Partial<LeaderElectionConfig> = {}, callbacks: Pick<LeaderElectionCallbacks, 'stepDown'> = {}): Elector {
    const config = leaderElectionConfig({ resourceName: this.name, resourceNamespace: this.namespace, lockType: 'leases', identity, ...over });
    const net = instrumented(this.makeClient());
    const lock = newResourceLock(config.lockType, net.client, { namespace: config.resourceNamespace, name: config.resourceName, identity });
    const e: Elector = {
      identity,
      net,
      started: [],
      stopped: [],
      actor: undefined as unknown as LeaderElectionActor,
      // A stopped (crashed) actor keeps its last state value; it leads nothing.
      isLeader: () => e.actor.getSnapshot().status === 'active' && e.actor.getSnapshot().matches('leader'),
    };
    e.actor = createActor(leaderElectionMachine, {
      clock: this.clock,
      input: {
        lock,
        config,
        logger: capturedLogger().logger,
        clock: this.clock,
        random: () => 0,
        onStartedLeading: () => e.started.push(this.clock.now()),
        onStoppedLeading: (reason) => e.stopped.push({ at: this.clock.now(), reason }),
        ...callbacks,
      },
    });
    this.electors.push(e);
    return e;
  }

  async settle(): Promise<void> {
    for (const e of this.electors) await e.net.idle();
    // A finished call may have started the next one (get, then update).
    for (const e of this.electors) await e.net.idle();
  }

  /** Advances by `ms` in `stepMs` steps; after each, checks no two electors lead at once. */
  async advance(ms: number, stepMs = 100, until?: () => boolean): Promise<void> {
    for (let t = 0; t < ms; t += stepMs) {
      this.clock.increment(stepMs);
      await this.settle();
      const leaders = this.electors.filter((e) => e.isLeader());
      if (leaders.length > 1) throw new Error(`two leaders at ${this.clock.now()}: ${leaders.map((l) => l.identity).join(', ')}`);
      if (until?.()) return;
    }
  }

  close(): void {
    this.sub?.unsubscribe();
    for (const e of this.electors) e.actor.stop();
  }
}
