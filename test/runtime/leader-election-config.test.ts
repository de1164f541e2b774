// Leader-election options: the spec's defaults, validation with clear errors, identity hostname_uuid.
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { leaderElectionConfig, LeaderElectionConfigError } from '../../src/runtime/leader-election/config.js';

test('defaults: endpointsleases in svc-system, lease 15s, renew deadline 10s, retry 2s', () => {
  const c = leaderElectionConfig({ resourceName: 'svc-controller-manager' });
  assert.equal(
    [c.lockType, c.resourceNamespace, c.leaseDurationMs, c.renewDeadlineMs, c.retryPeriodMs, c.releaseOnStop],
    ['endpointsleases', 'svc-system', 15_000, 10_000, 2_000, false],
  );
});

test('the identity is hostname_uuid and differs per elector', () => {
  const a = leaderElectionConfig({ resourceName: 'x' }).identity;
  const b = leaderElectionConfig({ resourceName: 'x' }).identity;
  assert.match(a, new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}_[0-9a-f-]{36}$`));
  assert.is.not(a, b);
});

test('a renew deadline longer than the lease duration is refused, naming both flags', () => {
  assert.throws(
    () => leaderElectionConfig({ resourceName: 'x', leaseDurationMs: 5_000, renewDeadlineMs: 10_000 }),
    (e: Error) =>
      e instanceof LeaderElectionConfigError &&
      e.message === '--leader-elect-renew-deadline (10s) must be less than or equal to --leader-elect-lease-duration (5s)',
  );
});

test('a renew deadline equal to the lease duration is allowed', () => {
  leaderElectionConfig({ resourceName: 'x', leaseDurationMs: 10_000, renewDeadlineMs: 10_000 });
});

test('a renew deadline not above 1.2 retry periods is refused', () => {
  assert.throws(() => leaderElectionConfig({ resourceName: 'x', renewDeadlineMs: 2_400 }), /must be greater than 1.2 × --leader-elect-retry-period \(2s\)/);
});

test('unknown lock types and non-positive durations are refused', () => {
  assert.throws(() => leaderElectionConfig({ resourceName: 'x', lockType: 'nodes' as never }), /"nodes" is not one of leases, endpoints, configmaps, endpointsleases, configmapsleases/);
  assert.throws(() => leaderElectionConfig({ resourceName: 'x', retryPeriodMs: 0 }), /--leader-elect-retry-period must be greater than zero/);
  assert.throws(() => leaderElectionConfig({ resourceName: '' }), /--leader-elect-resource-name must not be empty/);
});

test.run();
