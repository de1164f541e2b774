// `svc up`, the all-in-one mode, as a real process: the resource API on its port, a
// --controller-module controller reconciling in the same process, the scheduler binding a pod, the controllers' metrics on
// /metrics, a clean SIGTERM (exit 0, lock released); and clear flag errors (exit 1).
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import { Agent, request } from 'undici';
import { freePort } from '../helpers/apiserver.js';
import { ECHO_MODULE, startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { kubectl } from '../helpers/kubectl.js';

interface Up {
  svc: SvcProcess;
  url: string;
  caFile: string;
  /** The admin client configuration svc up writes (a client certificate in system:masters); there once 'ready' is logged. */
  kubeconfig: string;
  agent: Agent;
  get(path: string): Promise<{ status: number; text: string }>;
  post(path: string, body: unknown): Promise<{ status: number; text: string }>;
  cleanup(): void;
}

async function startUp(extra: string[] = []): Promise<Up> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-up-data-'));
  const certDir = mkdtempSync(join(tmpdir(), 'svc-up-certs-'));
  const svc = startSvc([
    'up',
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    `--data-dir=${dataDir}`,
    `--cert-dir=${certDir}`,
    '--leader-elect-lease-duration=3s',
    '--leader-elect-renew-deadline=2s',
    '--leader-elect-retry-period=500ms',
    ...extra,
  ]);
  await svc.waitFor((l) => l.msg === 'serving', 20_000, 'serving');
  const url = `https://127.0.0.1:${port}`;
  // As the admin: the client certificate svc up issued (in --cert-dir before the port opens).
  const agent = new Agent({
    connect: { ca: readFileSync(join(certDir, 'apiserver.crt'), 'utf8'), servername: 'localhost', cert: readFileSync(join(certDir, 'admin.crt')), key: readFileSync(join(certDir, 'admin.key')) },
  });
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const r = await request(`${url}${path}`, {
      method,
      dispatcher: agent,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
    });
    return { status: r.statusCode, text: await r.body.text() };
  };
  return {
    svc,
    url,
    caFile: join(certDir, 'apiserver.crt'),
    kubeconfig: join(dataDir, 'admin.svcconfig'),
    agent,
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}

/** The keys of a JSON object's top level in the order written, repeats included (JSON.parse drops them). */
function topLevelKeys(json: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      if (depth === 1 && json[j + 1] === ':') keys.push(json.slice(i + 1, j));
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('svc up serves the API, hosts a --controller-module controller over the in-process client, and stops cleanly on SIGTERM', async () => {
  // No simulated nodes here: the pod must wait, then bind to the node the test adds.
  const up = await startUp([`--controller-module=${ECHO_MODULE}`, '--nodes=0']);
  try {
    assert.is((await up.get('/readyz')).text, 'ok');
    const ns = await up.get('/api/v1/namespaces');
    assert.is(ns.status, 200, ns.text);
    await up.svc.waitFor((l) => l.msg === 'started leading', 10_000, 'leading');

    const created = await up.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'hello', labels: { echo: 'yes' } }, data: { greeting: 'hi' } });
    assert.is(created.status, 201, created.text);
    const echo = await eventually('the echo', async () => {
      const r = await up.get('/api/v1/namespaces/default/configmaps/hello-echo');
      return r.status === 200 ? (JSON.parse(r.text) as { data: Record<string, string>; metadata: { managedFields: Array<{ manager: string }> } }) : undefined;
    });
    // Written through the in-process transport (its user agent names the field manager), not HTTPS.
    assert.equal(echo.metadata.managedFields.map((m) => m.manager), ['svc-in-process']);
    assert.is(echo.data['greeting'], 'hi');
    assert.is(echo.data['reconciledBy'], String(up.svc.pid), 'reconciled by the svc up process itself');

    // The live machines on the API server's port: the election leads, the controller runs.
    const machines = JSON.parse((await up.get('/debug/machines')).text) as { actors: Array<{ machineId?: string; state?: string; activePaths: string[] }> };
    const election = machines.actors.find((a) => a.machineId === 'leaderElection');
    const controller = machines.actors.find((a) => a.machineId === 'controller');
    assert.ok(election?.activePaths.includes('leader'), `leader election: ${JSON.stringify(election)}`);
    assert.ok(controller?.activePaths.includes('running'), `controller: ${JSON.stringify(controller)}`);
    const ui = await up.get('/debug/machines/ui');
    assert.is(ui.status, 200);
    assert.match(ui.text, /<html/i);

    // The scheduler runs here too: a pod created on svc up gets bound, and says why while it waits.
    await up.post('/api/v1/namespaces/default/pods', { metadata: { name: 'waits' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    const why = await eventually('an explanation', async () => {
      const r = await up.get('/debug/scheduler/pods/default/waits');
      return r.status === 200 ? (JSON.parse(r.text) as { message: string }) : undefined;
    });
    assert.is(why.message, '0/0 nodes are available: no nodes available to schedule pods.');
    const node = await up.post('/api/v1/nodes', { metadata: { name: 'n1' }, status: { allocatable: { cpu: '2', memory: '4Gi', pods: '10' } } });
    assert.is(node.status, 201, node.text);
    const bound = await eventually('the pod bound', async () => {
      const r = JSON.parse((await up.get('/api/v1/namespaces/default/pods/waits')).text) as { spec: { nodeName?: string } };
      return r.spec.nodeName;
    });
    assert.is(bound, 'n1');

    const metrics = (await up.get('/metrics')).text;
    assert.match(metrics, /apiserver_request_total/);
    assert.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} 1/);
    assert.match(metrics, /workqueue_adds_total\{name="configmap-echo"\} [1-9]/);
    assert.match(metrics, /leader_election_master_status\{name="svc-controller-manager"\} 1/);

    // The live facts of the hosted controller: its queue and the reconcile of the ConfigMap.
    const echoCtl = (JSON.parse((await up.get('/debug/machines')).text) as { actors: Array<{ id: string; live?: { queue: { depth: number }; recent: Array<{ key: string; outcome: string }> } }> })
      .actors.find((a) => a.id === 'configmap-echo');
    assert.is(typeof echoCtl?.live?.queue.depth, 'number', JSON.stringify(echoCtl));
    assert.ok(echoCtl!.live!.recent.some((r) => r.key === 'default/hello' && r.outcome === 'done'), JSON.stringify(echoCtl!.live));

    assert.is(await up.svc.stop('SIGTERM'), 0, up.svc.output());
    const lines = up.svc.lines.map((l) => l.msg);
    assert.ok(lines.indexOf('stopped leading') < lines.indexOf('shutdown complete'), 'controllers stop before the API server');
    // No record repeats a key (pino would write both when a child re-binds a key of its parent).
    const repeated = up.svc.output().split('\n').filter((l) => l.startsWith('{')).filter((l) => {
      const keys = topLevelKeys(l);
      return keys.length !== new Set(keys).size;
    });
    assert.equal(repeated, [], 'records with a repeated key');
  } finally {
    await up.svc.stop('SIGKILL');
    await up.agent.close();
    up.cleanup();
  }
});

test('svc up runs simulated nodes: Ready nodes with leases, pods that run, finish, fail, crash-loop and go away, a node that goes stale', async () => {
  const up = await startUp(['--node-lease-renew-interval=300ms', '--image-pull-delay=50ms', '--container-start-delay=20ms', '--crash-loop-back-off=300ms', '--crash-loop-max-back-off=2s']);
  try {
    type Obj = { metadata: { name: string }; spec?: { nodeName?: string; renewTime?: string }; status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] } };
    const nodes = await eventually('3 Ready nodes', async () => {
      const list = JSON.parse((await up.get('/api/v1/nodes')).text) as { items: Obj[] };
      const ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 3 ? ready.map((n) => n.metadata.name).sort() : undefined;
    });
    assert.equal(nodes, ['sim-node-0', 'sim-node-1', 'sim-node-2']);
    const lease = () => up.get('/apis/coordination.svc.io/v1/namespaces/svc-node-lease/leases/sim-node-0').then((r) => (JSON.parse(r.text) as Obj).spec?.renewTime);
    const first = await lease();
    assert.ok(first, 'the node has a lease');
    await eventually('a lease renewal', async () => ((await lease()) !== first ? true : undefined));

    assert.is((await up.post('/api/v1/namespaces/default/pods', { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).status, 201);
    const web = await eventually('web Running', async () => {
      const p = JSON.parse((await up.get('/api/v1/namespaces/default/pods/web')).text) as Obj;
      return p.status?.phase === 'Running' && p.status.podIP ? p : undefined;
    });
    assert.ok(nodes.includes(web.spec!.nodeName!), 'scheduled onto a simulated node');
    assert.match(web.status!.podIP!, /^10\.244\./);
    const job = { metadata: { name: 'once', annotations: { 'sim.svc.io/run-seconds': '0.2' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
    assert.is((await up.post('/api/v1/namespaces/default/pods', job)).status, 201);
    await eventually('once Succeeded', async () => ((JSON.parse((await up.get('/api/v1/namespaces/default/pods/once')).text) as Obj).status?.phase === 'Succeeded' ? true : undefined));

    const machines = JSON.parse((await up.get('/debug/machines')).text) as { actors: Array<{ machineId?: string; activePaths: string[] }> };
    assert.is(machines.actors.filter((a) => a.machineId === 'nodeAgent').length, 3, 'each node agent is a live machine');

    // A real kubectl: the nodes are Ready, a pod it runs is Running with an IP, a delete waits for its container to stop (1 s), not the 30 s grace period.
    await up.svc.waitFor((l) => l.msg === 'ready', 30_000, 'ready');
    const kc = up.kubeconfig;
    const k = async (...args: string[]) => {
      const r = await kubectl(kc, args);
      assert.is(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    assert.is(await k('get', 'nodes', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {end}'), 'True True True ');
    await k('run', 'kweb', '--image=nginx', '--restart=Never');
    await k('wait', '--for=condition=Ready', 'pod/kweb', '--timeout=20s');
    assert.match(await k('get', 'pod', 'kweb', '-o', 'jsonpath={.status.phase} {.status.podIP}'), /^Running 10\.244\.\d+\.\d+$/);
    const t = Date.now();
    await k('delete', 'pod', 'kweb');
    const took = Date.now() - t;
    assert.ok(took >= 900 && took < 10_000, `kubectl delete returned after ${took} ms (stop time 1 s, grace period 30 s)`);
    const gone = await kubectl(kc, ['get', 'pod', 'kweb']);
    assert.match(gone.stderr, /NotFound|not found/);

    // Exit code 1 under restartPolicy Never: Failed. Under Always: a crash loop, restartCount growing with back-off.
    await k('run', 'kfail', '--image=busybox', '--restart=Never', '--annotations=sim.svc.io/run-seconds=0.2', '--annotations=sim.svc.io/exit-code=1');
    await eventually('kfail Failed', async () => ((await k('get', 'pod', 'kfail', '-o', 'jsonpath={.status.phase}')) === 'Failed' ? true : undefined));
    await k('run', 'kloop', '--image=busybox', '--restart=Always', '--annotations=sim.svc.io/run-seconds=0.2');
    const restarts = async () => Number(await k('get', 'pod', 'kloop', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}')) || 0;
    await eventually('kloop restarted twice', async () => ((await restarts()) >= 2 ? true : undefined), 15_000);
    assert.match(await k('get', 'pod', 'kloop', '-o', 'jsonpath={.status.containerStatuses[0].lastState.terminated.reason}'), /Completed|Error/);

    // A node whose heartbeats are stopped (a fault annotation) goes stale: its Lease stops moving.
    await k('annotate', 'node', 'sim-node-2', 'sim.svc.io/faults=stop-heartbeats');
    const leaseOf = () => k('get', 'lease', '-n', 'svc-node-lease', 'sim-node-2', '-o', 'jsonpath={.spec.renewTime}');
    await new Promise((r) => setTimeout(r, 700));
    const frozen = await leaseOf();
    await new Promise((r) => setTimeout(r, 1_200));
    assert.is(await leaseOf(), frozen, 'no renewal after the fault (the interval is 300 ms)');
    await k('annotate', 'node', 'sim-node-2', 'sim.svc.io/faults-');
    await eventually('renewals again', async () => ((await leaseOf()) !== frozen ? true : undefined));
    assert.is(await up.svc.stop('SIGTERM'), 0, up.svc.output());
  } finally {
    await up.svc.stop('SIGKILL');
    await up.agent.close();
    up.cleanup();
  }
});

test('svc up --cloud-provider=cloudy: nodes register uninitialized and are initialised from the cloud; a LoadBalancer Service gets an ingress IP; the cloud panel and /debug/cloud', async () => {
  const cloudDir = mkdtempSync(join(tmpdir(), 'svc-up-cloud-'));
  const cloudFile = join(cloudDir, 'cloud.json');
  const up = await startUp(['--cloud-provider=cloudy', `--cloud-config=${cloudFile}`, '--node-lease-renew-interval=500ms']);
  try {
    type NodeObj = { metadata: { name: string; labels?: Record<string, string> }; spec?: { providerID?: string; taints?: { key: string }[] } };
    // Initialised: cloud-node set the provider ID and the cloud's labels (the simulated nodes register without them) and lifted the taint.
    const nodes = await eventually('3 nodes initialised from the cloud', async () => {
      const list = JSON.parse((await up.get('/api/v1/nodes')).text) as { items: NodeObj[] };
      const done = list.items.filter((n) => n.spec?.providerID && !(n.spec.taints ?? []).some((t) => t.key === 'node.cloudprovider.svc.io/uninitialized'));
      return done.length === 3 ? done : undefined;
    }, 30_000);
    const doc = JSON.parse(readFileSync(cloudFile, 'utf8')) as { instances: Record<string, { zone: string }> };
    for (const n of nodes) {
      assert.is(n.spec!.providerID, `cloudy://svc-project/${doc.instances[n.metadata.name]!.zone}/${n.metadata.name}`);
      assert.is(n.metadata.labels?.['topology.svc.io/region'], 'cloudy-central1');
    }
    // They registered with the taint: cloud-node initialises only nodes that carry it.
    // (The log line is written after the node's update, and reaches this process through a pipe.)
    const names = nodes.map((n) => n.metadata.name).sort().join(',');
    const logged = () => [...new Set(up.svc.lines.filter((l) => l.msg === 'initialized node from the cloud provider').map((l) => String(l['node'])))].sort().join(',');
    await eventually(`the 3 nodes logged as initialised: ${names}`, async () => (logged() === names ? true : undefined), 10_000).catch((e: Error) => {
      throw new Error(`${e.message}; logged: ${logged()}\n${up.svc.output().slice(-3000)}`);
    });

    const svc = { metadata: { name: 'web' }, spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ port: 80 }] } };
    assert.is((await up.post('/api/v1/namespaces/default/services', svc)).status, 201);
    const ip = await eventually('web has an ingress IP', async () => {
      const s = JSON.parse((await up.get('/api/v1/namespaces/default/services/web')).text) as { status?: { loadBalancer?: { ingress?: { ip: string }[] } } };
      return s.status?.loadBalancer?.ingress?.[0]?.ip;
    }, 30_000);
    assert.match(ip, /^198\.19\./, 'from the cloud load-balancer range');

    // The page's cloud panel, and what it shows: the load balancer with its IP and listener, the instances running.
    const ui = await up.get('/debug/machines/ui');
    assert.is(ui.status, 200);
    assert.match(ui.text, '"listPath":"/debug/cloud/objects"');
    const kinds = JSON.parse((await up.get('/debug/cloud/objects')).text) as { provider: string; kinds: { kind: string; count?: number }[] };
    assert.is(kinds.provider, 'cloudy');
    assert.equal(kinds.kinds.map((k) => k.kind), ['overview', 'instances', 'loadBalancers', 'firewalls', 'routes', 'failures']);
    const lbs = JSON.parse((await up.get('/debug/cloud/objects/loadBalancers')).text) as { items: { service: string; ingressIP: string; listeners: string[]; firewallRules: string[] }[] };
    const lb = lbs.items.find((l) => l.service === 'default/web');
    assert.ok(lb, JSON.stringify(lbs));
    assert.is(lb.ingressIP, ip);
    assert.match(lb.listeners[0]!, /^TCP:80->3\d{4}$/);
    assert.is(lb.firewallRules.length, 2);
    const instances = JSON.parse((await up.get('/debug/cloud/objects/instances')).text) as { items: { name: string; state: string }[] };
    assert.equal(instances.items.map((i) => `${i.name} ${i.state}`).sort(), ['sim-node-0 running', 'sim-node-1 running', 'sim-node-2 running']);
    assert.is((await up.get('/debug/cloud/objects/volumes')).status, 404);
    assert.is(await up.svc.stop('SIGTERM'), 0, up.svc.output());
  } finally {
    await up.svc.stop('SIGKILL');
    await up.agent.close();
    up.cleanup();
    rmSync(cloudDir, { recursive: true, force: true });
  }
});

test('svc up: flag errors name the flag and exit 1', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['up', '--no-such-flag'], /unknown option '--no-such-flag'/],
    [['up', '--leader-elect-lease-duration=5s', '--leader-elect-renew-deadline=10s'], /--leader-elect-renew-deadline \(10s\) must be less than or equal to --leader-elect-lease-duration \(5s\)/],
    [['up', '--leader-elect-retry-period=soon'], /invalid value "soon" for --leader-elect-retry-period: expected a duration/],
    [['up', '--min-resync-period=-1s'], /--min-resync-period: must not be negative/],
    [['up', '--controller-module=/no/such/module.js'], /controller module \/no\/such\/module\.js: cannot read it/],
    [['up', '--node-cpu=lots'], /invalid node shape: --node-cpu: "lots" is not a quantity/],
    [['up', '--node-profile=/no/such/profile.yaml'], /--node-profile/],
    [['up', '--node-lease-renew-interval=0s'], /--node-lease-renew-interval: must be greater than 0/],
    [['up', '--insecure-allow-all', '--authorization-mode=AlwaysAllow'], /--insecure-allow-all and --authorization-mode cannot be combined/],
  ];
  await Promise.all(
    cases.map(async ([args, message]) => {
      const p = startSvc(args);
      const code = await p.exited;
      assert.is(code, 1, `${args.join(' ')}: ${p.output()}`);
      assert.match(p.output(), message);
    }),
  );
});

test.run();
