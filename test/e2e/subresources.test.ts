// Subresources (status, scale, binding) and selectors on per-kind fields.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
});

forEachEngine('subresources', (test, ctx) => {
  const deps = '/apis/apps/v1/namespaces/default/deployments';
  const pods = '/api/v1/namespaces/default/pods';

  test('status: writes to the main resource do not change status; writes to /status change only status', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const c = await server.request('POST', deps, deployment(name));
    assert.is(c.status, 201, c.text);
    const s = await server.request('PATCH', `${deps}/${name}/status`, { status: { replicas: 2, readyReplicas: 1 }, spec: { replicas: 9 } }, MERGE);
    assert.is(s.status, 200, s.text);
    assert.is(s.json.status.readyReplicas, 1);
    assert.is(s.json.spec.replicas, 2, 'spec ignored on /status');
    const m = await server.request('PATCH', `${deps}/${name}`, { status: { readyReplicas: 7 }, spec: { replicas: 3 } }, MERGE);
    assert.is(m.status, 200, m.text);
    assert.is(m.json.status.readyReplicas, 1, 'status ignored on the main resource');
    assert.is(m.json.spec.replicas, 3);
    const g = await server.request('GET', `${deps}/${name}/status`);
    assert.is(g.status, 200);
    assert.is(g.json.kind, 'Deployment');
  });

  test('generation moves when the spec changes, not on status or metadata writes', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const c = (await server.request('POST', deps, deployment(name))).json;
    assert.is(c.metadata.generation, 1);
    const l = await server.request('PATCH', `${deps}/${name}`, { metadata: { labels: { x: 'y' } } }, MERGE);
    assert.is(l.json.metadata.generation, 1);
    const s = await server.request('PATCH', `${deps}/${name}`, { spec: { replicas: 5 } }, MERGE);
    assert.is(s.json.metadata.generation, 2);
  });

  test('scale: GET gives an autoscaling/v1 Scale; PUT changes spec.replicas of the parent', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    await server.request('POST', deps, deployment(name));
    const g = await server.request('GET', `${deps}/${name}/scale`);
    assert.is(g.status, 200, g.text);
    assert.is(g.json.kind, 'Scale');
    assert.is(g.json.apiVersion, 'autoscaling/v1');
    assert.is(g.json.spec.replicas, 2);
    const p = await server.request('PUT', `${deps}/${name}/scale`, { ...g.json, spec: { replicas: 4 } });
    assert.is(p.status, 200, p.text);
    assert.is(p.json.spec.replicas, 4);
    assert.is((await server.request('GET', `${deps}/${name}`)).json.spec.replicas, 4);
    const stale = await server.request('PUT', `${deps}/${name}/scale`, { ...g.json, spec: { replicas: 1 } });
    assert.is(stale.status, 409, stale.text);
    const mp = await server.request('PATCH', `${deps}/${name}/scale`, { spec: { replicas: 6 } }, MERGE);
    assert.is(mp.status, 200, mp.text);
    assert.is(mp.json.spec.replicas, 6);
  });

  test('scale on replicationcontrollers too', async () => {
    const { server } = ctx();
    const name = uniqueName('rc');
    const rc = await server.request('POST', '/api/v1/namespaces/default/replicationcontrollers', {
      metadata: { name },
      spec: { replicas: 1, selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    assert.is(rc.status, 201, rc.text);
    const g = await server.request('GET', `/api/v1/namespaces/default/replicationcontrollers/${name}/scale`);
    assert.is(g.status, 200, g.text);
    assert.is(g.json.spec.replicas, 1);
  });

  test('binding: assigns a pod to a node once; a second binding is 409', async () => {
    const { server } = ctx();
    const name = uniqueName('pod');
    await server.request('POST', pods, { metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const b = await server.request('POST', `${pods}/${name}/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name }, target: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } });
    assert.is(b.status, 201, b.text);
    const p = (await server.request('GET', `${pods}/${name}`)).json;
    assert.is(p.spec.nodeName, 'node-1');
    const again = await server.request('POST', `${pods}/${name}/binding`, { metadata: { name }, target: { kind: 'Node', name: 'node-2' } });
    assert.is(again.status, 409, again.text);
    // The node name is checked on the binding itself (the pod is not validated again), and nothing is written.
    const other = uniqueName('pod');
    await server.request('POST', pods, { metadata: { name: other }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    const bad = await server.request('POST', `${pods}/${other}/binding`, { metadata: { name: other }, target: { kind: 'Node', name: 'Not_A_Node' } });
    assert.is(bad.status, 422, bad.text);
    assert.match(bad.json.message, 'target.name');
    assert.is((await server.request('GET', `${pods}/${other}`)).json.spec.nodeName, undefined);
  });

  test('field selectors on per-kind fields: spec.nodeName and status.phase of pods', async () => {
    const { server } = ctx();
    const node = uniqueName('node');
    const a = uniqueName('pod');
    const b = uniqueName('pod');
    for (const n of [a, b]) await server.request('POST', pods, { metadata: { name: n }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await server.request('POST', `${pods}/${a}/binding`, { metadata: { name: a }, target: { kind: 'Node', name: node } });
    const onNode = await server.request('GET', `${pods}?fieldSelector=spec.nodeName%3D${node}`);
    assert.equal(onNode.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), [a]);
    await server.request('PATCH', `${pods}/${b}/status`, { status: { phase: 'Running' } }, MERGE);
    const running = await server.request('GET', `${pods}?fieldSelector=status.phase%3DRunning,metadata.name%3D${b}`);
    assert.equal(running.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), [b]);
    const notRunning = await server.request('GET', `${pods}?fieldSelector=status.phase!%3DRunning,metadata.name%3D${b}`);
    assert.is(notRunning.json.items.length, 0);
  });

  test('label selectors: equality and set-based', async () => {
    const { server } = ctx();
    const tag = uniqueName('lbl');
    const cms = '/api/v1/namespaces/default/configmaps';
    await server.request('POST', cms, { metadata: { name: `${tag}-1`, labels: { t: tag, env: 'prod', tier: 'web' } } });
    await server.request('POST', cms, { metadata: { name: `${tag}-2`, labels: { t: tag, env: 'dev' } } });
    await server.request('POST', cms, { metadata: { name: `${tag}-3`, labels: { t: tag, env: 'qa', tier: 'db' } } });
    const q = async (sel: string) =>
      (await server.request('GET', `${cms}?labelSelector=${encodeURIComponent(`t=${tag},${sel}`)}`)).json.items.map((i: { metadata: { name: string } }) => i.metadata.name.slice(tag.length + 1)).sort();
    assert.equal(await q('env=prod'), ['1']);
    assert.equal(await q('env==dev'), ['2']);
    assert.equal(await q('env!=prod'), ['2', '3']);
    assert.equal(await q('env in (prod,qa)'), ['1', '3']);
    assert.equal(await q('env notin (prod,qa)'), ['2']);
    assert.equal(await q('tier'), ['1', '3']);
    assert.equal(await q('!tier'), ['2']);
  });

  test('subresources cannot be addressed across several resources', async () => {
    const { server } = ctx();
    const r = await server.request('GET', `${deps}/status`);
    assert.ok(r.status === 404 || r.status === 405, r.text);
    const unknown = await server.request('GET', `${deps}/${uniqueName()}/exec`);
    assert.is(unknown.status, 404, unknown.text);
  });
});
