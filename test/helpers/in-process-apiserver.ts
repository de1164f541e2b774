/**
 * Starts the real API server inside the test process (the all-in-one mode's way): flags parsed by
 * the apiserver's own program, a fresh data and cert folder, a silent logger. The HTTPS listener
 * is up too (on a free loopback port), so tests can compare both transports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/index.js';
import { buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from '../../src/cli/apiserver-options.js';
import { explicitlySetFlags } from '../../src/cli/option-table.js';
import { freePort, withTestAdmission } from './apiserver.js';

export interface InProcessApiServer {
  server: RunningApiServer;
  dataDir: string;
  certDir: string;
  /** Shuts the server down and removes its folders. */
  stop(): Promise<void>;
}

export async function startInProcessApiServer(args: string[] = []): Promise<InProcessApiServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-inproc-data-'));
  const certDir = mkdtempSync(join(tmpdir(), 'svc-inproc-certs-'));
  const program = createApiServerProgram();
  program.exitOverride();
  program.parse([`--secure-port=${await freePort()}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, `--cert-dir=${certDir}`, ...withTestAdmission(args)], { from: 'user' });
  const options = resolveApiServerOptions(program.opts(), explicitlySetFlags(program));
  const logger = pino({ level: process.env['SVC_TEST_LOG'] ?? 'silent' });
  const server = await startApiServer(await buildApiServerConfig(options, logger));
  return {
    server,
    dataDir,
    certDir,
    async stop() {
      await server.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
