/**
 * `svc charts`: the project's state machines, the built-in controllers (the lifecycle of the
 * objects each manages next to its plumbing), or those of user modules given by path, as state
 * charts, offline: Mermaid, SVG (Graphviz in WebAssembly, no download), DOT or the JSON model.
 *
 *   svc charts --machine leader-election                 Mermaid to standard output
 *   svc charts deployment --format svg                   the deployment controller: Deployment lifecycle + plumbing
 *   svc charts --list                                    every project machine and built-in controller
 *   svc charts --format svg --out docs/charts            every project machine, one file each
 *   svc charts --format json dist/my-controller.js       the machines a compiled module exports
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, Option } from 'commander';
import { DEFAULT_CONTROLLER_MANAGER_CONFIG } from '../../controllers/config.js';
import { BUILTIN_CONTROLLERS } from '../../controllers/registry.js';
import { LIFECYCLES } from '../../machines/lifecycles/index.js';
import { lifecycleStates } from '../runtime/lifecycle.js';
import {
  CHART_EXTENSIONS, CHART_FORMATS, chartModel, combineCharts, controllerChartModel, lifecycleChartModel, machinesOfModule, projectMachines, renderChart,
  type ChartFormat, type ChartModel, type NamedMachine,
} from '../runtime/inspection/index.js';

export interface ChartsOptions {
  format: ChartFormat;
  machine?: string;
  out?: string;
  list?: boolean;
}

/** Imports each module and collects the machines it exports; errors name the module. */
export async function loadModuleMachines(paths: string[]): Promise<NamedMachine[]> {
  const out: NamedMachine[] = [];
  for (const p of paths) {
    let exports: Record<string, unknown>;
    try {
      exports = (await import(pathToFileURL(resolve(p)).href)) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`cannot load module ${p}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    const found = machinesOfModule(exports, basename(p));
    if (found.length === 0) throw new Error(`module ${p} exports no state machine and no defineController definition`);
    for (const m of found) {
      if (out.some((o) => o.name === m.name)) throw new Error(`two modules export a machine named "${m.name}"; give --machine one module at a time`);
      out.push(m);
    }
  }
  return out;
}

/** An argument that names a built-in controller rather than a module path. */
const isControllerName = (arg: string) => !/[/\\]|\.[cm]?js$/.test(arg) && BUILTIN_CONTROLLERS.some((c) => c.name === arg);

/**
 * A built-in controller's chart: the lifecycle of the objects it manages (when it has one) next to
 * its plumbing (what it watches, owns and is triggered by, its queue and workers), the latter drawn
 * from its definition as the default settings make it.
 */
export function builtinControllerChart(name: string): NamedMachine {
  const row = BUILTIN_CONTROLLERS.find((c) => c.name === name);
  if (!row) throw new Error(`unknown controller "${name}"; known: ${BUILTIN_CONTROLLERS.map((c) => c.name).join(', ')}`);
  const lifecycle = LIFECYCLES.find((l) => l.controller === name);
  const parts: Array<{ key: string; description: string; model: ChartModel }> = [];
  if (lifecycle) parts.push({ key: 'lifecycle', description: `each ${lifecycle.kind}: the state the reconcile observes, then its step`, model: lifecycleChartModel(lifecycle) });
  const built = row.build?.(DEFAULT_CONTROLLER_MANAGER_CONFIG);
  if (built && !('off' in built)) parts.push({ key: 'plumbing', description: 'watch → queue → workers → reconcile', model: controllerChartModel(built.spec) });
  if (parts.length === 0) {
    const why = !row.build ? 'it is not built' : built && 'off' in built ? built.off : 'it has no definition';
    throw new Error(`controller "${name}" cannot be charted with the default settings: ${why}`);
  }
  const machine = lifecycle?.machine ?? (built && !('off' in built) ? built.machine : undefined);
  return { name, machine: machine!, description: controllerDescription(name), model: combineCharts(name, parts) };
}

function controllerDescription(name: string): string {
  const row = BUILTIN_CONTROLLERS.find((c) => c.name === name)!;
  const lifecycle = LIFECYCLES.find((l) => l.controller === name);
  return `controller: ${row.summary}${lifecycle ? ` Lifecycle of each ${lifecycle.kind}: ${lifecycleStates(lifecycle).join(', ')}.` : ''}`;
}

/** What `svc charts` draws with no arguments (docs/charts/): the project's machines and every built-in controller that has a lifecycle. */
export function defaultCharts(): NamedMachine[] {
  return [...projectMachines(), ...LIFECYCLES.map((l) => builtinControllerChart(l.controller))];
}

/** Picks `--machine` (by chart name or machine id); all when absent. */
export function selectMachines(all: NamedMachine[], wanted: string | undefined): NamedMachine[] {
  if (wanted === undefined) return all;
  const hit = all.filter((m) => m.name === wanted || m.machine.id === wanted);
  if (hit.length === 0) throw new Error(`--machine: unknown machine "${wanted}"; known: ${all.map((m) => m.name).join(', ')}`);
  return hit.length > 1 ? hit.filter((m) => m.name === wanted).slice(0, 1) : hit;
}

export async function runCharts(args: string[], opts: ChartsOptions, write: (s: string) => void): Promise<void> {
  const controllers = args.filter(isControllerName);
  const modules = args.filter((a) => !isControllerName(a));
  if (opts.list && args.length === 0) {
    for (const m of projectMachines()) write(`${m.name}\t${m.description}\n`);
    for (const c of BUILTIN_CONTROLLERS) write(`${c.name}\t${controllerDescription(c.name)}\n`);
    return;
  }
  const all = [...controllers.map(builtinControllerChart), ...(modules.length ? await loadModuleMachines(modules) : controllers.length ? [] : defaultCharts())];
  if (opts.list) {
    for (const m of all) write(`${m.name}\t${m.description}\n`);
    return;
  }
  const chosen = selectMachines(all, opts.machine);
  if (opts.out === undefined) {
    if (chosen.length !== 1) {
      throw new Error(
        `${chosen.length} machines to export (${chosen.map((m) => m.name).join(', ')}); choose one with --machine NAME or write them all with --out DIR`,
      );
    }
    write(await renderChart(chosen[0]!.model ?? chartModel(chosen[0]!.machine, chosen[0]!.name), opts.format));
    return;
  }
  try {
    mkdirSync(opts.out, { recursive: true });
  } catch (e) {
    throw new Error(`--out: cannot create ${opts.out}: ${e instanceof Error ? e.message : String(e)}`);
  }
  for (const m of chosen) {
    const file = join(opts.out, `${m.name}.${CHART_EXTENSIONS[opts.format]}`);
    writeFileSync(file, await renderChart(m.model ?? chartModel(m.machine, m.name), opts.format));
    write(`wrote ${file}\n`);
  }
}

export function chartsCommand(): Command {
  return new Command('charts')
    .description('Export state machines as state charts (offline): the project\'s machines, a built-in controller\'s lifecycle and plumbing, or those the given compiled modules export.')
    .usage('[flags] [controller names or module paths...]')
    .argument('[targets...]', 'built-in controllers (e.g. deployment: its objects\' lifecycle next to its plumbing; --list names them) or compiled JavaScript modules whose exported machines or defineController definitions to chart (default: the project\'s machines)')
    .addOption(new Option('--format <format>', 'Output format.').choices([...CHART_FORMATS]).default('mermaid'))
    .option('--machine <name>', 'Export only this machine (its chart name or machine id); required without --out when several machines match.')
    .option('--out <dir>', 'Write one file per machine into this folder (<name>.mmd, .svg, .dot or .json) instead of standard output.')
    .option('--list', 'List the machines and built-in controllers that can be charted, and quit.')
    .helpOption('-h, --help', 'Print help.')
    .showHelpAfterError('(run "svc charts --help" to list the flags)')
    .action(async (modules: string[], opts: ChartsOptions) => {
      await runCharts(modules, opts, (s) => process.stdout.write(s));
    });
}
