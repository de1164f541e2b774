// Server-side apply pruning (spec "Field ownership" rule 3) and the invariant behind it: after every
// write, each manager's managedFields describe only fields present in the stored object.
import * as assert from 'uvu/assert';
import { forEachEngine, uniqueName } from '../helpers/engines.js';
import type { ApiServerProcess } from '../helpers/apiserver.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const deps = '/apis/apps/v1/namespaces/default/deployments';
const listKeys: Record<string, string[]> = { containers: ['name'], ports: ['containerPort', 'protocol'] };

type Obj = { metadata: { managedFields?: { manager: string; operation: string; fieldsV1: Record<string, unknown> }[] } } & Record<string, unknown>;

const deployment = (name: string, extra: { finalizers?: string[]; containers?: unknown[] }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: extra.containers ?? [{ name: 'web', image: 'nginx' }] } },
  },
});

function apply(server: ApiServerProcess, name: string, body: unknown, manager: string, extra = '') {
  return server.request('PATCH', `${deps}/${name}?fieldManager=${manager}${extra}`, JSON.stringify(body), APPLY);
}

const entry = (obj: Obj, manager: string, operation = 'Apply') => obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
const names = (obj: Obj): string[] => ((obj as unknown as { spec: { template: { spec: { containers: { name: string }[] } } } }).spec.template.spec.containers).map((c) => c.name);
const containersOf = (e: { fieldsV1: Record<string, unknown> } | undefined): string[] => {
  const c = ((((e?.fieldsV1['f:spec'] as Record<string, unknown> | undefined)?.['f:template'] as Record<string, unknown> | undefined)?.['f:spec'] as Record<string, unknown> | undefined)?.['f:containers'] ?? {}) as Record<string, unknown>;
  return Object.keys(c).filter((k) => k !== '.').sort();
};
const finalizersOf = (e: { fieldsV1: Record<string, unknown> } | undefined): string[] => {
  const f = ((e?.fieldsV1['f:metadata'] as Record<string, unknown> | undefined)?.['f:finalizers'] ?? {}) as Record<string, unknown>;
  return Object.keys(f).filter((k) => k !== '.').sort();
};

/**
 * Every path of every managedFields entry, walked against the object itself (independently of the
 * server's code): `f:` a key, `k:` the list item with those key values, `v:` the set item, `i:` an
 * index. Returns the paths that name nothing in the object.
 */
function dangling(obj: Obj): string[] {
  const out: string[] = [];
  const walk = (fields: Record<string, unknown>, value: unknown, where: string, listName: string): void => {
    for (const [el, sub] of Object.entries(fields)) {
      if (el === '.') continue;
      const body = el.slice(2);
      let next: unknown;
      let name = listName;
      if (el.startsWith('f:')) {
        next = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[body] : undefined;
        name = body;
      } else if (el.startsWith('k:')) {
        const keys = JSON.parse(body) as Record<string, unknown>;
        assert.equal(Object.keys(keys).sort(), [...(listKeys[listName] ?? Object.keys(keys))].filter((k) => k in keys).sort(), `${where}${el}: key fields`);
        next = Array.isArray(value) ? value.find((item) => Object.entries(keys).every(([k, v]) => (item as Record<string, unknown>)[k] === v)) : undefined;
      } else if (el.startsWith('v:')) {
        next = Array.isArray(value) ? value.find((item) => JSON.stringify(item) === body) : undefined;
      } else {
        next = Array.isArray(value) ? value[Number(body)] : undefined;
      }
      if (next === undefined) out.push(`${where}${el}`);
      else walk(sub as Record<string, unknown>, next, `${where}${el}.`, name);
    }
  };
  for (const e of obj.metadata.managedFields ?? []) walk(e.fieldsV1, obj, `${e.manager}/${e.operation}: `, '');
  return out;
}

forEachEngine('server-side apply pruning', (test, ctx) => {
  test('rule 3, set list: items only this applier set vanish from the object and from its managedFields; a shared item stays', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a1 = await apply(server, name, deployment(name, { finalizers: ['x.io/a', 'x.io/only-alpha', 'x.io/shared'] }), 'alpha');
    assert.is(a1.status, 201, a1.text);
    const b = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, finalizers: ['x.io/shared', 'x.io/b'] } }, 'beta');
    assert.is(b.status, 200, b.text);
    const a2 = await apply(server, name, deployment(name, { finalizers: ['x.io/a'] }), 'alpha');
    assert.is(a2.status, 200, a2.text);
    assert.equal((a2.json as { metadata: { finalizers: string[] } }).metadata.finalizers, ['x.io/a', 'x.io/shared', 'x.io/b']);
    assert.equal(finalizersOf(entry(a2.json, 'alpha')), ['v:"x.io/a"'], 'alpha owns only what it still applies');
    assert.equal(finalizersOf(entry(a2.json, 'beta')), ['v:"x.io/b"', 'v:"x.io/shared"']);
    assert.equal(dangling(a2.json), []);
    const stored = await server.request('GET', `${deps}/${name}`);
    assert.equal(stored.json.metadata, a2.json.metadata, 'what came back is what is stored');
    // Beta drops the shared item too: now no one claims it and it goes.
    const b2 = await apply(server, name, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, finalizers: ['x.io/b'] } }, 'beta');
    assert.equal((b2.json as { metadata: { finalizers: string[] } }).metadata.finalizers, ['x.io/a', 'x.io/b']);
    assert.equal(finalizersOf(entry(b2.json, 'beta')), ['v:"x.io/b"']);
    assert.equal(dangling(b2.json), []);
  });

  test('rule 3, map list: items only this applier set vanish from the object and from its managedFields; a shared item stays', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const web = { name: 'web', image: 'nginx' };
    const sidecar = { name: 'sidecar', image: 'envoy' };
    const shared = { name: 'shared', image: 'busybox' };
    const a1 = await apply(server, name, deployment(name, { containers: [web, sidecar, shared] }), 'alpha');
    assert.is(a1.status, 201, a1.text);
    const b = await apply(server, name, deployment(name, { containers: [shared, { name: 'logger', image: 'fluentd' }] }), 'beta');
    assert.is(b.status, 200, b.text);
    assert.equal(containersOf(entry(b.json, 'beta')), ['k:{"name":"logger"}', 'k:{"name":"shared"}']);
    const a2 = await apply(server, name, deployment(name, { containers: [web] }), 'alpha');
    assert.is(a2.status, 200, a2.text);
    assert.equal(names(a2.json), ['web', 'shared', 'logger'], 'sidecar (alpha only) is gone; shared and logger (beta) stay');
    assert.equal(containersOf(entry(a2.json, 'alpha')), ['k:{"name":"web"}']);
    assert.equal(containersOf(entry(a2.json, 'beta')), ['k:{"name":"logger"}', 'k:{"name":"shared"}']);
    assert.equal(dangling(a2.json), []);
    const stored = await server.request('GET', `${deps}/${name}`);
    assert.equal(stored.json.metadata.managedFields, a2.json.metadata.managedFields);
  });

  test('rule 3: an item kept because an Update manager owns a field inside it keeps its key; the applier lets go of it', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const a1 = await apply(server, name, deployment(name, { containers: [{ name: 'web', image: 'nginx' }, { name: 'sidecar', image: 'envoy', args: ['-v'] }] }), 'alpha');
    assert.is(a1.status, 201, a1.text);
    const edit = await server.request('PATCH', `${deps}/${name}?fieldManager=editor`, [{ op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'envoy:2' }], JSON_PATCH);
    assert.is(edit.status, 200, edit.text);
    assert.equal(containersOf(entry(edit.json, 'editor', 'Update')), ['k:{"name":"sidecar"}']);
    const a2 = await apply(server, name, deployment(name, { containers: [{ name: 'web', image: 'nginx' }] }), 'alpha');
    assert.is(a2.status, 200, a2.text);
    const containers = (a2.json.spec.template.spec.containers as { name: string; image: string; args?: string[] }[]);
    assert.equal(containers.map((c) => c.name), ['web', 'sidecar'], 'the item stays, with its key');
    assert.is(containers[1]!.image, 'envoy:2', 'the editor\'s field stays');
    assert.is(containers[1]!.args, undefined, 'the field only alpha set goes');
    assert.equal(containersOf(entry(a2.json, 'alpha')), ['k:{"name":"web"}']);
    assert.equal(dangling(a2.json), []);
  });

  test('managedFields never name a field the object lacks: two appliers and an updater over a series of writes', async () => {
    const { server } = ctx();
    const name = uniqueName('d');
    const steps: [string, unknown, string][] = [
      ['alpha', deployment(name, { finalizers: ['x.io/a', 'x.io/s'], containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 81, protocol: 'TCP' }] }, { name: 'db', image: 'pg' }] }), ''],
      ['beta', deployment(name, { finalizers: ['x.io/s'], containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 81, protocol: 'TCP' }] }] }), ''],
      ['alpha', deployment(name, { finalizers: [], containers: [{ name: 'web', image: 'nginx:2', ports: [{ containerPort: 80, protocol: 'TCP' }] }] }), '&force=true'],
      ['beta', { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name } }, ''],
      ['alpha', deployment(name, { containers: [{ name: 'api', image: 'x' }] }), ''],
    ];
    for (const [manager, body, extra] of steps) {
      const r = await apply(server, name, body, manager, extra);
      assert.ok(r.status === 200 || r.status === 201, `${manager}: ${r.text}`);
      assert.equal(dangling(r.json), [], `${manager} ${JSON.stringify(body)}`);
    }
    const last = await server.request('GET', `${deps}/${name}`);
    assert.equal(names(last.json), ['api']);
    assert.equal((last.json as { metadata: { finalizers?: string[] } }).metadata.finalizers, undefined);
    assert.equal(last.json.metadata.managedFields.map((e: { manager: string }) => e.manager), ['alpha']);
  });
  test('fields the server keeps out of the stored object are owned by no one (namespace spec.finalizers, defaulted list keys)', async () => {
    const { server } = ctx();
    const ns = uniqueName('ns');
    const body = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { team: 'a' } }, spec: { finalizers: ['x.io/not-here'] } };
    const created = await server.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { 'user-agent': 'creator/1' });
    assert.is(created.status, 201, created.text);
    const r = await server.request('PATCH', `/api/v1/namespaces/${ns}?fieldManager=alpha`, JSON.stringify(body), APPLY);
    assert.is(r.status, 200, r.text);
    assert.equal(r.json.spec, created.json.spec, 'spec.finalizers only change through /finalize');
    assert.equal(dangling(r.json), []);
    assert.equal(entry(r.json, 'alpha')!.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:team': {} } } });
    const name = uniqueName('d');
    const withPort = deployment(name, { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] });
    const a1 = await apply(server, name, withPort, 'alpha');
    assert.is(a1.status, 201, a1.text);
    assert.equal(dangling(a1.json), []);
    const a2 = await apply(server, name, withPort, 'alpha');
    assert.is(a2.status, 200, a2.text);
    assert.equal(a2.json.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }], 're-applying matches the defaulted item');
    assert.equal(dangling(a2.json), []);
  });
});
