/**
 * Issue 24's scan: with RBAC on and anonymous requests allowed (the established defaults of a
 * secured server), every resource and every verb asked with no credentials is refused (403; a
 * present-but-wrong token 401), except what the default roles give everyone (discovery, version,
 * health); and nothing is written: no object named by the scan appears, and the existing objects
 * the scan tried to delete, update or patch are still there unchanged.
 *
 * And kubectl 1.35 with a client certificate: `auth can-i --list` shows what the user's bindings
 * grant, `auth whoami` names the user and groups.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request, type Agent } from 'undici';
import { readFileSync } from 'node:fs';
import { Agent as UndiciAgent } from 'undici';
import { type ApiServerProcess, startApiServer } from '../../helpers/apiserver.js';
import { clientAgent, createCA, type CertificateAuthority } from '../../helpers/pki.js';
import { writeSvcconfig } from '../../helpers/client.js';
import { kubectl, KUBECTL_V35 } from '../../helpers/kubectl.js';

let server: ApiServerProcess | undefined;
let ca: CertificateAuthority | undefined;
test.after(async () => {
  await server?.stop();
  server?.cleanup();
  ca?.cleanup();
});

interface Discovered {
  path: string;
  namespaced: boolean;
  verbs: string[];
  kind: string;
  apiVersion: string;
}

async function send(agent: Agent, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
  const r = await request(`${server!.url}${path}`, {
    dispatcher: agent,
    method: method as 'GET',
    headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await r.body.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, json };
}

async function discover(admin: Agent): Promise<Discovered[]> {
  const out: Discovered[] = [];
  const groupVersions = ['v1'];
  const apis = (await send(admin, 'GET', '/apis')).json as { groups: { preferredVersion: { groupVersion: string } }[] };
  for (const g of apis.groups) groupVersions.push(g.preferredVersion.groupVersion);
  for (const gv of groupVersions) {
    const base = gv === 'v1' ? '/api/v1' : `/apis/${gv}`;
    const list = (await send(admin, 'GET', base)).json as { resources: { name: string; namespaced: boolean; verbs: string[]; kind: string }[] };
    for (const r of list.resources) if (!r.name.includes('/')) out.push({ path: `${base}/${r.namespaced ? 'namespaces/default/' : ''}${r.name}`, namespaced: r.namespaced, verbs: r.verbs, kind: r.kind, apiVersion: gv });
  }
  return out;
}

test('no credentials: every resource and verb refused, nothing written; only discovery, version and health answer', async () => {
  ca = await createCA('scan-ca');
  server = await startApiServer({ args: ['--authorization-mode=Node,RBAC', `--client-ca-file=${ca.certFile}`] });
  const admin = clientAgent(server, await ca.issue({ cn: 'scan-admin', orgs: ['system:masters'] }));
  const anonymous = new UndiciAgent({ connect: { ca: readFileSync(server.caFile, 'utf8'), servername: 'localhost' } });
  try {
    const resources = await discover(admin);
    assert.ok(resources.length > 40, `discovered ${resources.length}`);
    // An existing object per resource (where there is one), to aim deletes, updates and patches at.
    const targets = new Map<string, { name: string; uid: string; resourceVersion: string }>();
    for (const r of resources) {
      if (!r.verbs.includes('list')) continue;
      const items = ((await send(admin, 'GET', r.path)).json?.['items'] ?? []) as { metadata: { name: string; uid: string; resourceVersion: string } }[];
      if (items[0]) targets.set(r.path, items[0].metadata);
    }
    assert.ok(targets.size >= 5, `found objects of ${targets.size} resources to aim at`);
    let asked = 0;
    const unexpected: string[] = [];
    for (const r of resources) {
      const name = targets.get(r.path)?.name ?? 'anon-scan';
      const body = { apiVersion: r.apiVersion, kind: r.kind, metadata: { name: 'anon-scan', ...(r.namespaced ? { namespace: 'default' } : {}) } };
      const attempts: [string, string, unknown?][] = [
        ['GET', r.path],
        ['GET', `${r.path}?watch=1&timeoutSeconds=1`],
        ['GET', `${r.path}/${name}`],
        ['POST', r.path, body],
        ['PUT', `${r.path}/${name}`, { ...body, metadata: { ...body.metadata, name } }],
        ['PATCH', `${r.path}/${name}`, { metadata: { labels: { scanned: 'yes' } } }],
        ['DELETE', `${r.path}/${name}`],
        ['DELETE', r.path],
      ];
      for (const [method, path, payload] of attempts) {
        asked++;
        const a = await send(anonymous, method, path, payload);
        if (a.status !== 403) unexpected.push(`${method} ${path}: ${a.status}`);
        else if (!String(a.json?.['message']).includes('User "system:anonymous"')) unexpected.push(`${method} ${path}: 403 without naming the user: ${String(a.json?.['message'])}`);
      }
      // Present but wrong credentials: 401, never anonymous.
      const wrong = await send(anonymous, 'GET', r.path, undefined, { authorization: 'Bearer not-a-token' });
      if (wrong.status !== 401 && wrong.status !== 403) unexpected.push(`GET ${r.path} with an unknown token: ${wrong.status}`);
    }
    assert.equal(unexpected, [], `${unexpected.length} of ${asked} answers were not a 403 naming system:anonymous`);
    console.log(`[figure] anonymous scan: ${asked} requests over ${resources.length} resources, all 403`);

    // What everyone may read (system:public-info-viewer, system:discovery for the authenticated only).
    for (const path of ['/healthz', '/livez', '/readyz', '/version']) assert.is((await send(anonymous, 'GET', path)).status, 200, path);
    for (const path of ['/api', '/apis', '/openapi/v2', '/metrics', '/logs']) assert.is((await send(anonymous, 'GET', path)).status, 403, path);

    // Nothing written.
    for (const r of resources) {
      if (!r.verbs.includes('list')) continue;
      const items = ((await send(admin, 'GET', r.path)).json?.['items'] ?? []) as { metadata: { name: string; uid: string; resourceVersion: string; labels?: Record<string, string> } }[];
      assert.not.ok(items.some((i) => i.metadata.name === 'anon-scan'), `${r.path}: anon-scan was created`);
      const t = targets.get(r.path);
      if (!t) continue;
      const still = items.find((i) => i.metadata.uid === t.uid);
      assert.ok(still, `${r.path}/${t.name} was deleted`);
      assert.not.ok(still.metadata.labels?.['scanned'], `${r.path}/${t.name} was patched`);
    }
  } finally {
    await admin.close();
    await anonymous.close();
  }
});

test('kubectl 1.35 with a client certificate: whoami, and can-i --list shows what its binding grants', async () => {
  const user = await ca!.issue({ cn: 'jane', orgs: ['dev'] });
  const admin = clientAgent(server!, await ca!.issue({ cn: 'scan-admin', orgs: ['system:masters'] }));
  try {
    const role = { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'Role', metadata: { name: 'cm-reader', namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }] };
    assert.is((await send(admin, 'POST', '/apis/rbac.authorization.svc.io/v1/namespaces/default/roles', role)).status, 201);
    const binding = {
      apiVersion: 'rbac.authorization.svc.io/v1', kind: 'RoleBinding', metadata: { name: 'jane-reads', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ kind: 'Group', name: 'dev', apiGroup: 'rbac.authorization.svc.io' }],
    };
    assert.is((await send(admin, 'POST', '/apis/rbac.authorization.svc.io/v1/namespaces/default/rolebindings', binding)).status, 201);
  } finally {
    await admin.close();
  }
  const config = writeSvcconfig(server!, { name: 'jane.svcconfig', user });
  const who = await kubectl(config, ['auth', 'whoami', '-o', 'json'], 30_000, { bin: KUBECTL_V35 });
  assert.is(who.code, 0, who.stderr);
  const info = (JSON.parse(who.stdout) as { status: { userInfo: { username: string; groups: string[] } } }).status.userInfo;
  assert.is(info.username, 'jane');
  assert.equal(info.groups, ['dev', 'system:authenticated']);
  const list = await kubectl(config, ['auth', 'can-i', '--list', '-n', 'default'], 30_000, { bin: KUBECTL_V35 });
  assert.is(list.code, 0, list.stderr);
  const configmaps = list.stdout.split('\n').find((l) => /^configmaps\s/.test(l));
  assert.ok(configmaps, list.stdout);
  assert.match(configmaps, /\[get list\]/);
  assert.not.ok(/^secrets\s/m.test(list.stdout), 'no rule for secrets');
  for (const [verb, resource, expected] of [['list', 'configmaps', 'yes'], ['delete', 'configmaps', 'no'], ['get', 'secrets', 'no']] as const) {
    const r = await kubectl(config, ['auth', 'can-i', verb, resource, '-n', 'default'], 30_000, { bin: KUBECTL_V35 });
    assert.is(r.stdout.trim(), expected, `${verb} ${resource}: ${r.stdout}${r.stderr}`);
  }
  const other = await kubectl(config, ['auth', 'can-i', 'list', 'configmaps', '-n', 'kube-public'], 30_000, { bin: KUBECTL_V35 });
  assert.is(other.stdout.trim(), 'no');
});

test.run();
