/**
 * The one list of scheduler plugins: name -> factory and default arguments. The configuration
 * (src/scheduler/config/) enables plugins by these names; `--help`, the default profile and the
 * legacy policy translation read this list, never a copy.
 */
import type { PluginFactory } from '../framework/interfaces.js';
import * as defaultBinder from './default-binder/index.js';
import * as nodeName from './node-name/index.js';
import * as nodeUnschedulable from './node-unschedulable/index.js';
import * as prioritySort from './priority-sort/index.js';

export interface PluginRegistration {
  readonly name: string;
  readonly factory: PluginFactory;
  /** Arguments the plugin gets when the configuration gives none (`pluginConfig[].args` merge over these). */
  readonly defaultArgs?: Readonly<Record<string, unknown>>;
}

export const pluginRegistry: readonly PluginRegistration[] = [
  { name: prioritySort.name, factory: prioritySort.factory },
  { name: nodeUnschedulable.name, factory: nodeUnschedulable.factory },
  { name: nodeName.name, factory: nodeName.factory },
  { name: defaultBinder.name, factory: defaultBinder.factory },
];

const byName = new Map(pluginRegistry.map((r) => [r.name, r]));

export function pluginRegistration(name: string): PluginRegistration | undefined {
  return byName.get(name);
}
