#!/usr/bin/env -S LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The all-purpose `svc` executable: `svc up` (the whole control plane in one process),
 * `svc run` (host controller modules against an API server), `svc charts` (export state charts),
 * `svc nodes` (simulated nodes against an API server), `svc new controller` (a project of your own),
 * `svc certs issue` (client certificates from svc up's cluster CA).
 * Each subcommand lives in its own file (svc-<name>.ts) and owns its flags.
 */
import { Command, CommanderError } from 'commander';
import { certsCommand } from './svc-certs.js';
import { cloudCommand } from './svc-cloud.js';
import { chartsCommand } from './svc-charts.js';
import { explainCommand } from './svc-explain.js';
import { newCommand } from './svc-new.js';
import { nodesCommand } from './svc-nodes.js';
import { authCommand } from './svc-auth.js';
import { rbacCommand } from './svc-rbac.js';
import { runCommand } from './svc-run.js';
import { upCommand } from './svc-up.js';
import { versionLine } from './version.js';

const program = new Command('svc')
  .description('svc control plane: run it, host controllers, look at its machines.')
  .version(versionLine(), '--version', 'Print version and quit.')
  .helpOption('-h, --help', 'Print help.')
  .showHelpAfterError('(run "svc --help" to list the commands)')
  .exitOverride()
  // Flags after a subcommand belong to it (`svc nodes fault NODE F --svcconfig X`).
  .enablePositionalOptions();
for (const sub of [upCommand(), runCommand(), chartsCommand(), explainCommand(), nodesCommand(), newCommand(), rbacCommand(), authCommand(), certsCommand(), cloudCommand()]) program.addCommand(sub.exitOverride());

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  process.stderr.write(`svc: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
