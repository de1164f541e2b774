// The default admission chain against a real apiserver process started with default flags,
// driven by kubectl 1.35: LimitRanger (a default request and limit with the annotation, a limit
// over the max refused with the established message), Priority (a class's value in spec.priority,
// the built-in system-node-critical class, the global default, an unknown class refused) and
// RuntimeClass (overhead and scheduling from the class, an unknown class refused), each a request
// the plugin changes or refuses, through the whole write path (defaults, mutating admission,
// validation, validating admission).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pod } from '../../src/api/generated/kinds.js';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { KUBECTL_V35, kubeconfigFor, kubectl, type KubectlResult } from '../helpers/kubectl.js';

let server: ApiServerProcess;
let kubeconfig = '';

const run = (args: string[], input?: string): Promise<KubectlResult> => kubectl(kubeconfig, args, 60_000, { bin: KUBECTL_V35, ...(input !== undefined ? { input } : {}) });

async function apply(manifest: string): Promise<void> {
  const r = await run(['apply', '-f', '-'], manifest);
  assert.is(r.code, 0, r.stderr);
}

/** Creates from a manifest; resolves with kubectl's error output (empty when created). */
async function create(manifest: string): Promise<string> {
  const r = await run(['create', '-f', '-'], manifest);
  return r.code === 0 ? '' : r.stderr.trim();
}

async function getPod(ns: string, name: string): Promise<Pod> {
  const r = await run(['get', 'pod', name, '-n', ns, '-o', 'json']);
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Pod;
}

const podYaml = (ns: string, name: string, spec: string[], resources: string[] = []) =>
  [
    'apiVersion: v1', 'kind: Pod', 'metadata:', `  name: ${name}`, `  namespace: ${ns}`, 'spec:', ...spec.map((l) => `  ${l}`),
    '  containers:', '  - name: app', '    image: registry.example/app:1', ...resources.map((l) => `    ${l}`), '',
  ].join('\n');

test.before(async () => {
  server = await startApiServer();
  kubeconfig = kubeconfigFor(server);
  for (const ns of ['limits', 'prio', 'runtime']) assert.is((await run(['create', 'namespace', ns])).code, 0);
});

test.after(async () => {
  await server?.stop();
});

test('LimitRanger: defaults with the annotation; a limit over the max refused', async () => {
  await apply(['apiVersion: v1', 'kind: LimitRange', 'metadata: {name: cpu, namespace: limits}', 'spec:', '  limits:', '  - type: Container',
    '    default: {cpu: 500m, memory: 128Mi}', '    defaultRequest: {cpu: 100m}', '    max: {cpu: "1"}', ''].join('\n'));
  assert.is(await create(podYaml('limits', 'defaulted', [])), '');
  const p = await getPod('limits', 'defaulted');
  assert.equal(p.spec!.containers![0]!.resources, { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
  // The stored LimitRange's defaultRequest took the default memory limit (its own defaults, as established).
  assert.is(p.metadata.annotations?.['svc.io/limit-ranger'], 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app');
  // A limit alone is the request too (the request's defaults come first): no default request beside it.
  assert.is(await create(podYaml('limits', 'own-limit', [], ['resources: {limits: {cpu: 800m}}'])), '');
  assert.equal((await getPod('limits', 'own-limit')).spec!.containers![0]!.resources?.requests, { cpu: '800m', memory: '128Mi' });
  const refused = await create(podYaml('limits', 'greedy', [], ['resources: {limits: {cpu: "2"}}']));
  assert.match(refused, 'Error from server (Forbidden)');
  assert.match(refused, 'pods "greedy" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
});

test('Priority: a class, the built-in system class and the global default fill spec.priority; an unknown class is refused', async () => {
  await apply(['apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: batch-high}', 'value: 1000', ''].join('\n'));
  assert.is(await create(podYaml('prio', 'named', ['priorityClassName: batch-high'])), '');
  assert.is((await getPod('prio', 'named')).spec!.priority, 1000);
  assert.is(await create(podYaml('prio', 'critical', ['priorityClassName: system-node-critical'])), '');
  assert.is((await getPod('prio', 'critical')).spec!.priority, 2000001000);
  assert.is(await create(podYaml('prio', 'before-default', [])), '');
  assert.is((await getPod('prio', 'before-default')).spec!.priority, 0);
  await apply(['apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: everyone}', 'value: 7', 'globalDefault: true', ''].join('\n'));
  assert.is(await create(podYaml('prio', 'after-default', [])), '');
  const d = await getPod('prio', 'after-default');
  assert.equal([d.spec!.priorityClassName, d.spec!.priority], ['everyone', 7]);
  assert.match(
    await create(['apiVersion: scheduling.k8s.io/v1', 'kind: PriorityClass', 'metadata: {name: second}', 'value: 8', 'globalDefault: true', ''].join('\n')),
    'PriorityClass everyone is already marked as default. Only one default can exist',
  );
  assert.match(await create(podYaml('prio', 'unknown', ['priorityClassName: no-such-class'])), 'pods "unknown" is forbidden: no PriorityClass with name no-such-class was found');
  assert.match(await create(podYaml('prio', 'disagrees', ['priorityClassName: batch-high', 'priority: 5'])), 'the integer value of priority (5) must not be provided in pod spec');
});

test('RuntimeClass: overhead and scheduling from the class; an unknown class is refused', async () => {
  await apply(['apiVersion: node.k8s.io/v1', 'kind: RuntimeClass', 'metadata: {name: sandboxed}', 'handler: runsc', 'overhead:', '  podFixed: {cpu: 250m, memory: 64Mi}',
    'scheduling:', '  nodeSelector: {sandbox: gvisor}', '  tolerations:', '  - {key: sandbox, operator: Exists, effect: NoSchedule}', ''].join('\n'));
  assert.is(await create(podYaml('runtime', 'sandboxed', ['runtimeClassName: sandboxed'])), '');
  const p = await getPod('runtime', 'sandboxed');
  assert.equal(p.spec!.overhead, { cpu: '250m', memory: '64Mi' });
  assert.equal(p.spec!.nodeSelector, { sandbox: 'gvisor' });
  assert.ok(p.spec!.tolerations?.some((t) => t.key === 'sandbox' && t.operator === 'Exists' && t.effect === 'NoSchedule'), JSON.stringify(p.spec!.tolerations));
  assert.match(await create(podYaml('runtime', 'unknown', ['runtimeClassName: kata'])), 'pods "unknown" is forbidden: pod rejected: RuntimeClass "kata" not found');
  assert.match(await create(podYaml('runtime', 'own-overhead', ['overhead: {cpu: "1"}'])), 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
});

test.run();
