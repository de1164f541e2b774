// PodNodeSelector: namespace selectors (both annotation spellings), the cluster default, whitelists
// and conflicts (src/apiserver/admission/pod-node-selector.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePodNodeSelectorConfiguration, podNodeSelector } from '../../../src/apiserver/admission/pod-node-selector.js';
import { AdmissionConfigError } from '../../../src/apiserver/admission/config-file.js';
import { admit, namespaces, ns, podAttrs, refusal } from './plugin-harness.js';

const config = parsePodNodeSelectorConfiguration({
  plugin: 'PodNodeSelector',
  source: 'test.yaml',
  value: { podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'env=dev', ns: 'env=prod,team=a,disk=ssd', other: 'env=dev' } },
});
const lookups = (n: ReturnType<typeof ns>) => ({ namespace: namespaces([n]) });
const selectorOf = (a: Awaited<ReturnType<typeof admit>>) => (a.object!['spec'] as { nodeSelector?: Record<string, string> }).nodeSelector;

test("the namespace's selector (svc and established spelling, merged) is merged into the pod's", async () => {
  const plugin = podNodeSelector(config, lookups(ns('ns', { 'scheduler.alpha.svc.io/node-selector': 'env=prod', 'scheduler.alpha.kubernetes.io/node-selector': 'team=a' })));
  const a = await admit(plugin, podAttrs({ containers: [{ name: 'c', image: 'x' }], nodeSelector: { disk: 'ssd' } }));
  assert.equal(selectorOf(a), { env: 'prod', team: 'a', disk: 'ssd' });
});

test('a namespace without the annotation gets clusterDefaultNodeSelector', async () => {
  const plugin = podNodeSelector(config, lookups(ns('plain')));
  const a = await admit(plugin, podAttrs({ containers: [] }, { namespace: 'plain' }));
  assert.equal(selectorOf(a), { env: 'dev' });
});

test('conflicts are refused with the established messages', async () => {
  const plugin = podNodeSelector(config, lookups(ns('ns', { 'scheduler.alpha.svc.io/node-selector': 'env=prod' })));
  const conflict = await refusal(admit(plugin, podAttrs({ nodeSelector: { env: 'dev' } })));
  assert.is(conflict.code, 403);
  assert.is(conflict.message, 'pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector');
  const outside = await refusal(admit(plugin, podAttrs({ nodeSelector: { zone: 'z1' } })));
  assert.is(outside.message, 'pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist');
  const twoSpellings = podNodeSelector(config, lookups(ns('ns', { 'scheduler.alpha.svc.io/node-selector': 'env=prod', 'scheduler.alpha.kubernetes.io/node-selector': 'env=dev' })));
  const clash = await refusal(admit(twoSpellings, podAttrs({})));
  assert.is(clash.code, 500);
  assert.is(clash.message, "ns annotations' node label selectors conflict");
  assert.is(clash.status.reason, undefined);
});

test('a malformed selector in the configuration is refused at start', () => {
  assert.throws(() => parsePodNodeSelectorConfiguration({ plugin: 'PodNodeSelector', source: 'x.yaml', value: { podNodeSelectorPluginConfig: { ns: 'env' } } }), (e: unknown) => e instanceof AdmissionConfigError && /x\.yaml.*podNodeSelectorPluginConfig\.ns: invalid selector/.test((e as Error).message));
  assert.equal(parsePodNodeSelectorConfiguration(undefined), {});
});

test.run();
