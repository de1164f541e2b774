/** A machine with every construct a chart draws: nested, parallel, delayed, guarded, invoking, spawning, final. */
import { and, fromPromise, not, setup, spawnChild } from 'xstate';

export const demo = setup({
  types: { events: {} as { type: 'GO' } | { type: 'STOP' } | { type: 'PING' } | { type: 'RESET' } },
  actors: { fetcher: fromPromise(async () => 1), ticker: fromPromise(async () => 2) },
  guards: { ready: () => true, allowed: () => true },
  delays: { retry: 1000, jittered: () => 1234 },
  actions: { log: () => {}, startTicker: spawnChild('ticker', { id: 'tick' }) },
}).createMachine({
  id: 'demo',
  initial: 'idle',
  on: { RESET: '.idle' },
  states: {
    idle: {
      on: {
        GO: [
          { guard: 'ready', target: 'busy' },
          { guard: not('ready'), target: 'waiting' },
          { guard: and(['ready', 'allowed']), target: 'busy.fetching' },
          { guard: ({ event }) => event.type === 'GO', target: 'done' },
        ],
        PING: { actions: 'log' },
      },
      always: { guard: { type: 'allowed' }, target: 'waiting' },
    },
    waiting: { after: { 500: 'idle', retry: 'busy', jittered: 'idle' } },
    busy: {
      initial: 'fetching',
      entry: ['log', 'startTicker', spawnChild('ticker', { id: 'other', systemId: 'ticker-1' })],
      states: {
        fetching: {
          invoke: { id: 'load', src: 'fetcher', systemId: 'loader', onDone: 'loaded', onError: '#demo.failed' },
        },
        loaded: { type: 'final' },
      },
      onDone: 'both',
    },
    both: {
      type: 'parallel',
      states: {
        left: { initial: 'l1', states: { l1: { on: { GO: 'l2' } }, l2: {} } },
        right: { initial: 'r1', states: { r1: { on: { GO: 'r2' } }, r2: {} } },
      },
      on: { STOP: 'done' },
    },
    failed: { type: 'final' },
    done: { type: 'final' },
  },
});
