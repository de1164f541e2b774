// The Priority and RuntimeClass admission plugins on their own (classes in memory): a pod's
// priority and preemption policy from its class or the global default, unknown names refused, one
// global default; a RuntimeClass's overhead and scheduling merged into the pod, conflicts refused.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod, PriorityClass, RuntimeClass } from '../../../src/api/generated/kinds.js';
import { podDefinition, priorityClassDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import { StatusError } from '../../../src/api/status.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../../src/apiserver/admission/chain.js';
import { priorityAdmission } from '../../../src/apiserver/admission/priority.js';
import { runtimeClassAdmission } from '../../../src/apiserver/admission/runtime-class.js';

const USER = { username: 'alice', groups: ['system:authenticated'] };
const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ apiVersion: 'scheduling.svc.io/v1', kind: 'PriorityClass', metadata: { name }, value, preemptionPolicy: 'PreemptLowerPriority', ...extra });
const pod = (spec: Pod['spec'] = {}, name = 'p'): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec } });

function attrs(def: AdmissionAttributes['def'], object: SvcObject, operation: AdmissionAttributes['operation'] = 'CREATE', oldObject?: SvcObject): AdmissionAttributes {
  return { operation, def, namespace: 'ns', name: object.metadata.name ?? '', subresource: '', object, ...(oldObject ? { oldObject } : {}), dryRun: false, user: USER };
}

async function admit(p: AdmissionPlugin, a: AdmissionAttributes): Promise<string | undefined> {
  assert.ok(p.handles(a));
  try {
    await p.mutate?.(a);
    await p.validate?.(a);
    return undefined;
  } catch (e) {
    assert.instance(e, StatusError);
    assert.is((e as StatusError).code, 403);
    return (e as Error).message;
  }
}

function priority(classes: PriorityClass[], nonPreemptingPriority = false): AdmissionPlugin {
  return priorityAdmission({ get: async (n) => classes.find((c) => c.metadata.name === n), list: async () => classes }, { nonPreemptingPriority });
}

test('Priority: the class gives spec.priority; no class, the global default (its name written); none, 0', async () => {
  const classes = [pc('high', 1000), pc('low', 10, { globalDefault: true }), pc('system-node-critical', 2000001000)];
  const p = priority(classes);
  const named = pod({ priorityClassName: 'high' });
  assert.is(await admit(p, attrs(podDefinition, named)), undefined);
  assert.is(named.spec!.priority, 1000);
  assert.is(named.spec!.preemptionPolicy, undefined, 'the policy is copied only with the NonPreemptingPriority gate');
  const critical = pod({ priorityClassName: 'system-node-critical' });
  await admit(p, attrs(podDefinition, critical));
  assert.is(critical.spec!.priority, 2000001000);
  const plain = pod();
  await admit(p, attrs(podDefinition, plain));
  assert.is(plain.spec!.priorityClassName, 'low');
  assert.is(plain.spec!.priority, 10);
  const none = pod();
  await admit(priority([pc('high', 1000)]), attrs(podDefinition, none));
  assert.is(none.spec!.priority, 0);
  assert.is(none.spec!.priorityClassName, undefined);
});

test('Priority: an unknown class and a disagreeing spec.priority or policy are refused', async () => {
  const p = priority([pc('waits', 100, { preemptionPolicy: 'Never' })], true);
  assert.is(await admit(p, attrs(podDefinition, pod({ priorityClassName: 'nope' }))), 'pods "p" is forbidden: no PriorityClass with name nope was found');
  assert.is(
    await admit(p, attrs(podDefinition, pod({ priorityClassName: 'waits', priority: 7 }))),
    'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 100 from the given PriorityClass name',
  );
  assert.is(
    await admit(p, attrs(podDefinition, pod({ priorityClassName: 'waits', preemptionPolicy: 'PreemptLowerPriority' }))),
    'pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
  );
  const same = pod({ priorityClassName: 'waits', priority: 100 });
  assert.is(await admit(p, attrs(podDefinition, same)), undefined, 'the same value is accepted');
  assert.is(same.spec!.preemptionPolicy, 'Never');
  // A generated name not yet chosen: the refusal names the prefix, as established.
  const generated: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { generateName: 'web-', namespace: 'ns' }, spec: { priorityClassName: 'nope' } };
  assert.is(await admit(p, attrs(podDefinition, generated)), 'pods "web-" is forbidden: no PriorityClass with name nope was found');
});

test('Priority: an update that leaves the priority out keeps the stored one', async () => {
  const p = priority([]);
  const next = pod({});
  await admit(p, attrs(podDefinition, next, 'UPDATE', pod({ priority: 5, preemptionPolicy: 'Never' })));
  assert.is(next.spec!.priority, 5);
  assert.is(next.spec!.preemptionPolicy, 'Never');
});

test('Priority: only one PriorityClass may be the global default', async () => {
  const p = priority([pc('first', 1, { globalDefault: true })]);
  assert.is(await admit(p, attrs(priorityClassDefinition, pc('second', 2, { globalDefault: true }))), 'priorityclasses.scheduling.svc.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist');
  assert.is(await admit(p, attrs(priorityClassDefinition, pc('first', 1, { globalDefault: true, description: 'x' }), 'UPDATE')), undefined, 'the default itself may change');
  assert.is(await admit(p, attrs(priorityClassDefinition, pc('third', 3))), undefined);
});

const rc = (name: string, extra: Partial<RuntimeClass> = {}): RuntimeClass => ({ apiVersion: 'node.svc.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: name, ...extra });

function runtime(classes: RuntimeClass[], podOverhead = true): AdmissionPlugin {
  return runtimeClassAdmission(async (n) => classes.find((c) => c.metadata.name === n), { podOverhead });
}

test('RuntimeClass: overhead set from the class, scheduling merged', async () => {
  const p = runtime([
    rc('kata', {
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'kata' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }, { key: 'gpu', operator: 'Equal', value: 'a', effect: 'NoSchedule' }] },
    }),
  ]);
  const po = pod({ runtimeClassName: 'kata', nodeSelector: { zone: 'a' }, tolerations: [{ key: 'sandbox', operator: 'Equal', value: 'x', effect: 'NoSchedule' }, { key: 'gpu', operator: 'Exists' }] });
  assert.is(await admit(p, attrs(podDefinition, po)), undefined);
  assert.equal(po.spec!.overhead, { cpu: '250m', memory: '120Mi' });
  assert.equal(po.spec!.nodeSelector, { zone: 'a', sandbox: 'kata' });
  // The pod's narrower `sandbox=x` is covered by the class's Exists; the class's gpu=a by the pod's gpu Exists.
  assert.equal(po.spec!.tolerations, [{ key: 'gpu', operator: 'Exists' }, { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }]);
  const same = pod({ runtimeClassName: 'kata', overhead: { cpu: '0.25', memory: '120Mi' } });
  assert.is(await admit(p, attrs(podDefinition, same)), undefined, 'the same overhead written otherwise is accepted');
});

test('RuntimeClass: unknown class, different overhead, overhead without a class one, selector conflict: refused', async () => {
  const p = runtime([rc('kata', { overhead: { podFixed: { cpu: '250m' } }, scheduling: { nodeSelector: { sandbox: 'kata' } } }), rc('plain')]);
  assert.is(await admit(p, attrs(podDefinition, pod({ runtimeClassName: 'gvisor' }))), 'pods "p" is forbidden: pod rejected: RuntimeClass "gvisor" not found');
  assert.is(await admit(p, attrs(podDefinition, pod({ runtimeClassName: 'kata', overhead: { cpu: '1' } }))), "pods \"p\" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
  assert.is(await admit(p, attrs(podDefinition, pod({ runtimeClassName: 'plain', overhead: { cpu: '1' } }))), 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  assert.is(await admit(p, attrs(podDefinition, pod({ overhead: { cpu: '1' } }))), 'pods "p" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  assert.is(
    await admit(p, attrs(podDefinition, pod({ runtimeClassName: 'kata', nodeSelector: { sandbox: 'runc' } }))),
    'pods "p" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = kata; pod.spec.nodeSelector[sandbox] = runc',
  );
  // Without the PodOverhead gate the overhead is neither set nor checked.
  const off = pod({ runtimeClassName: 'kata' });
  assert.is(await admit(runtime([rc('kata', { overhead: { podFixed: { cpu: '250m' } } })], false), attrs(podDefinition, off)), undefined);
  assert.is(off.spec!.overhead, undefined);
});

test.run();
