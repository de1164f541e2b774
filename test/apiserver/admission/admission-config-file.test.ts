// --admission-control-config-file: the AdmissionConfiguration spellings, path resolution, the
// legacy unversioned file, and refusals naming the file and plugin (src/apiserver/admission/config-file.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AdmissionConfigError, resolveAdmissionConfiguration } from '../../../src/apiserver/admission/config-file.js';
import { checkAdmissionConfiguration } from '../../../src/apiserver/admission/plugins.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-admission-config-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

function refused(fn: () => unknown, ...parts: string[]): void {
  try {
    fn();
  } catch (e) {
    assert.instance(e, AdmissionConfigError);
    for (const p of parts) assert.ok((e as Error).message.includes(p), `"${(e as Error).message}" should mention ${p}`);
    return;
  }
  assert.unreachable('expected a refusal');
}

const ERL = ['apiVersion: eventratelimit.admission.svc.io/v1alpha1', 'kind: Configuration', 'limits:', '- type: Namespace', '  qps: 5', '  burst: 10', ''].join('\n');

test('v1: a relative path is read against the file\'s folder, inline configuration as given; other plugins are not read', () => {
  file('erl.yaml', ERL);
  const cfg = file(
    'admission.yaml',
    [
      'apiVersion: apiserver.config.svc.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: EventRateLimit',
      '  path: erl.yaml',
      '- name: PodNodeSelector',
      '  configuration:',
      '    podNodeSelectorPluginConfig:',
      '      clusterDefaultNodeSelector: env=prod',
      '- name: ImagePolicyWebhook',
      '  path: does-not-exist.yaml',
      '',
    ].join('\n'),
  );
  const out = resolveAdmissionConfiguration(cfg, ['EventRateLimit', 'PodNodeSelector']);
  assert.equal(Object.keys(out).sort(), ['EventRateLimit', 'PodNodeSelector']);
  assert.is(out['EventRateLimit']!.source, join(dir, 'erl.yaml'));
  assert.equal((out['EventRateLimit']!.value as { limits: unknown[] }).limits.length, 1);
  assert.is(out['PodNodeSelector']!.source, cfg);
  assert.equal(out['PodNodeSelector']!.value, { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=prod' } });
  checkAdmissionConfiguration(['EventRateLimit', 'PodNodeSelector'], out);
});

test('the established spellings, JSON, and the legacy unversioned file are read', () => {
  for (const apiVersion of ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1']) {
    const cfg = file('json.json', JSON.stringify({ apiVersion, kind: 'AdmissionConfiguration', plugins: [{ name: 'PodNodeSelector', configuration: { podNodeSelectorPluginConfig: { a: 'x=y' } } }] }));
    assert.equal(resolveAdmissionConfiguration(cfg, ['PodNodeSelector'])['PodNodeSelector']!.value, { podNodeSelectorPluginConfig: { a: 'x=y' } }, apiVersion);
  }
  const legacy = file('legacy.yaml', 'podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=dev\n');
  const out = resolveAdmissionConfiguration(legacy, ['PodNodeSelector', 'ImagePolicyWebhook']);
  assert.equal(Object.keys(out), ['PodNodeSelector']);
  assert.is(out['PodNodeSelector']!.source, legacy);
});

test('a malformed file is refused, naming the file (and the plugin)', () => {
  refused(() => resolveAdmissionConfiguration(file('a.yaml', 'plugins: []\n'), []), 'a.yaml', "'Kind' is missing");
  refused(() => resolveAdmissionConfiguration(file('b.yaml', 'apiVersion: apiserver.config.svc.io/v2\nkind: AdmissionConfiguration\n'), []), 'b.yaml', 'apiserver.config.svc.io/v2');
  const twice = 'apiVersion: apiserver.config.svc.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: EventRateLimit, path: x}\n- {name: EventRateLimit, path: y}\n';
  refused(() => resolveAdmissionConfiguration(file('c.yaml', twice), []), 'c.yaml', 'EventRateLimit is configured twice');
  const typo = 'apiVersion: apiserver.config.svc.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: EventRateLimit, config: {}}\n';
  refused(() => resolveAdmissionConfiguration(file('d.yaml', typo), []), 'd.yaml', 'plugins[0].config: unknown field');
  refused(() => resolveAdmissionConfiguration(file('e.yaml', 'apiVersion: [unclosed\n'), []), 'e.yaml', 'not valid YAML');
  refused(() => resolveAdmissionConfiguration(join(dir, 'absent.yaml'), []), 'absent.yaml', 'cannot read');
  const missing = 'apiVersion: apiserver.config.svc.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: EventRateLimit, path: gone.yaml}\n';
  refused(() => resolveAdmissionConfiguration(file('f.yaml', missing), ['EventRateLimit']), 'f.yaml', 'plugin EventRateLimit', 'gone.yaml');
});

test('a bad section of an enabled plugin is refused at start; a plugin that needs one refuses its absence', () => {
  const bad = file('erl-bad.yaml', ERL.replace('qps: 5', 'qps: 0').replace('type: Namespace', 'type: Galaxy'));
  const cfg = file('g.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- {name: EventRateLimit, path: erl-bad.yaml}\n');
  const sections = resolveAdmissionConfiguration(cfg, ['EventRateLimit']);
  refused(() => checkAdmissionConfiguration(['EventRateLimit'], sections), 'admission plugin EventRateLimit', bad, 'limits[0].type: Unsupported value: "Galaxy"', 'limits[0].qps: Invalid value: 0: must be positive');
  // Not enabled: its section is not even read.
  checkAdmissionConfiguration(['NamespaceLifecycle'], sections);
  refused(() => checkAdmissionConfiguration(['EventRateLimit'], {}), 'admission plugin EventRateLimit', 'must not be empty');
  refused(() => checkAdmissionConfiguration(['ImagePolicyWebhook'], {}), 'admission plugin ImagePolicyWebhook', 'no config specified');
  const wrongKind = { EventRateLimit: { plugin: 'EventRateLimit', source: 'here.yaml', value: { apiVersion: 'eventratelimit.admission.k8s.io/v1alpha1', kind: 'Config', limits: [] } } };
  refused(() => checkAdmissionConfiguration(['EventRateLimit'], wrongKind), 'here.yaml', 'no kind "Config"');
  // A section for an enabled plugin that reads none would silently not apply.
  const quota = { ResourceQuota: { plugin: 'ResourceQuota', source: 'q.yaml', value: { apiVersion: 'resourcequota.admission.k8s.io/v1', kind: 'Configuration' } } };
  refused(() => checkAdmissionConfiguration(['ResourceQuota'], quota), 'admission plugin ResourceQuota', 'q.yaml', 'takes no configuration');
  checkAdmissionConfiguration(['NamespaceLifecycle'], quota);
});

test.run();
