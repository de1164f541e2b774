#!/usr/bin/env -S LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The `controller-manager` executable: `controller-manager [flags]` (docs/controller-manager.md).
 *
 * Resolves the flags (an unknown controller in --controllers, or one not built yet named
 * explicitly, is an error before anything starts), binds the secure port (10257: /healthz with a
 * check per controller, /metrics, /debug/machines with every controller's machine and workers,
 * /debug/pprof/), then runs the selected built-in controllers behind one leader-election lock
 * (`svc-controller-manager`). Losing the lease exits 1 at once, as established; SIGTERM drains the
 * reconciles in flight, releases the lock and exits 0.
 */
import { createControllerManagerProgram, resolveControllerManagerOptions } from './controller-manager-options.js';
import { startControllerManagerDaemon } from './controller-manager-daemon.js';
import { createLogger } from './logging.js';
import { runDaemon } from './program.js';

await runDaemon({
  program: createControllerManagerProgram(),
  async start(program, ctx) {
    const options = resolveControllerManagerOptions(program.opts());
    const logger = createLogger('controller-manager', options.common.logging);
    ctx.setLogger(logger);
    return startControllerManagerDaemon(options, logger, { component: 'controller-manager', startedMessage: 'controller manager started' });
  },
});
