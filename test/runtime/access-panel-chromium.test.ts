/**
 * The machines page with `svc up` (one simulated node) running a Deployment rollout held by
 * minReadySeconds: the static first render (no script at all) already shows the summary in the
 * first 1400 × 1000 screenful; live, the deployment controller's objects table shows the
 * Deployment in its lifecycle state, lit on the lifecycle chart when selected.
 *
 * The access panel of /debug/machines/ui in real headless Chromium, against a real secured
 * `svc up` (Node,RBAC, its own CA): users with static tokens (--token-auth-file; the browser
 * sends them as bearer tokens), allowed the page by a ClusterRole on the non-resource path. The panel shows the viewer's own access matrix by default, answered by the authorizer in
 * force (RBAC: `view` in one namespace); asking about someone else or who-can is refused for a
 * viewer who could not ask the API server that themselves; an auditor allowed to create
 * SubjectAccessReviews and list bindings sees another user's matrix and who-can. A user without
 * the path is refused the page itself.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../helpers/apiserver.js';
import { startSvcUp, type SvcUp } from '../helpers/svc-up.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

const POLICY = `
apiVersion: v1
kind: Namespace
metadata: { name: team }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: machines-page }
rules:
- nonResourceURLs: ["/debug/machines", "/debug/machines/*"]
  verbs: ["get"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: access-auditor }
rules:
- apiGroups: ["authorization.k8s.io"]
  resources: ["subjectaccessreviews"]
  verbs: ["create"]
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["rolebindings", "clusterrolebindings"]
  verbs: ["list"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: machines-page }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: machines-page }
subjects:
- { kind: User, name: viewer, apiGroup: rbac.authorization.k8s.io }
- { kind: User, name: auditor, apiGroup: rbac.authorization.k8s.io }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: access-auditor }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: access-auditor }
subjects:
- { kind: User, name: auditor, apiGroup: rbac.authorization.k8s.io }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: viewers, namespace: team }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view }
subjects:
- { kind: User, name: viewer, apiGroup: rbac.authorization.k8s.io }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: { name: alice-edits, namespace: team }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit }
subjects:
- { kind: User, name: alice, apiGroup: rbac.authorization.k8s.io }
`;

const WEB = `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, namespace: default }
spec:
  replicas: 2
  minReadySeconds: 300
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec: { containers: [{ name: web, image: nginx }] }
`;

let up: SvcUp;
let browser: Browser;
const tokens: Record<string, string> = { viewer: 'viewer-token-0123456789', auditor: 'auditor-token-0123456789', outsider: 'outsider-token-0123456789' };
const tokenDir = mkdtempSync(join(tmpdir(), 'svc-access-tokens-'));

test.before(async () => {
  // Never skipped: without Chromium this test fails, in CI and elsewhere.
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`);
  const tokenFile = join(tokenDir, 'tokens.csv');
  writeFileSync(tokenFile, `${tokens['viewer']},viewer,1,"team-viewers"\n${tokens['auditor']},auditor,2\n${tokens['outsider']},outsider,3\n`);
  up = await startSvcUp('svc-access-panel', ['--nodes=1', '--image-pull-delay=20ms', '--container-start-delay=10ms', `--token-auth-file=${tokenFile}`]);
  await up.kubectlOk(['apply', '-f', up.manifest('policy.yaml', POLICY)]);
  // A rollout that stays in progress for the whole file: new pods count as available only after 5 minutes.
  await up.kubectlOk(['apply', '-f', up.manifest('web.yaml', WEB)]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
test.after(async () => {
  await browser?.close();
  await up?.stop();
  rmSync(tokenDir, { recursive: true, force: true });
});

async function pageAs(sa: string): Promise<Page> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, extraHTTPHeaders: { authorization: `Bearer ${tokens[sa]}` }, viewport: { width: 1400, height: 900 } });
  return context.newPage();
}

const ui = (query = '?namespace=team') => `https://127.0.0.1:${up.port}/debug/machines/ui${query}`;

/** Fills the namespace (and user and groups when given) and shows the matrix; resolves with the panel's state. */
async function showMatrix(page: Page, o: { namespace: string; user?: string; groups?: string }): Promise<string> {
  await page.fill('#access input[name="namespace"]', o.namespace);
  if (o.user !== undefined) await page.fill('#access input[name="user"]', o.user);
  if (o.groups !== undefined) await page.fill('#access input[name="groups"]', o.groups);
  await page.click('#access form[data-form="matrix"] button');
  await page.waitForSelector('#access[data-state="matrix"], #access[data-state="error"]', { timeout: 60_000 });
  return (await page.getAttribute('#access', 'data-state')) ?? '';
}

const cell = (page: Page, resource: string, verb: string) => page.getAttribute(`#access td[data-resource="${resource}"][data-verb="${verb}"]`, 'data-allowed');

test('the machines page at 1400 × 1000: the summary without any script, then the Deployment in its lifecycle state, lit when selected', async () => {
  // Static first render: no script runs, yet the first screenful is the summary.
  const still = await browser.newContext({ ignoreHTTPSErrors: true, javaScriptEnabled: false, extraHTTPHeaders: { authorization: `Bearer ${tokens['viewer']}` }, viewport: { width: 1400, height: 1000 } });
  const bare = await still.newPage();
  await bare.goto(ui(''));
  const row = bare.locator('#summary tr[data-controller="deployment"]');
  assert.match(await row.innerText(), /^deployment\s+running/);
  assert.is(await bare.locator('#summary [data-summary="nodes"]').innerText(), '1');
  assert.match(await bare.locator('#summary [data-summary="node-conditions"]').innerText(), /ready 1/);
  assert.match(await bare.locator('#summary').innerText(), /scheduler: scheduler/);
  const box = await bare.locator('#summary').boundingBox();
  assert.ok(box && box.y + box.height <= 1000, `the summary fits the first screenful: ${JSON.stringify(box)}`);
  assert.is(await bare.locator('details.card[open]').count(), 0, 'cards folded');
  assert.is(await bare.locator('details.card[data-machine="worker"]').count(), 0, 'workers are not cards');
  assert.ok((await bare.locator('details.card[data-role="controller"]').count()) >= 20);
  await still.close();

  // Live: the Deployment in the deployment controller's objects, held in progress by minReadySeconds.
  const page = await pageAs('viewer');
  await page.setViewportSize({ width: 1400, height: 1000 });
  const external: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(`https://127.0.0.1:${up.port}/`)) external.push(r.url()); });
  await page.goto(ui(''));
  await page.waitForSelector('#conn:text-is("live")', { timeout: 30_000 });
  await page.waitForFunction(() => /progressing\.\w+ 1/.test((globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('#summary tr[data-controller="deployment"] td.objects')?.textContent ?? ''), undefined, { timeout: 60_000 });
  const png = await page.screenshot();
  const dir = process.env['UPDATE_DOCS_IMAGES'] === '1' ? join(ROOT, 'docs', 'images') : join(ROOT, 'dist', 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'machines-page.png'), png);
  await page.click('#summary a:text-is("deployment")');
  const card = 'details.card[data-machine="controller"][data-state^="running"]#' + (await page.locator('details.card[open]').getAttribute('id'));
  const obj = page.locator(`${card} tr[data-object="default/web"]`);
  await obj.waitFor({ timeout: 30_000 });
  const state = (await obj.getAttribute('data-state')) ?? '';
  assert.match(state, /^progressing\./);
  assert.match(await obj.innerText(), /default\/web\s+progressing\./);
  await obj.click();
  await page.waitForSelector(`${card} .lifecycle .chart svg [id="state-${state}"].active`, { timeout: 15_000 });
  assert.match((await page.getAttribute(`${card} .lifecycle`, 'data-highlighted')) ?? '', new RegExp(`^progressing .*${state.replace(/\./g, '\\.')}$`));
  assert.equal(external, [], 'the page asks nothing outside the server');
  await page.context().close();
});

test("the viewer's own matrix by default, decided by RBAC; someone else's and who-can refused", async () => {
  const page = await pageAs('viewer');
  await page.goto(ui());
  await page.waitForSelector('#access[data-viewer="viewer"]', { timeout: 30_000 });
  // The first matrix is shown at once: the viewer's, in the namespace the link names.
  await page.waitForSelector('#access[data-state="matrix"], #access[data-state="error"]', { timeout: 60_000 });
  assert.is(await page.getAttribute('#access', 'data-state'), 'matrix', (await page.textContent('#access .error')) ?? '');
  assert.is(await page.inputValue('#access input[name="namespace"]'), 'team');
  assert.is(await page.inputValue('#access input[name="user"]'), 'viewer');
  assert.is(await page.inputValue('#access input[name="groups"]'), 'team-viewers,system:authenticated');
  assert.is(await cell(page, 'configmaps', 'get'), 'yes', 'view reads configmaps');
  assert.is(await cell(page, 'configmaps', 'list'), 'yes');
  assert.is(await cell(page, 'configmaps', 'create'), 'no', 'view does not write');
  assert.is(await cell(page, 'secrets', 'get'), 'no', 'view does not read secrets');
  assert.is(await cell(page, 'deployments.apps', 'watch'), 'yes');

  // Someone else: the viewer may not create SubjectAccessReviews, so the panel refuses.
  assert.is(await showMatrix(page, { namespace: 'team', user: 'alice', groups: '' }), 'error');
  assert.match((await page.textContent('#access .error')) ?? '', /may not see the access of another user \("alice"\).*subjectaccessreviews/);
  assert.is(await page.locator('#access table[data-matrix]').count(), 0, 'no matrix shown');
  await page.fill('#access input[name="verb"]', 'delete');
  await page.fill('#access input[name="resource"]', 'configmaps');
  await page.click('#access form[data-form="who-can"] button');
  await page.waitForSelector('#access[data-state="error"]', { timeout: 30_000 });
  assert.match((await page.textContent('#access .error')) ?? '', /may not ask who can/);
  await page.context().close();
});

test('an auditor (create subjectaccessreviews, list bindings) sees another user\'s matrix and who-can', async () => {
  const page = await pageAs('auditor');
  await page.goto(ui('?namespace=team&user=alice'));
  await page.waitForSelector('#access[data-viewer="auditor"]', { timeout: 30_000 });
  await page.waitForSelector('#access[data-state="matrix"], #access[data-state="error"]', { timeout: 60_000 });
  assert.is(await page.getAttribute('#access', 'data-state'), 'matrix', (await page.textContent('#access .error')) ?? '');
  assert.is(await page.getAttribute('#access table[data-matrix]', 'data-matrix'), 'alice in team', 'the link named alice, with no groups');
  assert.is(await cell(page, 'configmaps', 'create'), 'yes', 'alice edits in team');
  assert.is(await cell(page, 'secrets', 'delete'), 'yes');
  assert.is(await cell(page, 'rolebindings.rbac.authorization.svc.io', 'create'), 'no', 'edit does not bind roles');
  await page.fill('#access input[name="verb"]', 'delete');
  await page.fill('#access input[name="resource"]', 'configmaps');
  await page.click('#access form[data-form="who-can"] button');
  await page.waitForSelector('#access[data-state="who-can"]', { timeout: 60_000 });
  const rows = await page.locator('#access table[data-who-can] tr').allInnerTexts();
  const names = rows.slice(1).map((r) => r.split('\t').slice(0, 2).join(' '));
  assert.ok(names.includes('User alice'), names.join('; '));
  assert.ok(names.includes('Group system:masters'), names.join('; '));
  assert.not.ok(names.includes('User viewer'), `the viewer cannot delete: ${names.join('; ')}`);
  // Bad input is a 400 Status shown in the panel, not a crash.
  await page.fill('#access input[name="resource"]', 'Config Maps!');
  await page.click('#access form[data-form="who-can"] button');
  await page.waitForSelector('#access[data-state="error"]', { timeout: 30_000 });
  assert.match((await page.textContent('#access .error')) ?? '', /give a resource/);
  await page.context().close();
});

test('a user not allowed the path gets no page at all', async () => {
  const page = await pageAs('outsider');
  const r = await page.goto(ui());
  assert.is(r?.status(), 403);
  const api = await page.request.get(`https://127.0.0.1:${up.port}/debug/machines/access/matrix?namespace=team`);
  assert.is(api.status(), 403);
  await page.context().close();
});

test.run();
