#!/usr/bin/env -S LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=64
// --max-semi-space-size=64 (MiB): a young generation large enough that a busy daemon's short-lived objects die
// before a scavenge copies them (scavenges took ~13% of CPU under load at the default 16). docs/running.md.
// MALLOC_MMAP_THRESHOLD_=131072: glibc gives Buffers of 128 KiB and more (response bodies) their own mappings,
// returned to the system when freed; with its default moving threshold they came from the heap and freed memory
// stayed resident after load (docs/reliability.md, "Memory under load").
/**
 * The `apiserver` executable: `apiserver [flags]`.
 * Parses the flags, builds the ApiServerConfig, writes the admin client configuration
 * (`admin.svcconfig` beside the self-signed certificate, or in --data-dir with --tls-cert-file;
 * its path is logged and printed on standard output) and serves until SIGTERM/SIGINT (graceful
 * shutdown, exit 0; a second signal exits at once). Bad flags and start-up errors (port in use,
 * storage unreachable ...) print one line to standard error and exit 1.
 */
import { localServerUrl, writeAdminConfig } from './admin-config.js';
import { adminConfigDir, buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from './apiserver-options.js';
import { createLogger } from './logging.js';
import { explicitlySetFlags } from './option-table.js';
import { runDaemon } from './program.js';

await runDaemon({
  program: createApiServerProgram(),
  async start(program, ctx) {
    const options = resolveApiServerOptions(program.opts(), explicitlySetFlags(program));
    const logger = createLogger('apiserver', options.common.logging);
    ctx.setLogger(logger);
    const config = await buildApiServerConfig(options, logger);
    // Loaded only now, so --version, --help and flag errors answer without loading the server.
    const { startApiServer } = await import('../apiserver/index.js');
    const { startMemoryReclaimer } = await import('../apiserver/memory-reclaimer.js');
    const server = await startApiServer(config);
    startMemoryReclaimer({ logger });
    // For the operator: a client configuration the scheduler, controller-manager, `svc nodes` and
    // kubectl can be pointed at (--svcconfig, clientConnection.svcconfig, KUBECONFIG). A file that
    // cannot be written is worth a warning, not a server that does not start.
    try {
      const adminConfig = writeAdminConfig(await adminConfigDir(options), localServerUrl(server.url), config.tls.cert);
      logger.info({ adminConfig }, 'admin client configuration written');
      process.stdout.write(`admin client configuration: ${adminConfig}\n`);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'could not write the admin client configuration');
    }
    return server;
  },
});
