// A simulated node's pod addresses (src/nodes/pod-ip-pool.ts): from its podCIDR(s) once it has
// them (both families when dual-stack), never one in use on the node, the fallback /24 without.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PodIPPool } from '../../src/nodes/pod-ip-pool.js';

test('without a podCIDR: the node\'s own fallback /24, .2 to .254', () => {
  const pool = new PodIPPool(1);
  assert.equal(pool.cidrs, ['10.244.1.0/24']);
  assert.equal(pool.take(), ['10.244.1.2']);
  const all = new Set<string>();
  for (let ip = pool.take(); ip; ip = pool.take()) all.add(ip[0]!);
  assert.is(all.size, 252, '.3 to .254');
  assert.not.ok(all.has('10.244.1.255') || all.has('10.244.1.1') || all.has('10.244.1.0'));
});

test('with a podCIDR: addresses inside it, none twice while in use, a freed one after the others', () => {
  const pool = new PodIPPool(0);
  pool.setCidrs(['10.9.4.0/29']); // .2 to .6
  const got = [pool.take()![0], pool.take()![0], pool.take()![0]];
  assert.equal(got, ['10.9.4.2', '10.9.4.3', '10.9.4.4']);
  pool.give(['10.9.4.3']);
  assert.equal([pool.take()![0], pool.take()![0], pool.take()![0]], ['10.9.4.5', '10.9.4.6', '10.9.4.3']);
  assert.is(pool.take(), undefined, 'exhausted: nothing rather than an address in use');
});

test('dual-stack: one address of each family, primary first', () => {
  const pool = new PodIPPool(0);
  pool.setCidrs(['fd00:10:244:3::/64', '10.244.3.0/24']);
  assert.equal(pool.take(), ['fd00:10:244:3::2', '10.244.3.2']);
  assert.equal(pool.take(), ['fd00:10:244:3::3', '10.244.3.3']);
});

test('a podCIDR arriving while pods run: their addresses inside it stay taken', () => {
  const pool = new PodIPPool(0); // fallback 10.244.0.0/24
  const early = [pool.take()![0]!, pool.take()![0]!];
  assert.equal(early, ['10.244.0.2', '10.244.0.3']);
  pool.setCidrs(['10.244.0.0/24']); // the very /24 the controller hands out first
  const later = new Set<string>();
  for (let ip = pool.take(); ip; ip = pool.take()) later.add(ip[0]!);
  assert.not.ok(later.has('10.244.0.2') || later.has('10.244.0.3'));
  assert.is(later.size, 251);
  pool.give([early[0]!]);
  assert.equal(pool.take(), ['10.244.0.2']);
});

test.run();
