/**
 * Reads and writes the configuration file (`--config`, `--write-config-to`). Reading is strict: an
 * unknown field, a wrong type or an impossible value is a `SchedulerConfigError` naming the field
 * (`profiles[1].plugins.score.enabled[0].weight: must be an integer between 1 and 100`), so a bad
 * file stops the start with a line a person can act on. Fields the file leaves out keep the defaults.
 */
import { parse, stringify } from 'yaml';
import { parseDurationMs } from '../../api/duration.js';
import { LOCK_TYPES } from '../../runtime/leader-election/config.js';
import type { FrameworkHandle } from '../framework/interfaces.js';
import { buildFramework, SchedulerConfigError } from '../profile.js';
import { pluginRegistration } from '../plugins/registry.js';
import { defaultConfiguration } from './defaults.js';
import {
  CONFIG_API_VERSION, CONFIG_KIND, EXTENSION_POINTS, type PluginConfig, type PluginRef, type Plugins, type PluginSet, type SchedulerConfiguration,
  type SchedulerProfile,
} from './types.js';

type Json = Record<string, unknown>;

/** A handle for building plugins only to check a profile: any use of it is a bug. */
const UNUSED_HANDLE = new Proxy({} as FrameworkHandle, {
  get: (_t, key) => {
    throw new Error(`a plugin used the framework handle (${String(key)}) while being constructed`);
  },
});


function isRecord(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function fail(field: string, message: string): never {
  throw new SchedulerConfigError(field, message);
}

function only(obj: Json, field: string, allowed: readonly string[]): void {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) fail(field ? `${field}.${k}` : k, `unknown field (known: ${allowed.join(', ')})`);
  }
}

function record(v: unknown, field: string): Json {
  if (!isRecord(v)) fail(field, `must be an object, got ${JSON.stringify(v)}`);
  return v;
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') fail(field, `must be a string, got ${JSON.stringify(v)}`);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') fail(field, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function int(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(field, `must be an integer between ${min} and ${max}, got ${JSON.stringify(v)}`);
  return v;
}

function num(v: unknown, field: string, min: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min) fail(field, `must be a number of at least ${min}, got ${JSON.stringify(v)}`);
  return v;
}

function duration(v: unknown, field: string): string {
  const s = str(v, field);
  const ms = parseDurationMs(s);
  if (ms === undefined || ms <= 0) fail(field, `must be a positive duration such as 15s or 1m0s, got ${JSON.stringify(s)}`);
  return s;
}

function pluginRefs(v: unknown, field: string, weighted: boolean): PluginRef[] {
  if (!Array.isArray(v)) fail(field, 'must be a list of {name, weight}');
  return v.map((raw, i) => {
    const f = `${field}[${i}]`;
    const r = record(raw, f);
    only(r, f, weighted ? ['name', 'weight'] : ['name']);
    const name = str(r['name'], `${f}.name`);
    if (name !== '*' && !pluginRegistration(name)) fail(`${f}.name`, `unknown plugin ${JSON.stringify(name)}`);
    const out: PluginRef = { name };
    if (r['weight'] !== undefined) out.weight = int(r['weight'], `${f}.weight`, 1, 100);
    return out;
  });
}

function pluginSet(v: unknown, field: string, point: string): PluginSet {
  const r = record(v, field);
  only(r, field, ['enabled', 'disabled']);
  const out: PluginSet = {};
  if (r['enabled'] !== undefined) out.enabled = pluginRefs(r['enabled'], `${field}.enabled`, point === 'score' || point === 'multiPoint');
  if (r['disabled'] !== undefined) out.disabled = pluginRefs(r['disabled'], `${field}.disabled`, false);
  return out;
}

function profile(v: unknown, field: string): SchedulerProfile {
  const r = record(v, field);
  only(r, field, ['schedulerName', 'plugins', 'pluginConfig']);
  const schedulerName = str(r['schedulerName'], `${field}.schedulerName`);
  if (schedulerName === '') fail(`${field}.schedulerName`, 'must not be empty');
  const out: SchedulerProfile = { schedulerName };
  if (r['plugins'] !== undefined) {
    const p = record(r['plugins'], `${field}.plugins`);
    const points = [...EXTENSION_POINTS, 'multiPoint'] as const;
    only(p, `${field}.plugins`, points);
    const plugins: Plugins = {};
    for (const point of points) if (p[point] !== undefined) plugins[point] = pluginSet(p[point], `${field}.plugins.${point}`, point);
    out.plugins = plugins;
  }
  if (r['pluginConfig'] !== undefined) {
    if (!Array.isArray(r['pluginConfig'])) fail(`${field}.pluginConfig`, 'must be a list of {name, args}');
    const seen = new Set<string>();
    out.pluginConfig = r['pluginConfig'].map((raw, i): PluginConfig => {
      const f = `${field}.pluginConfig[${i}]`;
      const c = record(raw, f);
      only(c, f, ['name', 'args']);
      const name = str(c['name'], `${f}.name`);
      if (!pluginRegistration(name)) fail(`${f}.name`, `unknown plugin ${JSON.stringify(name)}`);
      if (seen.has(name)) fail(`${f}.name`, `duplicate configuration for plugin ${name}`);
      seen.add(name);
      return c['args'] === undefined ? { name } : { name, args: record(c['args'], `${f}.args`) };
    });
  }
  // Building the profile's plugins now reports a plugin at a point it does not implement (and any
  // other composition error) with the field, before start. Plugins touch the handle only later.
  buildFramework(out, UNUSED_HANDLE, field);
  return out;
}

/** Applies a parsed file over the defaults; throws `SchedulerConfigError` naming the bad field. */
export function configurationFromObject(doc: unknown): SchedulerConfiguration {
  const r = record(doc, '(file)');
  const cfg = defaultConfiguration();
  only(r, '', [
    'apiVersion', 'kind', 'parallelism', 'leaderElection', 'clientConnection', 'healthzBindAddress', 'metricsBindAddress', 'enableProfiling',
    'enableContentionProfiling', 'percentageOfNodesToScore', 'podInitialBackoffSeconds', 'podMaxBackoffSeconds', 'profiles',
  ]);
  if (r['apiVersion'] !== CONFIG_API_VERSION) fail('apiVersion', `must be ${CONFIG_API_VERSION}, got ${JSON.stringify(r['apiVersion'])}`);
  if (r['kind'] !== CONFIG_KIND) fail('kind', `must be ${CONFIG_KIND}, got ${JSON.stringify(r['kind'])}`);
  if (r['parallelism'] !== undefined) cfg.parallelism = int(r['parallelism'], 'parallelism', 1, 1024);
  if (r['leaderElection'] !== undefined) {
    const le = record(r['leaderElection'], 'leaderElection');
    only(le, 'leaderElection', ['leaderElect', 'leaseDuration', 'renewDeadline', 'retryPeriod', 'resourceLock', 'resourceName', 'resourceNamespace']);
    if (le['leaderElect'] !== undefined) cfg.leaderElection.leaderElect = bool(le['leaderElect'], 'leaderElection.leaderElect');
    for (const k of ['leaseDuration', 'renewDeadline', 'retryPeriod'] as const) {
      if (le[k] !== undefined) cfg.leaderElection[k] = duration(le[k], `leaderElection.${k}`);
    }
    if (le['resourceLock'] !== undefined) {
      const lock = str(le['resourceLock'], 'leaderElection.resourceLock');
      if (!(LOCK_TYPES as readonly string[]).includes(lock)) fail('leaderElection.resourceLock', `must be one of ${LOCK_TYPES.join(', ')}, got ${JSON.stringify(lock)}`);
      cfg.leaderElection.resourceLock = lock;
    }
    for (const k of ['resourceName', 'resourceNamespace'] as const) {
      if (le[k] !== undefined) cfg.leaderElection[k] = str(le[k], `leaderElection.${k}`);
    }
    if (parseDurationMs(cfg.leaderElection.renewDeadline)! > parseDurationMs(cfg.leaderElection.leaseDuration)!) {
      fail('leaderElection.renewDeadline', `must not be longer than leaderElection.leaseDuration (${cfg.leaderElection.leaseDuration})`);
    }
  }
  if (r['clientConnection'] !== undefined) {
    const cc = record(r['clientConnection'], 'clientConnection');
    only(cc, 'clientConnection', ['svcconfig', 'acceptContentTypes', 'contentType', 'qps', 'burst']);
    for (const k of ['svcconfig', 'acceptContentTypes', 'contentType'] as const) if (cc[k] !== undefined) cfg.clientConnection[k] = str(cc[k], `clientConnection.${k}`);
    if (cc['qps'] !== undefined) cfg.clientConnection.qps = num(cc['qps'], 'clientConnection.qps', 0);
    if (cc['burst'] !== undefined) cfg.clientConnection.burst = int(cc['burst'], 'clientConnection.burst', 0, 2147483647);
  }
  for (const k of ['healthzBindAddress', 'metricsBindAddress'] as const) if (r[k] !== undefined) cfg[k] = str(r[k], k);
  for (const k of ['enableProfiling', 'enableContentionProfiling'] as const) if (r[k] !== undefined) cfg[k] = bool(r[k], k);
  if (r['percentageOfNodesToScore'] !== undefined) cfg.percentageOfNodesToScore = int(r['percentageOfNodesToScore'], 'percentageOfNodesToScore', 0, 100);
  if (r['podInitialBackoffSeconds'] !== undefined) cfg.podInitialBackoffSeconds = int(r['podInitialBackoffSeconds'], 'podInitialBackoffSeconds', 1, 86400);
  if (r['podMaxBackoffSeconds'] !== undefined) cfg.podMaxBackoffSeconds = int(r['podMaxBackoffSeconds'], 'podMaxBackoffSeconds', 1, 86400);
  if (cfg.podMaxBackoffSeconds < cfg.podInitialBackoffSeconds) {
    fail('podMaxBackoffSeconds', `must be at least podInitialBackoffSeconds (${cfg.podInitialBackoffSeconds}), got ${cfg.podMaxBackoffSeconds}`);
  }
  if (r['profiles'] !== undefined) {
    if (!Array.isArray(r['profiles']) || r['profiles'].length === 0) fail('profiles', 'must be a non-empty list');
    const names = new Set<string>();
    cfg.profiles = r['profiles'].map((p, i) => {
      const out = profile(p, `profiles[${i}]`);
      if (names.has(out.schedulerName)) fail(`profiles[${i}].schedulerName`, `duplicate scheduler name ${JSON.stringify(out.schedulerName)}`);
      names.add(out.schedulerName);
      return out;
    });
  }
  return cfg;
}

/** Parses the text of a configuration file (YAML or JSON). `path` only names the file in errors. */
export function parseConfigurationFile(text: string, path: string): SchedulerConfiguration {
  let doc: unknown;
  try {
    doc = parse(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new SchedulerConfigError(path, `not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  try {
    return configurationFromObject(doc);
  } catch (e) {
    if (e instanceof SchedulerConfigError) throw new SchedulerConfigError(`${path}: ${e.field}`, e.message.slice(e.field.length + 2));
    throw e;
  }
}

/** The effective configuration as a file `parseConfigurationFile` reads back to an equal value. */
export function serializeConfiguration(cfg: SchedulerConfiguration): string {
  return stringify(cfg, { lineWidth: 0 });
}
