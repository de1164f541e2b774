// The controller-host flags (`svc run`, `svc up`): the spec's "Leader election" and "API client
// options" defaults, --min-resync-period, and their validation.
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import {
  apiClientFlags, leaderElectionFlags, resolveApiClientOptions, resolveLeaderElectionOptions, resolveMinResyncPeriod, resyncFlags,
} from '../../src/cli/controller-host-options.js';
import { OptionsError } from '../../src/cli/common-options.js';
import { addFlags } from '../../src/cli/option-table.js';
import { createDaemonProgram } from '../../src/cli/program.js';
import { runCommand } from '../../src/cli/svc-run.js';
import { upCommand } from '../../src/cli/svc-up.js';

function parse(args: string[]) {
  const cmd = createDaemonProgram({ component: 'controller-manager', description: 'test' });
  cmd.configureOutput({ writeOut: () => {}, writeErr: () => {} });
  addFlags(cmd, [...leaderElectionFlags('svc-test'), ...apiClientFlags(), ...resyncFlags()]);
  cmd.parse(args, { from: 'user' });
  return cmd.opts();
}

test('defaults follow the spec tables', () => {
  const o = parse(['--master=https://127.0.0.1:6443']);
  assert.equal(resolveLeaderElectionOptions(o), {
    enabled: true,
    lockType: 'endpointsleases',
    resourceName: 'svc-test',
    resourceNamespace: 'svc-system',
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
  });
  assert.equal(resolveApiClientOptions(o), { master: 'https://127.0.0.1:6443', qps: 20, burst: 30, contentType: 'application/vnd.svc.protobuf' });
  assert.is(resolveMinResyncPeriod(o), 12 * 3600_000);
});

test('--help shows the defaults in the spec\'s notation', () => {
  for (const cmd of [runCommand(), upCommand()]) {
    const help = cmd.helpInformation();
    assert.match(help, /--leader-elect-lease-duration <duration>\s+How long non-leaders wait.*\(default: 15s\)/);
    assert.match(help, /--leader-elect-renew-deadline <duration>.*\(default: 10s\)/);
    assert.match(help, /--leader-elect-retry-period <duration>.*\(default: 2s\)/);
    assert.match(help, /--leader-elect-resource-lock <string>.*\(default: endpointsleases\)/);
    assert.match(help, /--min-resync-period <duration>.*\(default: 12h0m0s\)/);
  }
  assert.match(upCommand().helpInformation(), /--leader-elect-resource-name <string>.*\(default: svc-controller-manager\)/);
  assert.match(upCommand().helpInformation(), /--controller-module <string>/);
  assert.match(runCommand().helpInformation(), /--svc-api-qps <float32>.*\(default: 20\)/);
  assert.match(runCommand().helpInformation(), /--svc-api-content-type <string>.*\(default: application\/vnd\.svc\.protobuf\)/);
  assert.match(runCommand().helpInformation(), /--secure-port <int>.*\(default: 10257\)/);
});

test('validation: renew deadline <= lease duration, positive durations, checked even with --leader-elect=false', () => {
  const bad: Array<[string[], RegExp]> = [
    [['--leader-elect-renew-deadline=20s'], /--leader-elect-renew-deadline \(20s\) must be less than or equal to --leader-elect-lease-duration \(15s\)/],
    [['--leader-elect=false', '--leader-elect-retry-period=0s'], /--leader-elect-retry-period must be greater than zero/],
    [['--leader-elect-resource-namespace='], /--leader-elect-resource-namespace must not be empty/],
  ];
  for (const [args, message] of bad) {
    assert.throws(() => resolveLeaderElectionOptions(parse(args)), (e: unknown) => e instanceof OptionsError && message.test((e as Error).message));
  }
  assert.equal(resolveLeaderElectionOptions(parse(['--leader-elect=false'])), { enabled: false });
  assert.throws(() => resolveApiClientOptions(parse([])), /no API server given/);
  assert.throws(() => resolveApiClientOptions(parse(['--master=x', '--svc-api-burst=0'])), /--svc-api-burst: must be at least 1/);
  assert.throws(() => parse(['--svc-api-content-type=text/plain']), /expected one of application\/vnd\.svc\.protobuf, application\/json/);
});

test.run();
