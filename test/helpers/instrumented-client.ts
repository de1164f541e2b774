/**
 * Wraps a real ApiClient to (1) know when no call is in flight, so a simulated clock is only
 * advanced once the real API answered, and (2) cut this client off the network (every call fails
 * as a refused connection would) to test a partitioned leader.
 */
import type { ApiClient } from '../../src/client/types.js';
import { flush } from './sim.js';

export interface InstrumentedClient {
  client: ApiClient;
  /** Resolves once no call has been in flight for a couple of event-loop turns. */
  idle(): Promise<void>;
  cut(): void;
  heal(): void;
  calls: number;
}

export function instrumented(base: ApiClient): InstrumentedClient {
  let pending = 0;
  let isCut = false;
  const self: InstrumentedClient = {
    client: {} as ApiClient,
    calls: 0,
    async idle() {
      for (let quiet = 0; quiet < 2; ) {
        await flush(1);
        if (pending === 0) quiet++;
        else {
          quiet = 0;
          await new Promise((r) => setTimeout(r, 1));
        }
      }
    },
    cut: () => (isCut = true),
    heal: () => (isCut = false),
  };
  const methods = ['get', 'list', 'create', 'update', 'updateStatus', 'patch', 'delete', 'subresource'] as const;
  const client: Record<string, unknown> = { watch: base.watch.bind(base) };
  for (const m of methods) {
    client[m] = async (...args: unknown[]) => {
      self.calls++;
      if (isCut) throw Object.assign(new Error('connect ECONNREFUSED (partitioned by the test)'), { code: 'ECONNREFUSED' });
      pending++;
      try {
        return await (base[m] as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        pending--;
      }
    };
  }
  self.client = client as unknown as ApiClient;
  return self;
}
