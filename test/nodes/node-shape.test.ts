// Node shapes from flags and from a YAML profile: names, capacity, labels, zones, taints; a bad
// profile is an error naming the field.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupFromFlags, NodeProfileError, nodeShapes, parseNodeProfile } from '../../src/nodes/index.js';

test('flags give one group spread over the zones, with the well-known labels', () => {
  const shapes = nodeShapes([groupFromFlags({ count: 4, namePrefix: 'n', cpu: '8' })]);
  assert.equal(shapes.map((s) => s.name), ['n-0', 'n-1', 'n-2', 'n-3']);
  assert.equal(shapes.map((s) => s.labels['topology.svc.io/zone']), ['zone-a', 'zone-b', 'zone-c', 'zone-a']);
  assert.is(shapes[0]!.labels['svc.io/hostname'], 'n-0');
  assert.is(shapes[0]!.labels['node.svc.io/instance-type'], 'sim.large');
  assert.equal(shapes[0]!.capacity, { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' });
});

test('a profile: several groups, extended resources, labels and taints; names numbered per prefix', () => {
  const groups = parseNodeProfile(`
nodes:
  - count: 2
    namePrefix: small
    cpu: 2
    memory: 8Gi
  - count: 1
    namePrefix: gpu
    zones: [zone-x]
    instanceType: sim.gpu
    extended: { example.com/gpu: 4 }
    labels: { tier: gpu }
    taints: [{ key: gpu, value: "true", effect: NoSchedule }]
`);
  const shapes = nodeShapes(groups);
  assert.equal(shapes.map((s) => s.name), ['small-0', 'small-1', 'gpu-0']);
  assert.is(shapes[0]!.capacity['cpu'], '2');
  const gpu = shapes[2]!;
  assert.is(gpu.capacity['example.com/gpu'], '4');
  assert.is(gpu.labels['tier'], 'gpu');
  assert.is(gpu.labels['topology.svc.io/zone'], 'zone-x');
  assert.equal(gpu.taints, [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }]);
});

test('bad profiles name the field', () => {
  const cases: Array<[string, RegExp]> = [
    ['nodes: 3', /must be a mapping with a list "nodes"/],
    ['nodes: [{ count: -1 }]', /nodes\[0\]\.count: must be a whole number/],
    ['nodes: [{ cpu: lots }]', /nodes\[0\]\.cpu: "lots" is not a quantity/],
    ['nodes: [{ colour: red }]', /nodes\[0\]\.colour: unknown field/],
    ['nodes: [{ namePrefix: Big_Nodes }]', /nodes\[0\]\.namePrefix/],
    ['nodes: [{ extended: { gpu: 1 } }]', /domain-prefixed resource name/],
    ['nodes: [{ taints: [{ key: a, effect: Sometimes }] }]', /taints\[0\]\.effect: must be one of NoSchedule, PreferNoSchedule, NoExecute/],
    ['nodes: [', /is not valid YAML/],
  ];
  for (const [text, message] of cases) {
    try {
      nodeShapes(parseNodeProfile(text));
      assert.unreachable(text);
    } catch (e) {
      if (e instanceof assert.Assertion) throw e;
      assert.instance(e, NodeProfileError, text);
      assert.match((e as Error).message, message, text);
    }
  }
});

test('two groups with one prefix continue its numbering instead of clashing', () => {
  const shapes = nodeShapes(parseNodeProfile('nodes: [{ count: 1 }, { count: 2, cpu: "8" }]'));
  assert.equal(shapes.map((s) => [s.name, s.capacity['cpu']]), [['sim-node-0', '4'], ['sim-node-1', '8'], ['sim-node-2', '8']]);
});

test.run();
