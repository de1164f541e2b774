/**
 * Builds a profile's `Framework` from its configuration: the default plugins per extension point,
 * edited by the profile's `plugins` (enabled appended, disabled removed, `*` removes every default,
 * `multiPoint` enables a plugin at each point it implements), each plugin constructed once per
 * profile with its `pluginConfig` arguments merged over its defaults.
 */
import { DEFAULT_PLUGINS } from './config/default-plugins.js';
import { EXTENSION_POINTS, type ExtensionPoint, type PluginRef, type SchedulerProfile } from './config/types.js';
import { Framework, type ProfilePlugins } from './framework/framework.js';
import {
  implementsBind, implementsFilter, implementsPostFilter, implementsPreBind, implementsPreFilter, implementsPreScore, implementsQueueSort,
  implementsReserve, implementsScore, type FrameworkHandle, type Plugin,
} from './framework/interfaces.js';
import { pluginRegistration } from './plugins/registry.js';

/** A configuration error naming the field, e.g. `profiles[0].plugins.filter.enabled[1].name`. */
export class SchedulerConfigError extends Error {
  constructor(readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'SchedulerConfigError';
  }
}

const POINT_GUARDS: Record<ExtensionPoint, (p: Plugin) => boolean> = {
  queueSort: implementsQueueSort,
  preFilter: implementsPreFilter,
  filter: implementsFilter,
  postFilter: implementsPostFilter,
  preScore: implementsPreScore,
  score: implementsScore,
  reserve: implementsReserve,
  preBind: implementsPreBind,
  bind: implementsBind,
};

/** The effective plugin names (and weights) per point of a profile, before construction. */
export function resolvePluginRefs(profile: SchedulerProfile, field: string): Record<ExtensionPoint, PluginRef[]> {
  const out = {} as Record<ExtensionPoint, PluginRef[]>;
  for (const point of EXTENSION_POINTS) {
    const set = profile.plugins?.[point];
    const disabled = new Set((set?.disabled ?? []).map((r) => r.name));
    let list = disabled.has('*') ? [] : DEFAULT_PLUGINS[point].filter((r) => !disabled.has(r.name)).map((r) => ({ ...r }));
    (set?.enabled ?? []).forEach((r, i) => {
      if (!r || typeof r.name !== 'string' || !pluginRegistration(r.name)) {
        throw new SchedulerConfigError(`${field}.plugins.${point}.enabled[${i}].name`, `unknown plugin ${JSON.stringify(r?.name)}`);
      }
      // Enabling a default plugin again replaces it (e.g. to change its weight).
      list = list.filter((x) => x.name !== r.name);
      list.push({ name: r.name, ...(point === 'score' ? { weight: r.weight ?? 1 } : {}) });
    });
    out[point] = list;
  }
  return out;
}

export function buildFramework(profile: SchedulerProfile, handle: FrameworkHandle, field = 'profiles[0]'): Framework {
  const refs = resolvePluginRefs(profile, field);
  const args = new Map<string, Record<string, unknown>>();
  (profile.pluginConfig ?? []).forEach((pc, i) => {
    if (!pluginRegistration(pc.name)) throw new SchedulerConfigError(`${field}.pluginConfig[${i}].name`, `unknown plugin ${JSON.stringify(pc.name)}`);
    args.set(pc.name, pc.args ?? {});
  });
  const instances = new Map<string, Plugin>();
  const instance = (name: string, at: string): Plugin => {
    let p = instances.get(name);
    if (p) return p;
    const reg = pluginRegistration(name);
    if (!reg) throw new SchedulerConfigError(at, `unknown plugin ${JSON.stringify(name)}`);
    p = reg.factory({ ...(reg.defaultArgs ?? {}), ...(args.get(name) ?? {}) }, handle);
    instances.set(name, p);
    return p;
  };
  const multi = profile.plugins?.multiPoint?.enabled ?? [];
  const lists = {} as Record<ExtensionPoint, { plugin: Plugin; weight: number }[]>;
  for (const point of EXTENSION_POINTS) {
    lists[point] = refs[point].map((r, i) => {
      const plugin = instance(r.name, `${field}.plugins.${point}.enabled[${i}].name`);
      if (!POINT_GUARDS[point](plugin)) throw new SchedulerConfigError(`${field}.plugins.${point}`, `plugin ${r.name} does not implement ${point}`);
      return { plugin, weight: r.weight ?? 1 };
    });
  }
  multi.forEach((r, i) => {
    const plugin = instance(r.name, `${field}.plugins.multiPoint.enabled[${i}].name`);
    for (const point of EXTENSION_POINTS) {
      if (POINT_GUARDS[point](plugin) && !lists[point].some((x) => x.plugin.name === r.name)) lists[point].push({ plugin, weight: r.weight ?? 1 });
    }
  });
  if (lists.queueSort.length !== 1) throw new SchedulerConfigError(`${field}.plugins.queueSort`, `exactly one queue sort plugin must be enabled, found ${lists.queueSort.length}`);
  const plain = (point: ExtensionPoint) => lists[point].map((x) => x.plugin);
  const plugins: ProfilePlugins = {
    queueSort: lists.queueSort[0]!.plugin,
    preFilter: plain('preFilter'),
    filter: plain('filter'),
    postFilter: plain('postFilter'),
    preScore: plain('preScore'),
    score: lists.score,
    reserve: plain('reserve'),
    preBind: plain('preBind'),
    bind: plain('bind'),
  };
  return new Framework(profile.schedulerName, plugins);
}
