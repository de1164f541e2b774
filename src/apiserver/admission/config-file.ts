/**
 * --admission-control-config-file: the AdmissionConfiguration that gives plugins their settings.
 *
 * The file (YAML or JSON) is, as established,
 *
 *     apiVersion: apiserver.config.svc.io/v1      # or apiserver.config.k8s.io/v1, .../v1alpha1, apiserver.k8s.io/v1alpha1
 *     kind: AdmissionConfiguration
 *     plugins:
 *     - name: EventRateLimit
 *       path: eventratelimit.yaml                 # relative: to this file's folder
 *     - name: PodNodeSelector
 *       configuration:                            # or inline
 *         podNodeSelectorPluginConfig: {...}
 *
 * or one of the two legacy unversioned files (a top-level `imagePolicy` or
 * `podNodeSelectorPluginConfig`), which the established server reads as the configuration of
 * ImagePolicyWebhook and PodNodeSelector.
 *
 * Rules kept from the established server: an entry's inline `configuration` wins over its `path`;
 * an entry for a plugin that is not enabled is fine and its `path` is never read; each enabled
 * plugin reads its own section. Stricter here (a mistake would otherwise be a setting silently not
 * applied): an unknown field, an entry without a name or with neither path nor configuration, and
 * a plugin named twice are refused at start. Every error names the file and the plugin.
 *
 * `resolveAdmissionConfiguration` reads the files: the server gets parsed values, not paths
 * (`AdmissionPluginConfigurations`), and each plugin parses its own section at start (plugins.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** The AdmissionConfiguration spellings accepted: ours, then the established ones. */
export const ADMISSION_CONFIGURATION_VERSIONS = [
  'apiserver.config.svc.io/v1',
  'apiserver.config.svc.io/v1alpha1',
  'apiserver.config.k8s.io/v1',
  'apiserver.config.k8s.io/v1alpha1',
  'apiserver.k8s.io/v1alpha1',
] as const;

/** A file that cannot be used: the message names the file (and the plugin, when one is concerned). */
export class AdmissionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdmissionConfigError';
  }
}

/** One plugin's configuration, read: where it came from (for messages) and its parsed value. */
export interface PluginConfiguration {
  plugin: string;
  /** The file the value was read from: the AdmissionConfiguration itself (inline) or the entry's path. */
  source: string;
  value: unknown;
}

/** The configurations of the enabled plugins that have one, by plugin name. */
export type AdmissionPluginConfigurations = Readonly<Record<string, PluginConfiguration>>;

/** One `plugins[]` entry, its path made absolute. */
interface Entry {
  name: string;
  path?: string;
  configuration?: unknown;
}

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The plugins the legacy unversioned file configures (established: only these two read it). */
const LEGACY_PLUGINS: Readonly<Record<string, string>> = { imagePolicy: 'ImagePolicyWebhook', podNodeSelectorPluginConfig: 'PodNodeSelector' };

/** Parses YAML or JSON text (JSON is read as YAML); `what` names it in the error. */
export function parseConfigText(text: string, what: string): unknown {
  try {
    return parseYaml(text) as unknown;
  } catch (err) {
    throw new AdmissionConfigError(`${what}: not valid YAML or JSON: ${(err as Error).message.split('\n')[0]}`);
  }
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new AdmissionConfigError(`${what}: cannot read ${file}: ${(err as Error).message}`);
  }
}

/** The entries of an AdmissionConfiguration document (paths made absolute against `file`'s folder). */
export function admissionConfigurationEntries(doc: unknown, file: string): Entry[] {
  const fail = (msg: string): never => {
    throw new AdmissionConfigError(`${file}: ${msg}`);
  };
  if (!isRecord(doc)) return fail('expected an AdmissionConfiguration (apiVersion: apiserver.config.svc.io/v1, kind: AdmissionConfiguration, plugins: [...])');
  const apiVersion = doc['apiVersion'];
  const kind = doc['kind'];
  if (apiVersion === undefined && kind === undefined) {
    // The legacy unversioned file: its own path is the configuration of the plugins it names.
    const legacy = Object.keys(LEGACY_PLUGINS).filter((k) => k in doc);
    if (legacy.length === 0) return fail("Object 'Kind' is missing: expected kind: AdmissionConfiguration with an apiVersion (e.g. apiserver.config.svc.io/v1)");
    return legacy.map((k) => ({ name: LEGACY_PLUGINS[k]!, configuration: doc }));
  }
  if (kind !== 'AdmissionConfiguration') return fail(`kind ${JSON.stringify(kind)} is not AdmissionConfiguration`);
  if (!(ADMISSION_CONFIGURATION_VERSIONS as readonly unknown[]).includes(apiVersion)) {
    return fail(`no kind "AdmissionConfiguration" is registered for version ${JSON.stringify(apiVersion)}; use one of ${ADMISSION_CONFIGURATION_VERSIONS.join(', ')}`);
  }
  for (const k of Object.keys(doc)) if (!['apiVersion', 'kind', 'plugins'].includes(k)) fail(`${k}: unknown field (known: apiVersion, kind, plugins)`);
  const plugins = doc['plugins'] ?? [];
  if (!Array.isArray(plugins)) return fail('plugins: must be a list of {name, path | configuration}');
  const base = dirname(resolve(file));
  const seen = new Set<string>();
  return plugins.map((raw, i) => {
    const at = `plugins[${i}]`;
    if (!isRecord(raw)) return fail(`${at}: must be an object with name and path or configuration`);
    for (const k of Object.keys(raw)) if (!['name', 'path', 'configuration'].includes(k)) fail(`${at}.${k}: unknown field (known: name, path, configuration)`);
    const name = raw['name'];
    if (typeof name !== 'string' || name === '') return fail(`${at}.name: Required value: the plugin's name, e.g. EventRateLimit`);
    if (seen.has(name)) fail(`${at}.name: plugin ${name} is configured twice`);
    seen.add(name);
    const path = raw['path'];
    const configuration = raw['configuration'];
    if (path !== undefined && (typeof path !== 'string' || path === '')) fail(`${at}.path (plugin ${name}): must be a file name`);
    if (configuration !== undefined && !isRecord(configuration)) fail(`${at}.configuration (plugin ${name}): must be an object`);
    if (path === undefined && configuration === undefined) fail(`${at} (plugin ${name}): needs path or configuration`);
    const entry: Entry = { name };
    if (typeof path === 'string') entry.path = isAbsolute(path) ? path : resolve(base, path);
    if (configuration !== undefined) entry.configuration = configuration;
    return entry;
  });
}

/**
 * Reads `file` and the sections of the `enabled` plugins (their `path` files included); the other
 * entries are checked for shape only. Throws AdmissionConfigError naming the file and plugin.
 */
export function resolveAdmissionConfiguration(file: string, enabled: readonly string[]): Record<string, PluginConfiguration> {
  const doc = parseConfigText(readText(file, file), file);
  const out: Record<string, PluginConfiguration> = {};
  for (const e of admissionConfigurationEntries(doc, file)) {
    if (!enabled.includes(e.name)) continue;
    if (e.configuration !== undefined) {
      out[e.name] = { plugin: e.name, source: file, value: e.configuration };
      continue;
    }
    const what = `${file}: plugin ${e.name}`;
    out[e.name] = { plugin: e.name, source: e.path!, value: parseConfigText(readText(e.path!, what), `${what}: ${e.path}`) };
  }
  return out;
}

/** An error in one plugin's section, naming the plugin and where the section came from. */
export function pluginConfigError(plugin: string, source: string | undefined, message: string): AdmissionConfigError {
  return new AdmissionConfigError(`admission plugin ${plugin}: ${source ? `configuration in ${source}: ` : ''}${message}`);
}

/**
 * Checks a plugin configuration object's apiVersion (`<group>/<version>` with the group in our
 * spelling or the established one) and kind; returns the object.
 */
export function typedConfiguration(cfg: PluginConfiguration, groups: readonly string[], version: string, kind: string): Json {
  const fail = (msg: string): never => {
    throw pluginConfigError(cfg.plugin, cfg.source, msg);
  };
  const v = cfg.value;
  if (!isRecord(v)) return fail(`expected a ${kind} object (apiVersion: ${groups[0]}/${version}, kind: ${kind})`);
  const wanted = groups.map((g) => `${g}/${version}`);
  if (v['apiVersion'] === undefined || v['kind'] === undefined) return fail(`apiVersion and kind are required: apiVersion: ${wanted[0]}, kind: ${kind}`);
  if (!wanted.includes(String(v['apiVersion'])) || v['kind'] !== kind) {
    return fail(`no kind ${JSON.stringify(v['kind'])} is registered for version ${JSON.stringify(v['apiVersion'])}; expected apiVersion ${wanted.join(' or ')}, kind ${kind}`);
  }
  return v;
}
