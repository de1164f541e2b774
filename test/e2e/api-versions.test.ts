// Today's API versions beside the spec's, against the real apiserver over HTTPS: one stored copy
// of each object served in every version asked for (get, list, watch, Table, Protobuf, YAML), the
// established preferred versions in discovery, and kubectl 1.35 creating and applying manifests
// written for the current versions (batch/v1, policy/v1, discovery.k8s.io/v1, autoscaling/v2,
// networking.k8s.io/v1, storage.k8s.io/v1, node.k8s.io/v1).
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import { type ApiServerProcess, ROOT, startApiServer } from '../helpers/apiserver.js';
import { firstValueFrom, take } from 'rxjs';
import type { ExchangeInfo } from '../../src/client/http-transport.js';
import { isEstablishedGroup } from '../../src/api/established-spelling.js';
import { clientFor } from '../helpers/client.js';
import { kubeconfigFor, kubectl, KUBECTL_V35 } from '../helpers/kubectl.js';
import { openWatch } from '../helpers/watch.js';

const test = suite('api versions');
let server: ApiServerProcess;
let kubeconfig: string;
test.before(async () => {
  server = await startApiServer();
  kubeconfig = kubeconfigFor(server);
});
test.after(async () => {
  await server.stop();
  server.cleanup();
});

const k35 = (args: string[], input?: string) => kubectl(kubeconfig, args, 60_000, { bin: KUBECTL_V35, ...(input === undefined ? {} : { input }) });

const cronJob = (apiVersion: string, name: string) => ({
  apiVersion,
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } } },
});

test('discovery: each group lists its versions with the established preferred one', async () => {
  const groups = (await server.request('GET', '/apis')).json.groups as { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
  const of = (name: string) => groups.find((g) => g.name === name)!;
  const expect: [string, string, string[]][] = [
    ['batch', 'v1', ['v1', 'v1beta1']],
    ['policy', 'v1', ['v1', 'v1beta1']],
    ['autoscaling', 'v2', ['v2', 'v1', 'v2beta2']],
    ['discovery.k8s.io', 'v1', ['v1', 'v1beta1']],
    ['node.k8s.io', 'v1', ['v1', 'v1beta1']],
    ['networking.k8s.io', 'v1', ['v1']],
    ['storage.k8s.io', 'v1', ['v1']],
    ['events.k8s.io', 'v1', ['v1']],
  ];
  for (const [name, preferred, versions] of expect) {
    assert.ok(of(name), `${name} is listed`);
    assert.is(of(name).preferredVersion.version, preferred, name);
    assert.equal(of(name).versions.map((v) => v.version), versions, name);
  }
  const batch = (await server.request('GET', '/apis/batch/v1')).json.resources.map((r: { name: string }) => r.name);
  assert.ok(batch.includes('cronjobs') && batch.includes('jobs'), batch.join(','));
});

test('a CronJob created as batch/v1 reads as v1beta1 and one created as v1beta1 reads as v1: one stored copy', async () => {
  const a = await server.request('POST', '/apis/batch/v1/namespaces/default/cronjobs', cronJob('batch/v1', 'made-v1'));
  assert.is(a.status, 201, a.text);
  assert.is(a.json.apiVersion, 'batch/v1');
  const b = await server.request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', cronJob('batch/v1beta1', 'made-v1beta1'));
  assert.is(b.status, 201, b.text);
  assert.is(b.json.apiVersion, 'batch/v1beta1');
  const asBeta = await server.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs/made-v1');
  assert.is(asBeta.json.apiVersion, 'batch/v1beta1');
  assert.is(asBeta.json.metadata.uid, a.json.metadata.uid);
  assert.is(asBeta.json.spec.concurrencyPolicy, 'Allow', 'defaulted once, on the write');
  const asV1 = await server.request('GET', '/apis/batch/v1/namespaces/default/cronjobs/made-v1beta1');
  assert.is(asV1.json.apiVersion, 'batch/v1');
  assert.is(asV1.json.metadata.resourceVersion, b.json.metadata.resourceVersion);
  const list = (await server.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs')).json;
  assert.is(list.apiVersion, 'batch/v1beta1');
  assert.equal(list.items.map((i: { metadata: { name: string } }) => i.metadata.name).sort(), ['made-v1', 'made-v1beta1']);
  // An update through one version is seen through the other; the managedFields entry names the version written.
  const patched = await server.request('PATCH', '/apis/batch/v1beta1/namespaces/default/cronjobs/made-v1?fieldManager=beta-writer', { spec: { suspend: true } }, { 'content-type': 'application/merge-patch+json' });
  assert.is(patched.status, 200, patched.text);
  const entry = patched.json.metadata.managedFields.find((m: { manager: string }) => m.manager === 'beta-writer');
  assert.is(entry.apiVersion, 'batch/v1beta1');
  assert.is((await server.request('GET', '/apis/batch/v1/namespaces/default/cronjobs/made-v1')).json.spec.suspend, true);
  // A YAML body and a Table in the requested version.
  const yamlBody = 'apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: from-yaml}\nspec:\n  schedule: "@hourly"\n  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}\n';
  const fromYaml = await server.request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', yamlBody, { 'content-type': 'application/yaml' });
  assert.is(fromYaml.status, 201, fromYaml.text);
  assert.is((await server.request('GET', '/apis/batch/v1/namespaces/default/cronjobs/from-yaml')).json.apiVersion, 'batch/v1');
  assert.is((await server.request('DELETE', '/apis/batch/v1/namespaces/default/cronjobs/from-yaml')).status, 200);
  const table = await server.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs', undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  assert.is(table.json.kind, 'Table');
  assert.equal(table.json.columnDefinitions.slice(0, 3).map((c: { name: string }) => c.name), ['Name', 'Schedule', 'Suspend']);
  assert.is(table.json.rows.length, 2);
});

test('a watch in each version sees the other version\'s writes in its own version', async () => {
  const v1 = await openWatch(server, '/apis/batch/v1/namespaces/default/cronjobs?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dwatched');
  const beta = await openWatch(server, '/apis/batch/v1beta1/namespaces/default/cronjobs?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dwatched');
  try {
    assert.is((await server.request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', cronJob('batch/v1beta1', 'watched'))).status, 201);
    assert.is((await server.request('DELETE', '/apis/batch/v1/namespaces/default/cronjobs/watched')).status, 200);
    const seenV1 = await v1.waitFor(2, 20_000);
    const seenBeta = await beta.waitFor(2, 20_000);
    assert.equal(seenV1.map((e) => [e.type, e.object.apiVersion]), [['ADDED', 'batch/v1'], ['DELETED', 'batch/v1']]);
    assert.equal(seenBeta.map((e) => [e.type, e.object.apiVersion]), [['ADDED', 'batch/v1beta1'], ['DELETED', 'batch/v1beta1']]);
  } finally {
    v1.close();
    beta.close();
  }
});

test('EndpointSlice v1beta1 topology and v1 zone/nodeName/deprecatedTopology convert as established', async () => {
  const slice = {
    apiVersion: 'discovery.k8s.io/v1beta1',
    kind: 'EndpointSlice',
    metadata: { name: 'topo' },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.1'], nodeName: 'n1', topology: { 'topology.svc.io/zone': 'z1', 'svc.io/hostname': 'n1', rack: 'r7' } }],
  };
  const created = await server.request('POST', '/apis/discovery.k8s.io/v1beta1/namespaces/default/endpointslices', slice);
  assert.is(created.status, 201, created.text);
  assert.equal(created.json.endpoints[0].topology, slice.endpoints[0]!.topology);
  const v1 = (await server.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/topo')).json;
  assert.is(v1.apiVersion, 'discovery.k8s.io/v1');
  assert.equal(v1.endpoints[0], { addresses: ['10.0.0.1'], nodeName: 'n1', zone: 'z1', deprecatedTopology: { rack: 'r7' } });
});

test('HorizontalPodAutoscaler: v1 targetCPUUtilizationPercentage is the v2 cpu metric; other v2 metrics survive a v1 round trip', async () => {
  const v1 = {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
  };
  assert.is((await server.request('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', v1)).status, 201);
  const v2 = (await server.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web')).json;
  assert.equal(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
  assert.is(v2.spec.minReplicas, 1);
  const pods = { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } };
  v2.spec.metrics.push(pods);
  assert.is((await server.request('PUT', '/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers/web', { ...v2, apiVersion: 'autoscaling/v2beta2' })).status, 200);
  const back = (await server.request('GET', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web')).json;
  assert.is(back.spec.targetCPUUtilizationPercentage, 70);
  assert.equal(JSON.parse(back.metadata.annotations['autoscaling.alpha.svc.io/metrics']), [pods]);
  // Written back through v1 unchanged: v2 still has both metrics and no annotation.
  assert.is((await server.request('PUT', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web', back)).status, 200);
  const again = (await server.request('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web')).json;
  assert.equal(again.spec.metrics.map((m: { type: string }) => m.type), ['Resource', 'Pods']);
  assert.is(again.metadata.annotations, undefined);
});

test('events.k8s.io/v1 serves the core Events: note, regarding, reportingController', async () => {
  const ev = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'pod-a.1' },
    involvedObject: { kind: 'Pod', name: 'pod-a', namespace: 'default' },
    reason: 'Started',
    message: 'started container',
    type: 'Normal',
    reportingComponent: 'svc.io/node',
    count: 2,
  };
  assert.is((await server.request('POST', '/api/v1/namespaces/default/events', ev)).status, 201);
  const got = (await server.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events/pod-a.1')).json;
  assert.is(got.apiVersion, 'events.k8s.io/v1');
  assert.is(got.note, 'started container');
  assert.is(got.regarding.name, 'pod-a');
  assert.is(got.reportingController, 'svc.io/node');
  assert.is(got.deprecatedCount, 2);
  assert.is(got.message, undefined);
  // A create through events/v1 follows its rules (the established messages).
  const bad = await server.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'bad' }, regarding: { kind: 'Pod', name: 'x' }, type: 'Normal' });
  assert.is(bad.status, 422, bad.text);
  assert.match(bad.json.message, 'eventTime: Required value');
  assert.match(bad.json.message, 'reportingController: Required value');
});

test('Protobuf in each version: a v1beta1 CronJob read as batch/v1 Protobuf', async () => {
  const r = await server.request('GET', '/apis/batch/v1/namespaces/default/cronjobs/made-v1beta1', undefined, { accept: 'application/vnd.kubernetes.protobuf' });
  assert.is(r.status, 200);
  assert.is(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
  // The envelope's TypeMeta (field 1: apiVersion, kind) names the version asked for.
  assert.ok(r.text.startsWith('k8s\u0000\n\u0013\n\bbatch/v1\u0012\u0007CronJob'), JSON.stringify(r.text.slice(0, 40)));
});

test('OpenAPI v2 and v3 describe every served version', async () => {
  const v2 = (await server.request('GET', '/openapi/v2')).json;
  for (const name of ['io.k8s.api.batch.v1.CronJob', 'io.k8s.api.batch.v1beta1.CronJob', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler', 'io.k8s.api.networking.v1.Ingress', 'io.k8s.api.storage.v1.StorageClass']) {
    assert.ok(v2.definitions[name], name);
  }
  const index = (await server.request('GET', '/openapi/v3')).json;
  for (const p of ['apis/batch/v1', 'apis/policy/v1', 'apis/autoscaling/v2', 'apis/networking.k8s.io/v1', 'apis/node.k8s.io/v1']) assert.ok(index.paths[p], p);
});

test('kubectl 1.35: create cronjob shows batch/v1; apply of current-version manifests; get ingress,networkpolicy,storageclass', async () => {
  const created = await k35(['create', 'cronjob', 'x', '--image=busybox', "--schedule=*/1 * * * *"]);
  assert.is(created.code, 0, created.stderr);
  const yaml = await k35(['get', 'cronjob', 'x', '-o', 'yaml']);
  assert.is(yaml.code, 0, yaml.stderr);
  assert.match(yaml.stdout, /^apiVersion: batch\/v1$/m);
  const manifests = `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-manual, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints:
- addresses: [10.0.0.9]
  conditions: {ready: true}
  nodeName: n1
  zone: z1
ports: [{name: http, port: 80, protocol: TCP}]
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web2}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: example.com/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-all}
spec:
  podSelector: {}
  policyTypes: [Ingress]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/csi
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
`;
  const applied = await k35(['apply', '-f', '-'], manifests);
  assert.is(applied.code, 0, applied.stderr);
  for (const line of ['cronjob.batch/nightly created', 'poddisruptionbudget.policy/web created', 'endpointslice.discovery.k8s.io/web-manual created', 'horizontalpodautoscaler.autoscaling/web2 created', 'ingressclass.networking.k8s.io/nginx created', 'ingress.networking.k8s.io/web created', 'networkpolicy.networking.k8s.io/deny-all created', 'storageclass.storage.k8s.io/fast created', 'runtimeclass.node.k8s.io/gvisor created']) {
    assert.ok(applied.stdout.includes(line), `${line}\n${applied.stdout}`);
  }
  const again = await k35(['apply', '-f', '-'], manifests);
  assert.is(again.code, 0, again.stderr);
  assert.ok(again.stdout.includes('ingress.networking.k8s.io/web unchanged'), again.stdout);
  const got = await k35(['get', 'ingress,networkpolicy,storageclass']);
  assert.is(got.code, 0, got.stderr);
  assert.match(got.stdout, /NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE/);
  assert.match(got.stdout, /ingress\.networking\.k8s\.io\/web\s+nginx\s+web\.example\.com\s+80\s/);
  assert.match(got.stdout, /networkpolicy\.networking\.k8s\.io\/deny-all\s+<none>\s/);
  assert.match(got.stdout, /storageclass\.storage\.k8s\.io\/fast\s+example\.com\/csi\s+Retain\s+WaitForFirstConsumer\s+false\s/);
  const pdb = await k35(['get', 'pdb', 'web', '-o', 'jsonpath={.apiVersion}']);
  assert.is(pdb.stdout, 'policy/v1');
  const hpa = await k35(['get', 'hpa', 'web2', '-o', 'jsonpath={.apiVersion} {.spec.metrics[0].resource.name}']);
  assert.is(hpa.stdout, 'autoscaling/v2 memory');
  const bad = await k35(['apply', '-f', '-'], 'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: bad}\nspec:\n  rules:\n  - http:\n      paths:\n      - {path: /, backend: {service: {name: web, port: {number: 80}}}}\n');
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, 'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified');
});

test('the project\'s client (Protobuf by default) lists and watches every discovered resource: each new kind and version decodes', async () => {
  const exchanges: ExchangeInfo[] = [];
  const { client, close } = clientFor(server, { onResponse: (e) => exchanges.push(e) });
  try {
    // Our spelling of each group: discovery also lists the established one (networking.k8s.io),
    // which the client dedups and decodes in another stream's change (issue 22, first item).
    const found = (await client.discover()).filter((d) => !isEstablishedGroup(d.group));
    const wanted = ['cronjobs', 'poddisruptionbudgets', 'endpointslices', 'horizontalpodautoscalers', 'ingresses', 'ingressclasses', 'networkpolicies', 'storageclasses', 'runtimeclasses'];
    for (const r of found.filter((d) => wanted.includes(d.resource))) {
      const list = await client.list(r);
      assert.ok(list.items.length > 0, `${r.resource}: the objects made above`);
      // Protobuf list items carry no type meta (the list's says what they are).
      assert.is(list.apiVersion, r.group ? `${r.group}/${r.version}` : r.version, r.resource);
      assert.is(mt(exchanges[exchanges.length - 1]!.responseContentType), 'application/vnd.svc.protobuf', r.resource);
      const first = await firstValueFrom(client.watch(r, { resourceVersion: '0' }).pipe(take(1)));
      assert.is(first.type, 'ADDED', r.resource);
      assert.is(first.object.apiVersion, r.group ? `${r.group}/${r.version}` : r.version, r.resource);
    }
    assert.is(new Set(found.filter((d) => wanted.includes(d.resource)).map((d) => d.resource)).size, wanted.length);
  } finally {
    await close();
  }
});

/** The media type of a Content-Type header. */
function mt(ct: string | undefined): string {
  return (ct ?? '').split(';')[0]!.trim();
}

/** Runs test/fixtures/python/versions_check.py; its steps by name. */
function pythonSteps(): Promise<Record<string, Record<string, unknown>>> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', [join(ROOT, 'test', 'fixtures', 'python', 'versions_check.py'), kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: dirname(kubeconfig) } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`python client failed (${code}):\n${stdout}\n${stderr}`));
      resolve(Object.fromEntries(stdout.trim().split('\n').map((l) => JSON.parse(l) as { step: string }).map((s) => [s.step, s])));
    });
  });
}

test('the official Python client\'s typed APIs for the current versions (python3-kubernetes 22.6)', async () => {
  const steps = await pythonSteps();
  assert.equal(steps['cronjob'], { step: 'cronjob', apiVersion: 'batch/v1', concurrencyPolicy: 'Allow', uid: true });
  assert.equal(steps['pdb'], { step: 'pdb', apiVersion: 'policy/v1', minAvailable: 1 });
  assert.equal(steps['endpointslice'], { step: 'endpointslice', apiVersion: 'discovery.k8s.io/v1', zone: 'z1', nodeName: 'n1' });
  assert.equal(steps['hpa'], { step: 'hpa', apiVersion: 'autoscaling/v2beta2', metric: 'cpu', utilization: 80 });
  assert.equal(steps['ingress'], { step: 'ingress', apiVersion: 'networking.k8s.io/v1', host: 'py.example.com', listed: true });
  assert.equal(steps['storageclass'], { step: 'storageclass', apiVersion: 'storage.k8s.io/v1', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
  assert.equal(steps['runtimeclass'], { step: 'runtimeclass', apiVersion: 'node.k8s.io/v1', handler: 'runsc' });
  assert.equal(steps['event'], { step: 'event', apiVersion: 'events.k8s.io/v1', note: 'hello', regarding: 'p' });
});

test('--runtime-config turns one version of a kind off and leaves the others serving the same objects', async () => {
  const other = await startApiServer({ args: ['--runtime-config=batch/v1beta1=false,autoscaling/v2=false'] });
  try {
    const batch = (await other.request('GET', '/apis/batch')).json;
    assert.equal(batch.versions.map((v: { version: string }) => v.version), ['v1']);
    assert.is((await other.request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs')).status, 404);
    const autoscaling = (await other.request('GET', '/apis/autoscaling')).json;
    assert.equal(autoscaling.versions.map((v: { version: string }) => v.version), ['v1', 'v2beta2']);
    assert.is(autoscaling.preferredVersion.version, 'v1');
    // The storage version is off: objects written through v1 are still stored (as v2) and read through v2beta2.
    const hpa = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'd' }, maxReplicas: 2, targetCPUUtilizationPercentage: 40 } };
    assert.is((await other.request('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', hpa)).status, 201);
    const beta = (await other.request('GET', '/apis/autoscaling/v2beta2/namespaces/default/horizontalpodautoscalers/h')).json;
    assert.is(beta.spec.metrics[0].resource.target.averageUtilization, 40);
  } finally {
    await other.stop();
    other.cleanup();
  }
});

test.run();
