// EventRateLimit: token buckets per limit type and key, the established 429 (src/apiserver/admission/event-rate-limit.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { configMapDefinition, eventDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { eventRateLimit, parseEventRateLimitConfiguration } from '../../../src/apiserver/admission/event-rate-limit.js';
import { admit, attrsFor, refusal } from './plugin-harness.js';

function limits(...l: Record<string, unknown>[]) {
  return parseEventRateLimitConfiguration({ plugin: 'EventRateLimit', source: 'test.yaml', value: { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Configuration', limits: l } });
}

const event = (namespace: string, involved = 'pod-a', component = 'kubelet'): SvcObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: `e-${Math.random()}`, namespace },
  involvedObject: { kind: 'Pod', namespace, name: involved, uid: 'u1', apiVersion: 'v1' },
  source: { component, host: 'node-1' },
});

test('Namespace: burst events pass, the next is 429 with the established message; a second passes after 1/qps', async () => {
  let now = 1_000_000;
  const plugin = eventRateLimit(limits({ type: 'Namespace', qps: 2, burst: 3 }), () => now);
  for (let i = 0; i < 3; i++) await admit(plugin, attrsFor(eventDefinition, event('a')));
  const err = await refusal(admit(plugin, attrsFor(eventDefinition, event('a'))));
  assert.is(err.code, 429);
  assert.is(err.reason, 'TooManyRequests');
  assert.is(err.message, 'Too many requests: limit reached on type Namespace for key a');
  // Another namespace has its own bucket.
  await admit(plugin, attrsFor(eventDefinition, event('b')));
  now += 500;
  await admit(plugin, attrsFor(eventDefinition, event('a')));
  await refusal(admit(plugin, attrsFor(eventDefinition, event('a'))));
});

test('Server and User limits together: each spends its token, both refusals are reported', async () => {
  const now = 5_000;
  const plugin = eventRateLimit(limits({ type: 'Server', qps: 1, burst: 1 }, { type: 'User', qps: 1, burst: 1 }), () => now);
  await admit(plugin, attrsFor(eventDefinition, event('a')));
  const err = await refusal(admit(plugin, attrsFor(eventDefinition, event('b'))));
  assert.is(err.message, 'Too many requests: [limit reached on type Server for key , limit reached on type User for key alice]');
});

test('SourceAndObject keys by source and involved object; dry run, other kinds and deletes are not counted', async () => {
  const plugin = eventRateLimit(limits({ type: 'SourceAndObject', qps: 1, burst: 1 }), () => 0);
  await admit(plugin, attrsFor(eventDefinition, event('a', 'pod-a')));
  await admit(plugin, attrsFor(eventDefinition, event('a', 'pod-b')));
  const err = await refusal(admit(plugin, attrsFor(eventDefinition, event('a', 'pod-a'))));
  assert.is(err.message, 'Too many requests: limit reached on type SourceAndObject for key kubeletnode-1Podapod-au1v1');
  await admit(plugin, attrsFor(eventDefinition, event('a', 'pod-a'), { dryRun: true }));
  const cm: SvcObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'a' } };
  for (let i = 0; i < 3; i++) await admit(plugin, attrsFor(configMapDefinition, cm));
  assert.not.ok(plugin.handles(attrsFor(eventDefinition, event('a'), { operation: 'DELETE' })));
});

test('cacheSize: an evicted bucket comes back full', async () => {
  const plugin = eventRateLimit(limits({ type: 'Namespace', qps: 1, burst: 1, cacheSize: 1 }), () => 0);
  await admit(plugin, attrsFor(eventDefinition, event('a')));
  await refusal(admit(plugin, attrsFor(eventDefinition, event('a'))));
  await admit(plugin, attrsFor(eventDefinition, event('b')));
  await admit(plugin, attrsFor(eventDefinition, event('a')));
});

test.run();
