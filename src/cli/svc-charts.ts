/**
 * `svc charts`: the project's state machines (or those of user modules given by path) as state
 * charts, offline: Mermaid, SVG (Graphviz in WebAssembly, no download), DOT or the JSON model.
 *
 *   svc charts --machine leader-election                 Mermaid to standard output
 *   svc charts --format svg --out docs/charts            every project machine, one file each
 *   svc charts --format json dist/my-controller.js       the machines a compiled module exports
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command, Option } from 'commander';
import {
  CHART_EXTENSIONS, CHART_FORMATS, chartModel, machinesOfModule, projectMachines, renderChart,
  type ChartFormat, type NamedMachine,
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

/** Picks `--machine` (by chart name or machine id); all when absent. */
export function selectMachines(all: NamedMachine[], wanted: string | undefined): NamedMachine[] {
  if (wanted === undefined) return all;
  const hit = all.filter((m) => m.name === wanted || m.machine.id === wanted);
  if (hit.length === 0) throw new Error(`--machine: unknown machine "${wanted}"; known: ${all.map((m) => m.name).join(', ')}`);
  return hit.length > 1 ? hit.filter((m) => m.name === wanted).slice(0, 1) : hit;
}

export async function runCharts(modules: string[], opts: ChartsOptions, write: (s: string) => void): Promise<void> {
  const all = modules.length ? await loadModuleMachines(modules) : projectMachines();
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
    .description('Export state machines as state charts (offline): the project\'s machines, or those the given compiled modules export.')
    .usage('[flags] [module paths...]')
    .argument('[modules...]', 'compiled JavaScript modules whose exported machines or defineController definitions to chart (default: the project\'s machines)')
    .addOption(new Option('--format <format>', 'Output format.').choices([...CHART_FORMATS]).default('mermaid'))
    .option('--machine <name>', 'Export only this machine (its chart name or machine id); required without --out when several machines match.')
    .option('--out <dir>', 'Write one file per machine into this folder (<name>.mmd, .svg, .dot or .json) instead of standard output.')
    .option('--list', 'List the machines that can be exported, and quit.')
    .helpOption('-h, --help', 'Print help.')
    .showHelpAfterError('(run "svc charts --help" to list the flags)')
    .action(async (modules: string[], opts: ChartsOptions) => {
      await runCharts(modules, opts, (s) => process.stdout.write(s));
    });
}
