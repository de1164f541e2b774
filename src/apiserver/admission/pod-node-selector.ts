/**
 * PodNodeSelector (off by default; mutating and validating, pod CREATE): a namespace may say on
 * which nodes its pods run. Established behaviour, kept:
 *
 * - the namespace's selector is its annotation `scheduler.alpha.svc.io/node-selector`, and the
 *   established spelling `scheduler.alpha.kubernetes.io/node-selector` (both present: merged;
 *   a key with two values is an error `<ns> annotations' node label selectors conflict`); a
 *   namespace with neither gets `clusterDefaultNodeSelector` from the configuration;
 * - a selector is `key=value,key2=value2` (labels.ConvertSelectorToLabelsMap);
 * - mutate: a pod whose nodeSelector has a key of the namespace's selector with another value is
 *   refused (403 `pod node label selector conflicts with its namespace node label selector`);
 *   otherwise the namespace's selector is merged into the pod's;
 * - validate (also after mutate, as established): the same conflict check, then the namespace's
 *   whitelist from the configuration (`<namespace>: <selector>`): every label of the pod's
 *   selector must be in it (403 `pod node label selector labels conflict with its namespace
 *   whitelist`); no whitelist entry: anything goes.
 *
 * The configuration (in --admission-control-config-file, or the legacy unversioned file):
 *
 *     podNodeSelectorPluginConfig:
 *       clusterDefaultNodeSelector: env=prod
 *       team-a: env=prod,team=a
 *
 * Every selector in it is checked at start (the established plugin found a bad one at the first
 * pod); an absent configuration means no default and no whitelists.
 */
import type { SvcObject } from '../../api/types.js';
import { internalError } from '../../api/status.js';
import { isQualifiedName, isValidLabelValue } from '../../api/validation/names.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { pluginConfigError, type PluginConfiguration } from './config-file.js';
import { admissionForbidden, unclassifiedError } from './refusal.js';

export const NODE_SELECTOR_ANNOTATIONS = ['scheduler.alpha.svc.io/node-selector', 'scheduler.alpha.kubernetes.io/node-selector'] as const;

type LabelSet = Record<string, string>;

/** `k=v,k2=v2` as a map; throws Error with the established messages. */
export function selectorToLabels(selector: string): LabelSet {
  const out: LabelSet = {};
  if (selector.length === 0) return out;
  for (const label of selector.split(',')) {
    const kv = label.split('=');
    if (kv.length !== 2) throw new Error(`invalid selector: [${kv.join(' ')}]`);
    const key = kv[0]!.trim();
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length) throw new Error(`invalid label key "${key}": ${keyErrs.join('; ')}`);
    const value = kv[1]!.trim();
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length) throw new Error(`invalid label value: "${value}": at key: "${key}": ${valueErrs.join('; ')}`);
    out[key] = value;
  }
  return out;
}

const conflicts = (a: LabelSet, b: LabelSet): boolean => Object.keys(a).some((k) => k in b && b[k] !== a[k]);

/** clusterDefaultNodeSelector and the namespaces' whitelists, each checked. */
export function parsePodNodeSelectorConfiguration(cfg: PluginConfiguration | undefined): Readonly<Record<string, string>> {
  if (!cfg) return {};
  const fail = (msg: string): never => {
    throw pluginConfigError('PodNodeSelector', cfg.source, msg);
  };
  const doc = cfg.value;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail('expected podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: <selector>, <namespace>: <selector>, ...}');
  const section = (doc as Record<string, unknown>)['podNodeSelectorPluginConfig'];
  if (section === undefined) return fail('podNodeSelectorPluginConfig: Required value: {clusterDefaultNodeSelector: <selector>, <namespace>: <selector>, ...}');
  if (section === null || typeof section !== 'object' || Array.isArray(section)) return fail('podNodeSelectorPluginConfig: must be a map of names to selectors');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(section)) {
    if (typeof v !== 'string') fail(`podNodeSelectorPluginConfig.${k}: must be a selector string like "env=prod,team=a", got ${JSON.stringify(v)}`);
    try {
      selectorToLabels(v as string);
    } catch (err) {
      fail(`podNodeSelectorPluginConfig.${k}: ${(err as Error).message}`);
    }
    out[k] = v as string;
  }
  return out;
}

export interface PodNodeSelectorLookups {
  /** The namespace as the cache has it, else as stored (undefined when absent). */
  namespace(name: string): Promise<SvcObject | undefined>;
}

export function podNodeSelector(config: Readonly<Record<string, string>>, lookups: PodNodeSelectorLookups): AdmissionPlugin {
  const namespaceSelector = async (a: AdmissionAttributes): Promise<LabelSet> => {
    const ns = await lookups.namespace(a.namespace);
    if (!ns) throw internalError(`Internal error occurred: namespace ${a.namespace} does not exist`);
    const annotations = ns.metadata.annotations ?? {};
    let selector: LabelSet = {};
    let found = false;
    for (const key of NODE_SELECTOR_ANNOTATIONS) {
      const text = annotations[key];
      if (text === undefined) continue;
      let labels: LabelSet;
      try {
        labels = selectorToLabels(text);
      } catch (err) {
        throw unclassifiedError((err as Error).message);
      }
      if (conflicts(selector, labels)) throw unclassifiedError(`${a.namespace} annotations' node label selectors conflict`);
      selector = { ...selector, ...labels };
      found = true;
    }
    return found ? selector : selectorToLabels(config['clusterDefaultNodeSelector'] ?? '');
  };
  const podSelector = (a: AdmissionAttributes): LabelSet => ((a.object?.['spec'] as { nodeSelector?: LabelSet } | undefined)?.nodeSelector ?? {});
  const check = async (a: AdmissionAttributes, nsSelector: LabelSet): Promise<void> => {
    if (conflicts(nsSelector, podSelector(a))) throw admissionForbidden(a, 'pod node label selector conflicts with its namespace node label selector');
    const whitelist = selectorToLabels(config[a.namespace] ?? '');
    if (Object.keys(whitelist).length === 0) return;
    const subset = Object.entries(podSelector(a)).every(([k, v]) => whitelist[k] === v);
    if (!subset) throw admissionForbidden(a, 'pod node label selector labels conflict with its namespace whitelist');
  };
  return {
    name: 'PodNodeSelector',
    sideEffects: 'None',
    handles: (a) => a.operation === 'CREATE' && a.def.group === '' && a.def.plural === 'pods' && a.subresource === '' && !!a.object,
    async mutate(a) {
      const nsSelector = await namespaceSelector(a);
      if (conflicts(nsSelector, podSelector(a))) throw admissionForbidden(a, 'pod node label selector conflicts with its namespace node label selector');
      const merged = { ...nsSelector, ...podSelector(a) };
      if (Object.keys(merged).length > 0) {
        const obj = a.object!;
        obj['spec'] = { ...((obj['spec'] as object | undefined) ?? {}), nodeSelector: merged };
      }
      await check(a, nsSelector);
    },
    async validate(a) {
      await check(a, await namespaceSelector(a));
    },
  };
}

