// ImagePolicyWebhook against a small HTTPS webhook in the test: the ImageReview it receives, allow,
// deny with reason, caching, audit annotations, and the failure policy (src/apiserver/admission/image-policy-webhook.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSelfSignedPair } from '../../../src/cli/tls.js';
import { AdmissionConfigError } from '../../../src/apiserver/admission/config-file.js';
import { FAILED_OPEN_ANNOTATION, imagePolicyWebhook, parseImagePolicyConfiguration } from '../../../src/apiserver/admission/image-policy-webhook.js';
import { admit, podAttrs, refusal } from './plugin-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-image-policy-'));
let server: Server;
let url = '';
let caFile = '';
const reviews: Record<string, unknown>[] = [];
let answer: (review: Record<string, unknown>) => { status: number; body: unknown } = () => ({ status: 200, body: { status: { allowed: true } } });

test.before(async () => {
  const pair = await generateSelfSignedPair(['127.0.0.1']);
  caFile = join(dir, 'ca.crt');
  writeFileSync(caFile, pair.caCert);
  server = createServer({ cert: pair.cert, key: pair.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      reviews.push(review);
      const a = answer(review);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/review`;
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function configFor(target: string, imagePolicy: Record<string, unknown>) {
  const kubeConfigFile = join(dir, `webhook-${Math.random()}.svcconfig`);
  writeFileSync(
    kubeConfigFile,
    ['apiVersion: v1', 'kind: Config', 'clusters:', '- name: w', '  cluster:', `    server: ${target}`, `    certificate-authority: ${caFile}`, 'users:', '- name: u', '  user: {}', 'contexts:', '- name: c', '  context: {cluster: w, user: u}', 'current-context: c', ''].join('\n'),
  );
  return parseImagePolicyConfiguration({ plugin: 'ImagePolicyWebhook', source: 'admission.yaml', value: { imagePolicy: { kubeConfigFile, ...imagePolicy } } });
}

const pod = (image: string, annotations: Record<string, string> = {}) =>
  podAttrs({ containers: [{ name: 'c', image }], initContainers: [{ name: 'i', image: 'init:1' }] }, {}, { annotations });

test('the webhook gets an ImageReview of every image, the policy annotations and the namespace; an allow admits', async () => {
  reviews.length = 0;
  answer = () => ({ status: 200, body: { apiVersion: 'imagepolicy.k8s.io/v1alpha1', kind: 'ImageReview', status: { allowed: true, auditAnnotations: { checked: 'yes' } } } });
  const plugin = imagePolicyWebhook(configFor(url, { allowTTL: 50, denyTTL: 50, retryBackoff: 1 }));
  const a = await admit(plugin, pod('app:1', { 'mycluster.image-policy.svc.io/ticket': '42', unrelated: 'x' }));
  assert.equal(reviews[0], {
    apiVersion: 'imagepolicy.svc.io/v1alpha1',
    kind: 'ImageReview',
    metadata: { creationTimestamp: null },
    spec: { containers: [{ image: 'app:1' }, { image: 'init:1' }], annotations: { 'mycluster.image-policy.svc.io/ticket': '42' }, namespace: 'ns' },
    status: { allowed: false },
  });
  assert.equal(a.auditAnnotations, { 'imagepolicywebhook.image-policy.svc.io/checked': 'yes' });
  // Cached for allowTTL: the same review is not sent again.
  await admit(plugin, pod('app:1', { 'mycluster.image-policy.svc.io/ticket': '42' }));
  assert.is(reviews.length, 1);
});

test('a denial is 403 with the reason', async () => {
  answer = (r) => ({ status: 200, body: { status: { allowed: false, ...(JSON.stringify(r).includes('evil') ? { reason: 'evil is not signed' } : {}) } } });
  const plugin = imagePolicyWebhook(configFor(url, { retryBackoff: 1 }));
  const err = await refusal(admit(plugin, pod('evil:1')));
  assert.is(err.code, 403);
  assert.is(err.message, 'pods "p" is forbidden: image policy webhook backend denied one or more images: evil is not signed');
  const bare = await refusal(admit(plugin, pod('other:1')));
  assert.is(bare.message, 'pods "p" is forbidden: one or more images rejected by webhook backend');
});

test('a failing webhook: refused without defaultAllow, admitted and marked with it', async () => {
  answer = () => ({ status: 500, body: { message: 'broken' } });
  const closed = imagePolicyWebhook(configFor(url, { retryBackoff: 1, defaultAllow: false }));
  const err = await refusal(admit(closed, pod('app:2')));
  assert.is(err.code, 403);
  assert.match(err.message, /^pods "p" is forbidden: .*answered 500/);
  const unreachable = imagePolicyWebhook(configFor('https://127.0.0.1:1/review', { retryBackoff: 1, defaultAllow: true }));
  const a = await admit(unreachable, pod('app:3'));
  assert.is(a.object!.metadata.annotations?.[FAILED_OPEN_ANNOTATION], 'true');
  assert.equal(a.auditAnnotations, { 'imagepolicywebhook.image-policy.svc.io/failed-open': 'true' });
});

test('the configuration is checked at start', () => {
  assert.throws(() => configFor(url, { allowTTL: 3600 }), (e: unknown) => e instanceof AdmissionConfigError && /imagePolicy\.allowTTL: valid value is between 1 and 1800/.test((e as Error).message));
  assert.throws(
    () => parseImagePolicyConfiguration({ plugin: 'ImagePolicyWebhook', source: 'a.yaml', value: { imagePolicy: { kubeConfigFile: join(dir, 'missing.svcconfig') } } }),
    (e: unknown) => e instanceof AdmissionConfigError && /a\.yaml.*kubeConfigFile.*cannot read/.test((e as Error).message),
  );
});

test.run();
