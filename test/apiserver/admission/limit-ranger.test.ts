// The LimitRanger admission plugin on its own (LimitRanges in memory): defaults with the
// annotation, min/max/ratio per Container, Pod and PersistentVolumeClaim, the established messages.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Container, LimitRange, Pod } from '../../../src/api/generated/kinds.js';
import { limitRangeDefinition, persistentVolumeClaimDefinition, podDefinition } from '../../../src/api/kinds/index.js';
import type { SvcObject } from '../../../src/api/types.js';
import type { AdmissionAttributes } from '../../../src/apiserver/admission/chain.js';
import { ANNOTATION_LIMIT_RANGER, limitRanger } from '../../../src/apiserver/admission/limit-ranger.js';
import { StatusError } from '../../../src/api/status.js';

const USER = { username: 'alice', groups: ['system:authenticated'] };
const range = (limits: NonNullable<LimitRange['spec']>['limits']): LimitRange => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'ns' }, spec: { limits } });

function plugin(ranges: LimitRange[], live: LimitRange[] = []) {
  let liveCalls = 0;
  const p = limitRanger({ cached: async () => ranges, live: async () => (liveCalls++, live) });
  return { p, liveCalls: () => liveCalls };
}

const pod = (containers: Container[], initContainers?: Container[]): Pod =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers, ...(initContainers ? { initContainers } : {}) } }) as Pod;

function attrs(def: AdmissionAttributes['def'], object: SvcObject, operation: AdmissionAttributes['operation'] = 'CREATE'): AdmissionAttributes {
  return { operation, def, namespace: 'ns', name: object.metadata.name ?? '', subresource: '', object, dryRun: false, user: USER };
}

async function admit(p: ReturnType<typeof plugin>['p'], a: AdmissionAttributes): Promise<string | undefined> {
  if (!p.handles(a)) return 'not handled';
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

test('defaults: requests and limits the containers lack, the annotation naming each', async () => {
  const { p } = plugin([range([{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }])]);
  const po = pod([{ name: 'app', image: 'x', resources: { limits: { memory: '1Gi' } } }], [{ name: 'init', image: 'x' }]);
  assert.is(await admit(p, attrs(podDefinition, po)), undefined);
  const [app, init] = [po.spec!.containers![0]!, po.spec!.initContainers![0]!];
  assert.equal(app.resources, { limits: { memory: '1Gi', cpu: '500m' }, requests: { cpu: '100m' } });
  assert.equal(init.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m' } });
  assert.is(po.metadata.annotations?.[ANNOTATION_LIMIT_RANGER], 'LimitRanger plugin set: cpu request for container app; cpu limit for container app; cpu request for init container init; cpu, memory limit for init container init');
});

test('Container min/max/ratio: the established messages, all of a range at once', async () => {
  const { p } = plugin([range([{ type: 'Container', max: { cpu: '1' }, min: { memory: '64Mi' }, maxLimitRequestRatio: { cpu: '2' } }])]);
  const over = pod([{ name: 'app', image: 'x', resources: { limits: { cpu: '2', memory: '128Mi' }, requests: { cpu: '500m', memory: '128Mi' } } }]);
  assert.is(await admit(p, attrs(podDefinition, over)), 'pods "p" is forbidden: [maximum cpu usage per Container is 1, but limit is 2, cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000]');
  const noLimit = pod([{ name: 'app', image: 'x', resources: { requests: { cpu: '500m', memory: '32Mi' } } }]);
  assert.is(
    await admit(p, attrs(podDefinition, noLimit)),
    'pods "p" is forbidden: [minimum memory usage per Container is 64Mi, but request is 32Mi, maximum cpu usage per Container is 1.  No limit is specified, cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0]',
  );
  const ok = pod([{ name: 'app', image: 'x', resources: { limits: { cpu: '1000m', memory: '64Mi' }, requests: { cpu: '600m', memory: '64Mi' } } }]);
  assert.is(await admit(p, attrs(podDefinition, ok)), undefined, '1000m is 1: within the max');
});

test('Pod max: containers summed, init containers count where larger', async () => {
  const { p } = plugin([range([{ type: 'Pod', max: { memory: '1Gi' } }])]);
  const two = pod([{ name: 'a', image: 'x', resources: { limits: { memory: '600Mi' } } }, { name: 'b', image: 'x', resources: { limits: { memory: '600Mi' } } }]);
  assert.is(await admit(p, attrs(podDefinition, two)), 'pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 1200Mi');
  const bigInit = pod([{ name: 'a', image: 'x', resources: { limits: { memory: '100Mi' } } }], [{ name: 'i', image: 'x', resources: { limits: { memory: '2Gi' } } }]);
  assert.is(await admit(p, attrs(podDefinition, bigInit)), 'pods "p" is forbidden: maximum memory usage per Pod is 1Gi, but limit is 2Gi');
});

test('PersistentVolumeClaim min/max on the requested storage, on create and update', async () => {
  const { p } = plugin([range([{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }])]);
  const claim = (storage: string): SvcObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns' }, spec: { resources: { requests: { storage } } } }) as SvcObject;
  assert.is(await admit(p, attrs(persistentVolumeClaimDefinition, claim('20Gi'))), 'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
  assert.is(await admit(p, attrs(persistentVolumeClaimDefinition, claim('500Mi'), 'UPDATE')), 'persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
  assert.is(await admit(p, attrs(persistentVolumeClaimDefinition, claim('5Gi'))), undefined);
  assert.is(await admit(p, attrs(podDefinition, pod([{ name: 'a', image: 'x' }]), 'UPDATE')), 'not handled', 'pod updates are not checked');
});

test('a namespace the cache shows none for is listed from storage, that answer kept 30 s', async () => {
  const { p, liveCalls } = plugin([], [range([{ type: 'Container', defaultRequest: { memory: '10Mi' } }])]);
  const a = pod([{ name: 'a', image: 'x' }]);
  await admit(p, attrs(podDefinition, a));
  await admit(p, attrs(podDefinition, pod([{ name: 'a', image: 'x' }])));
  assert.equal(a.spec!.containers![0]!.resources, { requests: { memory: '10Mi' } });
  assert.is(liveCalls(), 1);
});

test("a LimitRange's own defaults: the max is the default limit, the default limit (else the min) the default request", () => {
  const lr = range([{ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { memory: '64Mi' }, default: { cpu: '1' } }, { type: 'Pod', max: { cpu: '4' } }]);
  limitRangeDefinition.defaults!(lr);
  assert.equal(lr.spec!.limits![0], { type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { memory: '64Mi' }, default: { cpu: '1', memory: '1Gi' }, defaultRequest: { cpu: '1', memory: '1Gi' } });
  assert.equal(lr.spec!.limits![1], { type: 'Pod', max: { cpu: '4' } });
});

test.run();
