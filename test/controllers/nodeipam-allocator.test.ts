// The nodeipam controller's allocator without I/O (controllers/nodeipam/range-allocator.ts and
// cidr-set.ts): no CIDR twice over 1,000 nodes, release and reuse, a full range, dual-stack, the
// service range kept out, a restart rebuilding the bitmap from the nodes' podCIDRs, and the
// established option checks of src/cli/controller-manager-options.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CidrSet, CidrSetError } from '../../controllers/nodeipam/cidr-set.js';
import { NodeCidrAllocator } from '../../controllers/nodeipam/range-allocator.js';
import { Bitmap } from '../../src/api/net/bitmap.js';
import { parseCidr, cidrsOverlap } from '../../src/api/net/ip-address.js';
import { createControllerManagerProgram, resolveControllerSettings } from '../../src/cli/controller-manager-options.js';

const cidrsOf = (r: ReturnType<NodeCidrAllocator['allocate']>) => {
  if ('full' in r) throw new Error(`full: ${r.full}`);
  return r.cidrs;
};

test('1,000 nodes get 1,000 distinct /24s, all inside the cluster CIDR and none overlapping', () => {
  const a = new NodeCidrAllocator(['10.0.0.0/8'], [24]);
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const [c] = cidrsOf(a.allocate(`n${i}`, `u${i}`));
    assert.ok(!seen.has(c!), `${c} handed out twice`);
    seen.add(c!);
    assert.match(c!, /^10\.\d+\.\d+\.0\/24$/);
  }
  assert.is(a.sets[0]!.allocated, 1000);
  assert.is(a.nodeCount, 1000);
  // Distinct strings of one mask inside one /8 cannot overlap, but check the parsed ranges anyway on a sample.
  const list = [...seen].slice(0, 200).map((c) => parseCidr(c)!);
  for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) assert.not.ok(cidrsOverlap(list[i]!, list[j]!));
});

test('a released CIDR is free again, and handed out after the others (round robin), never while held', () => {
  const a = new NodeCidrAllocator(['10.244.0.0/22'], [24]); // 4 CIDRs
  const got = ['a', 'b', 'c'].map((n) => cidrsOf(a.allocate(n, n))[0]!);
  assert.equal(got, ['10.244.0.0/24', '10.244.1.0/24', '10.244.2.0/24']);
  assert.equal(a.release('b'), ['10.244.1.0/24']);
  assert.equal(a.release('b'), [], 'twice releases nothing');
  assert.equal(cidrsOf(a.allocate('d', 'd')), ['10.244.3.0/24'], 'the next candidate first');
  assert.equal(cidrsOf(a.allocate('e', 'e')), ['10.244.1.0/24'], 'then the released one');
  assert.ok('full' in a.allocate('f', 'f'));
});

test('a full range: nothing is taken, the full cluster CIDR is named; a release makes room', () => {
  const a = new NodeCidrAllocator(['10.1.0.0/23'], [24]);
  cidrsOf(a.allocate('a', 'a'));
  cidrsOf(a.allocate('b', 'b'));
  assert.equal(a.allocate('c', 'c'), { full: '10.1.0.0/23' });
  assert.is(a.held('c'), undefined);
  a.release('a');
  assert.equal(cidrsOf(a.allocate('c', 'c')), ['10.1.0.0/24']);
});

test('dual-stack: one CIDR of each family per node, primary first; a full family takes neither', () => {
  const a = new NodeCidrAllocator(['10.2.0.0/23', 'fd00:10:244::/63'], [24, 64]);
  assert.equal(cidrsOf(a.allocate('a', 'a')), ['10.2.0.0/24', 'fd00:10:244::/64']);
  assert.equal(cidrsOf(a.allocate('b', 'b')), ['10.2.1.0/24', 'fd00:10:244:1::/64']);
  assert.equal(a.allocate('c', 'c'), { full: '10.2.0.0/23' });
  a.release('a');
  assert.equal(cidrsOf(a.allocate('c', 'c')), ['10.2.0.0/24', 'fd00:10:244::/64']);
  // IPv6 primary works the same way.
  const b = new NodeCidrAllocator(['fd00::/48', '10.3.0.0/16'], [64, 24]);
  assert.equal(cidrsOf(b.allocate('x', 'x')), ['fd00::/64', '10.3.0.0/24']);
});

test('the service range inside the cluster CIDR is never handed to a node', () => {
  const a = new NodeCidrAllocator(['10.0.0.0/22'], [24], ['10.0.1.0/24']);
  const got = [cidrsOf(a.allocate('a', 'a'))[0], cidrsOf(a.allocate('b', 'b'))[0], cidrsOf(a.allocate('c', 'c'))[0]];
  assert.not.ok(got.includes('10.0.1.0/24'), got.join(' '));
  assert.ok('full' in a.allocate('d', 'd'));
  // A service range larger than one node CIDR takes every one it overlaps.
  const b = new NodeCidrAllocator(['10.0.0.0/22'], [24], ['10.0.0.0/23']);
  assert.equal(cidrsOf(b.allocate('a', 'a')), ['10.0.2.0/24']);
});

test('restart: a new allocator fed the nodes\' podCIDRs never hands those out again', () => {
  const first = new NodeCidrAllocator(['10.244.0.0/16'], [24]);
  const nodes = Array.from({ length: 100 }, (_, i) => ({ name: `n${i}`, uid: `u${i}`, cidrs: cidrsOf(first.allocate(`n${i}`, `u${i}`)) }));
  const restarted = new NodeCidrAllocator(['10.244.0.0/16'], [24]);
  for (const n of nodes) assert.equal(restarted.occupy(n.name, n.uid, n.cidrs), []);
  const held = new Set(nodes.map((n) => n.cidrs[0]));
  for (let i = 0; i < 156; i++) assert.not.ok(held.has(cidrsOf(restarted.allocate(`new${i}`, `new${i}`))[0]), 'a CIDR in use handed out again');
  assert.ok('full' in restarted.allocate('one-too-many', 'x'));
  assert.ok(restarted.holds('n5', 'u5'));
  assert.not.ok(restarted.holds('n5', 'other-uid'), 'a node of the same name with another uid is another node');
});

test('existing podCIDRs out of range, at a missing index or already taken are reported (and not freed later)', () => {
  const a = new NodeCidrAllocator(['10.244.0.0/16'], [24]);
  assert.equal(a.occupy('in', 'u1', ['10.244.7.0/24']), []);
  const out = a.occupy('out', 'u2', ['192.168.0.0/24']);
  assert.is(out.length, 1);
  assert.match(out[0]!, 'is out the range of cluster cidr 10.244.0.0/16');
  assert.match(a.occupy('extra', 'u3', ['10.244.8.0/24', 'fd00::/64'])[0]!, 'at index:1 that does not exist in cluster cidrs configuration');
  assert.match(a.occupy('dup', 'u4', ['10.244.7.0/24'])[0]!, 'already taken');
  a.release('dup');
  assert.ok(a.sets[0]!.isTaken('10.244.7.0/24'), "releasing the duplicate keeps the first holder's CIDR taken");
});

test('CidrSet: the established limits and errors', () => {
  assert.throws(() => new CidrSet('10.0.0.0/24', 16), (e: unknown) => e instanceof CidrSetError && /less than or equal/.test(e.message));
  assert.throws(() => new CidrSet('fd00::/32', 64), (e: unknown) => e instanceof CidrSetError && /node CIDR size is too big/.test(e.message));
  assert.throws(() => new CidrSet('nope', 24), (e: unknown) => e instanceof CidrSetError);
  const s = new CidrSet('10.5.0.0/30', 32);
  assert.is(s.maxCIDRs, 4);
  assert.equal([s.allocateNext(), s.allocateNext(), s.allocateNext(), s.allocateNext(), s.allocateNext()], ['10.5.0.0/32', '10.5.0.1/32', '10.5.0.2/32', '10.5.0.3/32', undefined]);
  assert.throws(() => s.occupy('10.6.0.0/24'), /out the range/);
});

test('Bitmap.nextFree: the first free at or after the candidate, wrapping; undefined when full', () => {
  const b = new Bitmap(20);
  for (let i = 0; i < 20; i++) if (i !== 3 && i !== 17) b.set(i);
  assert.is(b.nextFree(5), 17);
  assert.is(b.nextFree(18), 3);
  b.set(3);
  b.set(17);
  assert.is(b.nextFree(0), undefined);
});

const settings = (args: string[]) => {
  const cmd = createControllerManagerProgram();
  cmd.exitOverride();
  cmd.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  cmd.parse(args, { from: 'user' });
  return resolveControllerSettings(cmd.opts());
};

test('options: resolved per family, the established refusals by flag', () => {
  const one = settings(['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16']).config;
  assert.equal([one.allocateNodeCidrs, one.clusterCidrs, one.nodeCidrMaskSizes], [true, ['10.244.0.0/16'], [24]]);
  assert.equal(settings(['--allocate-node-cidrs', '--cluster-cidr=fd00::/48']).config.nodeCidrMaskSizes, [64]);
  assert.equal(settings(['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8', '--node-cidr-mask-size=26']).config.nodeCidrMaskSizes, [26]);
  const dual = settings(['--allocate-node-cidrs', '--cluster-cidr=10.244.0.0/16,fd00::/48', '--feature-gates=IPv6DualStack=true', '--node-cidr-mask-size-ipv4=25']).config;
  assert.equal([dual.clusterCidrs, dual.nodeCidrMaskSizes], [['10.244.0.0/16', 'fd00::/48'], [25, 64]]);
  assert.is(settings([]).config.allocateNodeCidrs, false);
  // svc up: --service-cluster-ip-range is the API server's too, so it needs no --allocate-node-cidrs there.
  const cmd = createControllerManagerProgram();
  cmd.exitOverride();
  cmd.parse(['--service-cluster-ip-range=10.96.0.0/12'], { from: 'user' });
  assert.is(resolveControllerSettings(cmd.opts(), { sharedServiceRange: true }).config.allocateNodeCidrs, false);
  const refused: [string[], RegExp][] = [
    [['--allocate-node-cidrs'], /Must specify --cluster-cidr if --allocate-node-cidrs is set/],
    [['--cluster-cidr=10.0.0.0/8'], /need --allocate-node-cidrs=true/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8', '--cidr-allocator-type=CloudAllocator'], /CloudAllocator: the simulated cloud \(cloudy\) allocates no node CIDRs/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/25'], /mask size of cluster CIDR must be less than or equal to --node-cidr-mask-size/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8,fd00::/48'], /dualstack feature is not enabled/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8,10.1.0.0/16', '--feature-gates=IPv6DualStack=true'], /not configured as dual stack/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8,fd00::/48', '--feature-gates=IPv6DualStack=true', '--node-cidr-mask-size=24'], /not allowed with dual-stack clusters/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8', '--node-cidr-mask-size=24', '--node-cidr-mask-size-ipv4=25'], /not allowed if --node-cidr-mask-size is set/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8', '--node-cidr-mask-size-ipv6=80'], /not allowed for a single-stack IPv4 cluster/],
    [['--allocate-node-cidrs', '--cluster-cidr=fd00::/32'], /node CIDR size is too big/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/33'], /invalid CIDR address/],
    [['--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8', '--service-cluster-ip-range=bad'], /--service-cluster-ip-range: invalid CIDR address/],
  ];
  for (const [args, re] of refused) assert.throws(() => settings(args), re, args.join(' '));
});

test.run();
