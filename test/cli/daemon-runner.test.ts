import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Command } from 'commander';
import { createDaemonProgram, runDaemon, superviseDaemon, type DaemonProcess } from '../../src/cli/program.js';

function fakeProcess(argv: string[]) {
  const handlers = new Map<string, () => void>();
  const exits: number[] = [];
  const errs: string[] = [];
  let exited: (code: number) => void = () => {};
  const firstExit = new Promise<number>((r) => (exited = r));
  const proc: DaemonProcess = {
    argv: ['node', 'daemon', ...argv],
    exit: (code) => {
      exits.push(code);
      exited(code);
    },
    writeErr: (line) => void errs.push(line),
    onSignal: (signal, handler) => void handlers.set(signal, handler),
  };
  return { proc, handlers, exits, errs, firstExit };
}

function program() {
  const p = createDaemonProgram({ component: 'scheduler', description: 'test' });
  p.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  return p;
}

test('SIGTERM awaits shutdown and exits 0', async () => {
  const f = fakeProcess(['--secure-port=0']);
  let shutDown = false;
  const running = await runDaemon({
    program: program(),
    process: f.proc,
    start: async () => ({
      shutdown: async () => {
        await new Promise((r) => setTimeout(r, 20));
        shutDown = true;
      },
    }),
  });
  assert.ok(running);
  f.handlers.get('SIGTERM')!();
  assert.is(await f.firstExit, 0);
  assert.ok(shutDown, 'shutdown finished before exit');
});

test('a second signal exits 1 at once', async () => {
  const f = fakeProcess([]);
  await runDaemon({ program: program(), process: f.proc, start: async () => ({ shutdown: () => new Promise<void>(() => {}) }) });
  f.handlers.get('SIGINT')!();
  assert.equal(f.exits, []);
  f.handlers.get('SIGTERM')!();
  assert.equal(f.exits, [1]);
});

test('a start-up error prints one line and exits 1', async () => {
  const f = fakeProcess([]);
  const r = await runDaemon({
    program: program(),
    process: f.proc,
    start: async () => {
      throw new Error('listen EADDRINUSE: address already in use 127.0.0.1:10259\n    at somewhere');
    },
  });
  assert.is(r, undefined);
  assert.equal(f.exits, [1]);
  assert.equal(f.errs, ['scheduler: error: listen EADDRINUSE: address already in use 127.0.0.1:10259\n']);
});

test('a bad flag exits 1 without starting', async () => {
  const f = fakeProcess(['--nope']);
  let started = false;
  await runDaemon({ program: program(), process: f.proc, start: async () => ((started = true), { shutdown: async () => {} }) });
  assert.equal(f.exits, [1]);
  assert.not.ok(started);
});

test('--version exits 0 without starting', async () => {
  const f = fakeProcess(['--version']);
  let started = false;
  await runDaemon({ program: program(), process: f.proc, start: async () => ((started = true), { shutdown: async () => {} }) });
  assert.equal(f.exits, [0]);
  assert.not.ok(started);
});

test('ctx.fail ends a running daemon at once with its code and one line', async () => {
  const f = fakeProcess([]);
  let shutDown = false;
  await runDaemon({
    program: program(),
    process: f.proc,
    start: async (_p, ctx) => {
      setTimeout(() => ctx.fail(1, 'leader election lost'), 10);
      return { shutdown: async () => void (shutDown = true) };
    },
  });
  assert.is(await f.firstExit, 1);
  assert.equal(f.errs, ['scheduler: error: leader election lost\n']);
  assert.not.ok(shutDown, 'no graceful shutdown');
});

test('a subcommand is named with its parent in errors (superviseDaemon)', async () => {
  const f = fakeProcess([]);
  const parent = new Command('svc');
  const sub = createDaemonProgram({ component: 'scheduler', name: 'run', displayName: 'svc run', description: 'test' });
  sub.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  parent.addCommand(sub);
  await superviseDaemon({ program: sub, process: f.proc, start: async () => { throw new Error('no API server given'); } });
  assert.equal(f.exits, [1]);
  assert.equal(f.errs, ['svc run: error: no API server given\n']);
});

test.run();
