/**
 * The API server started inside the bench process (as `svc up` runs it), for the in-process
 * transport's figures: the apiserver's own flag program, fresh data and cert folders, a silent
 * logger; its HTTPS listener is up too (a free loopback port) but the bench does not use it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { startApiServer, type RunningApiServer } from '../src/apiserver/index.js';
import { buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from '../src/cli/apiserver-options.js';
import { explicitlySetFlags } from '../src/cli/option-table.js';
import { freePort } from './server-process.js';

export interface InProcessServer {
  server: RunningApiServer;
  /** Shuts the server down and removes its folders. */
  stop(): Promise<void>;
}

export async function startInProcessServer(parentDir: string): Promise<InProcessServer> {
  const work = mkdtempSync(join(parentDir, 'svc-bench-inproc-'));
  const program = createApiServerProgram();
  program.exitOverride();
  program.parse([`--secure-port=${await freePort()}`, '--bind-address=127.0.0.1', `--data-dir=${join(work, 'data')}`, `--cert-dir=${join(work, 'certs')}`], { from: 'user' });
  const options = resolveApiServerOptions(program.opts(), explicitlySetFlags(program));
  const server = await startApiServer(await buildApiServerConfig(options, pino({ level: 'silent' })));
  return {
    server,
    async stop() {
      await server.shutdown();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
