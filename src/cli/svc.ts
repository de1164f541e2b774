#!/usr/bin/env node
/**
 * The all-purpose `svc` executable: `svc up` (the whole control plane in one process),
 * `svc run` (host controller modules against an API server), `svc charts` (export state charts).
 * Each subcommand lives in its own file (svc-<name>.ts) and owns its flags.
 */
import { Command, CommanderError } from 'commander';
import { chartsCommand } from './svc-charts.js';
import { runCommand } from './svc-run.js';
import { upCommand } from './svc-up.js';
import { versionLine } from './version.js';

const program = new Command('svc')
  .description('svc control plane: run it, host controllers, look at its machines.')
  .version(versionLine(), '--version', 'Print version and quit.')
  .helpOption('-h, --help', 'Print help.')
  .showHelpAfterError('(run "svc --help" to list the commands)')
  .exitOverride();
for (const sub of [upCommand(), runCommand(), chartsCommand()]) program.addCommand(sub.exitOverride());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  process.stderr.write(`svc: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
