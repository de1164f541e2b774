// The admission chain's shared rules, without a server: audit annotations (key format, no
// override, passed on as added), the reinvocation of the whole mutating chain (once, never a third
// time), the per-webhook credential lookup and the WebhookAdmissionConfiguration's refusals, the
// admission metrics the chain reports, and the audit error metric by plugin.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { configMapDefinition } from '../../../src/api/index.js';
import { AdmissionChain, addAuditAnnotation, type AdmissionAttributes, type AdmissionPlugin } from '../../../src/apiserver/admission/chain.js';
import { AdmissionMetrics } from '../../../src/apiserver/admission/metrics.js';
import { credentialFor, parseWebhookAdmissionConfiguration, type WebhookCredentials } from '../../../src/apiserver/admission/webhook/credentials.js';
import { AdmissionConfigError } from '../../../src/apiserver/admission/config-file.js';
import { type AuditBackend, wrapBackend } from '../../../src/apiserver/audit/backend.js';
import { AuditMetrics } from '../../../src/apiserver/audit/metrics.js';
import { enforceSinkPolicy } from '../../../src/apiserver/audit/dynamic-backend.js';
import type { AuditEvent } from '../../../src/apiserver/audit/event.js';
import { createCA } from '../../helpers/pki.js';

const attrs = (extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  def: configMapDefinition,
  namespace: 'default',
  name: 'c',
  subresource: '',
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
  dryRun: false,
  user: { username: 'admin', groups: ['system:masters'] },
  ...extra,
});

test('audit annotations: a qualified key with a domain, the first value kept, each passed on once as added', () => {
  const seen: [string, string][] = [];
  const a = attrs({ onAuditAnnotation: (k, v) => seen.push([k, v]) });
  assert.is(addAuditAnnotation(a, 'mutation.example.com/round', '0'), undefined);
  assert.is(addAuditAnnotation(a, 'mutation.example.com/round', '0'), undefined, 'the same value again is fine');
  assert.match(addAuditAnnotation(a, 'mutation.example.com/round', '1') ?? '', 'admission annotations are not allowd to be overridden, key:"mutation.example.com/round", old value: 0, new value: 1');
  assert.match(addAuditAnnotation(a, 'no-domain', 'x') ?? '', 'annotation key has invalid format');
  assert.match(addAuditAnnotation(a, 'a/b/c', 'x') ?? '', 'annotation key has invalid format');
  assert.match(addAuditAnnotation(a, 'Bad_Domain!/key', 'x') ?? '', 'A qualified name like');
  assert.equal(a.auditAnnotations, { 'mutation.example.com/round': '0' });
  assert.equal(seen, [['mutation.example.com/round', '0']]);
});

/** A built-in mutating plugin that counts its runs and appends to a label. */
function counter(name: string, runs: string[]): AdmissionPlugin {
  return {
    name,
    sideEffects: 'None',
    handles: () => true,
    mutate(a) {
      runs.push(`${name}${a.reinvocation?.isReinvoke ? ':again' : ''}`);
    },
  };
}

/** Stands for the webhook plugin: asks for a second run when `change` says it changed the object. */
function changer(runs: string[], change: (round: number) => boolean): AdmissionPlugin {
  let round = 0;
  return {
    name: 'MutatingAdmissionWebhook',
    sideEffects: 'NoneOnDryRun',
    handles: () => true,
    mutate(a) {
      runs.push(`hook${a.reinvocation!.isReinvoke ? ':again' : ''}`);
      if (change(round++)) a.reinvocation!.shouldReinvoke = true;
    },
  };
}

test('reinvocation: a change asks for one more run of every mutating plugin, never a third', async () => {
  let runs: string[] = [];
  const chain = (change: (round: number) => boolean) => new AdmissionChain([counter('LimitRanger', runs), changer(runs, change), counter('ResourceQuota', runs)]);
  await chain(() => false).mutate(attrs());
  assert.equal(runs, ['LimitRanger', 'hook', 'ResourceQuota'], 'no change, one run');
  runs = [];
  await chain((round) => round === 0).mutate(attrs());
  assert.equal(runs, ['LimitRanger', 'hook', 'ResourceQuota', 'LimitRanger:again', 'hook:again', 'ResourceQuota:again']);
  runs = [];
  await chain(() => true).mutate(attrs());
  assert.is(runs.length, 6, 'a change in the second run does not bring a third');
  // Validation runs once whatever happened in the mutating phase.
  runs = [];
  const validated: string[] = [];
  const v = new AdmissionChain([{ name: 'V', sideEffects: 'None', handles: () => true, validate: () => void validated.push('V') }, changer(runs, () => true)]);
  const a = attrs();
  await v.mutate(a);
  await v.validate(a);
  assert.equal(validated, ['V']);
});

test('admission metrics: each plugin and each phase, rejected when it threw; both runs of a reinvoked phase are one step', async () => {
  const registry = new Registry();
  const metrics = new AdmissionMetrics(registry);
  const runs: string[] = [];
  const deny: AdmissionPlugin = { name: 'AlwaysDeny', sideEffects: 'None', handles: () => true, validate: () => { throw new Error('denied'); } };
  const chain = new AdmissionChain([counter('LimitRanger', runs), changer(runs, (r) => r === 0), deny], metrics);
  const a = attrs();
  await chain.mutate(a);
  await chain.validate(a).catch(() => undefined);
  const text = await registry.metrics();
  assert.match(text, 'apiserver_admission_controller_admission_duration_seconds_count{name="LimitRanger",type="admit",operation="CREATE",rejected="false"} 2');
  assert.match(text, 'apiserver_admission_controller_admission_duration_seconds_count{name="AlwaysDeny",type="validate",operation="CREATE",rejected="true"} 1');
  assert.match(text, 'apiserver_admission_step_admission_duration_seconds_count{type="admit",operation="CREATE",rejected="false"} 1');
  assert.match(text, 'apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"} 1');
  metrics.webhookRejection('hook.example.com', 'validating', a, 'no_error', 999);
  assert.match(await registry.metrics(), 'apiserver_admission_webhook_rejection_count{name="hook.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="600"} 1');
});

test('per-webhook credentials: exact, then *.suffix longest first, then without :443, then *', () => {
  const c = (token: string) => ({ token });
  const creds = (names: string[]): WebhookCredentials => ({ file: 'x', users: new Map(names.map((n) => [n, c(n)])) });
  const all = creds(['hook.ns.svc:443', '*.ns.svc:443', '*.svc:443', 'hook.ns.svc', '*.ns.svc', '*.svc', '*', '10.0.0.1:8443']);
  assert.is(credentialFor(all, 'hook.ns.svc:443')?.token, 'hook.ns.svc:443');
  assert.is(credentialFor(creds(['*.svc:443', '*.ns.svc:443', '*']), 'hook.ns.svc:443')?.token, '*.ns.svc:443');
  assert.is(credentialFor(creds(['*.svc', 'hook.ns.svc', '*']), 'hook.ns.svc:443')?.token, 'hook.ns.svc');
  assert.is(credentialFor(creds(['*.svc', '*.ns.svc', '*']), 'hook.ns.svc:443')?.token, '*.ns.svc');
  assert.is(credentialFor(creds(['hook.ns.svc', '*']), 'hook.ns.svc:8443')?.token, '*', 'the port is dropped only when it is 443');
  assert.is(credentialFor(all, '10.0.0.1:8443')?.token, '10.0.0.1:8443');
  assert.is(credentialFor(creds(['other.svc']), 'hook.ns.svc:443'), undefined);
});

test('WebhookAdmissionConfiguration: read at start; what cannot be used is refused naming the file and the user', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-creds-'));
  try {
    const ca = await createCA('creds-ca', dir);
    const leaf = await ca.issue({ cn: 'caller' }, 'caller');
    const other = await ca.issue({ cn: 'other' }, 'other');
    const file = join(dir, 'hooks.svcconfig');
    const section = (value: unknown) => ({ plugin: 'ValidatingAdmissionWebhook', source: '/etc/admission.yaml', value });
    const typed = (kubeConfigFile: string, apiVersion = 'apiserver.config.k8s.io/v1', kind = 'WebhookAdmissionConfiguration') => section({ apiVersion, kind, kubeConfigFile });
    const refusal = (value: ReturnType<typeof section>): string => {
      try {
        parseWebhookAdmissionConfiguration('ValidatingAdmissionWebhook', value);
      } catch (err) {
        assert.ok(err instanceof AdmissionConfigError, String(err));
        return err.message;
      }
      assert.unreachable('expected a refusal');
      return '';
    };
    writeFileSync(file, `users:\n- name: "*.ns.svc"\n  user:\n    client-certificate: caller.crt\n    client-key: caller.key\n    token-file: token\n`);
    writeFileSync(join(dir, 'token'), 'secret-token\n');
    const creds = parseWebhookAdmissionConfiguration('ValidatingAdmissionWebhook', typed(file))!;
    const got = credentialFor(creds, 'hook.ns.svc:443');
    assert.is(got?.token, 'secret-token');
    assert.is(got?.cert, leaf.certPem, 'paths relative to the kubeconfig\'s folder');
    assert.ok(parseWebhookAdmissionConfiguration('MutatingAdmissionWebhook', typed(file, 'apiserver.k8s.io/v1alpha1', 'WebhookAdmission')));
    assert.is(parseWebhookAdmissionConfiguration('MutatingAdmissionWebhook', undefined), undefined);
    assert.is(refusal(typed('hooks.svcconfig')), 'admission plugin ValidatingAdmissionWebhook: configuration in /etc/admission.yaml: kubeConfigFile: Invalid value: "hooks.svcconfig": must be an absolute file path');
    assert.match(refusal(typed(file, 'apiserver.config.k8s.io/v1', 'AdmissionConfiguration')), 'no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1"');
    assert.match(refusal(section({ apiVersion: 'apiserver.config.svc.io/v1', kind: 'WebhookAdmissionConfiguration' })), 'kubeConfigFile: Required value');
    assert.match(refusal(typed(join(dir, 'missing'))), `kubeConfigFile ${join(dir, 'missing')}: cannot read it`);
    writeFileSync(file, `users:\n- name: a\n  user:\n    client-certificate: caller.crt\n`);
    assert.match(refusal(typed(file)), 'user "a" has client-certificate but no client-key');
    writeFileSync(file, `users:\n- name: a\n  user:\n    client-certificate: caller.crt\n    client-key: other.key\n`);
    assert.match(refusal(typed(file)), 'user "a": client-key does not match client-certificate');
    writeFileSync(file, `users:\n- name: a\n  user:\n    username: u\n    password: p\n`);
    assert.match(refusal(typed(file)), 'user "a": username is not supported for admission webhooks by this server');
    writeFileSync(file, `users:\n- name: a\n  user:\n    token-file: nowhere\n`);
    assert.match(refusal(typed(file)), `user "a": cannot read token-file ${join(dir, 'nowhere')}`);
    void other;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('audit metrics: events a sink could not store, a full buffer dropped or truncation discarded count by plugin', async () => {
  const registry = new Registry();
  const metrics = new AuditMetrics(registry);
  const errors = (plugin: string, n: number) => metrics.pluginError(plugin, n);
  const failing: AuditBackend = { processEvents: () => false, shutdown: async () => undefined };
  const ev = (id: string, extra: Partial<AuditEvent> = {}): AuditEvent => ({ level: 'Metadata', auditID: id, stage: 'ResponseComplete', requestURI: '/', verb: 'get', user: { username: 'u' }, requestReceivedTimestamp: '', stageTimestamp: '', ...extra }) as AuditEvent;
  const batch = { bufferSize: 1, maxBatchSize: 1, maxBatchWaitMs: 0, throttleEnable: false, throttleQps: 1, throttleBurst: 1 };
  const off = { enabled: false, maxBatchSize: 1, maxEventSize: 1 };
  const logger = pino({ level: 'silent' });
  const strict = wrapBackend(failing, { mode: 'blocking-strict', batch, truncate: off, apiVersion: 'audit.k8s.io/v1', name: 'log' }, logger, errors);
  assert.is(strict.processEvents([ev('1'), ev('2')]), false);
  const buffered = wrapBackend({ processEvents: () => true, shutdown: async () => undefined }, { mode: 'batch', batch, truncate: off, apiVersion: 'audit.k8s.io/v1', name: 'webhook' }, logger, errors);
  buffered.processEvents([ev('3'), ev('4'), ev('5')]);
  await buffered.shutdown();
  const tiny = wrapBackend({ processEvents: () => true, shutdown: async () => undefined }, { mode: 'blocking', batch, truncate: { enabled: true, maxBatchSize: 10, maxEventSize: 10 }, apiVersion: 'audit.k8s.io/v1', name: 'log' }, logger, errors);
  tiny.processEvents([ev('6')]);
  const text = await registry.metrics();
  assert.match(text, 'apiserver_audit_error_total{plugin="log"} 2');
  assert.match(text, 'apiserver_audit_error_total{plugin="buffered"} 2');
  assert.match(text, 'apiserver_audit_error_total{plugin="truncate"} 1');
});

test('a dynamic AuditSink\'s policy: its stages only, at its level, objects removed below it', () => {
  const ev = { level: 'RequestResponse', auditID: 'a', stage: 'ResponseComplete', requestURI: '/', verb: 'create', user: { username: 'u' }, requestReceivedTimestamp: 0, stageTimestamp: 0, requestObject: { a: 1 }, responseObject: { b: 2 } } as AuditEvent;
  const stages = new Set(['ResponseComplete']);
  assert.is(enforceSinkPolicy({ ...ev, stage: 'RequestReceived' }, 'Metadata', stages), undefined);
  assert.is(enforceSinkPolicy(ev, 'None', stages), undefined);
  const meta = enforceSinkPolicy(ev, 'Metadata', stages)!;
  assert.equal([meta.level, meta.requestObject, meta.responseObject], ['Metadata', undefined, undefined]);
  const req = enforceSinkPolicy(ev, 'Request', stages)!;
  assert.equal([req.level, req.requestObject, req.responseObject], ['Request', { a: 1 }, undefined]);
  assert.equal(enforceSinkPolicy(ev, 'RequestResponse', stages), ev);
  assert.equal(ev.requestObject, { a: 1 }, 'the event itself is left as it was');
});

test.run();
