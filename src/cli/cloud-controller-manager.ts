#!/usr/bin/env -S LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The `cloud-controller-manager` executable: `cloud-controller-manager [flags]` (docs/cloud.md).
 *
 * Resolves the flags (a missing or unknown --cloud-provider, a cloud file that is not the
 * provider's format, or an unknown controller is an error before anything starts), binds the
 * secure port (10258: /healthz with a check per controller, /metrics, /debug/machines), then runs
 * the cloud controllers (cloud-node, cloud-node-lifecycle, route, service) behind one
 * leader-election lock (`cloud-controller-manager`), hosted exactly as the controller manager hosts
 * its own. Losing the lease exits 1 at once, as established; SIGTERM drains and exits 0.
 */
import { createCloudControllerManagerProgram, resolveCloudControllerManagerOptions } from './cloud-controller-manager-options.js';
import { startControllerManagerDaemon } from './controller-manager-daemon.js';
import { createLogger } from './logging.js';
import { runDaemon } from './program.js';

await runDaemon({
  program: createCloudControllerManagerProgram(),
  async start(program, ctx) {
    const options = resolveCloudControllerManagerOptions(program.opts());
    const logger = createLogger('cloud-controller-manager', options.common.logging);
    ctx.setLogger(logger);
    return startControllerManagerDaemon(options, logger, { component: 'cloud-controller-manager', startedMessage: 'cloud controller manager started' });
  },
});
