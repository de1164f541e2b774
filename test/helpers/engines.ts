/**
 * Runs one set of end-to-end tests against the real apiserver process on both storage engines:
 * the embedded store, and a real etcd started for the suite.
 */
import { suite, type Test } from 'uvu';
import { type ApiServerProcess, startApiServer, type StartOptions } from './apiserver.js';
import { startEtcd } from './etcd.js';

export type Engine = 'embedded' | 'etcd';

export interface EngineContext {
  server: ApiServerProcess;
  engine: Engine;
}

export const ENGINES: Engine[] = ['embedded', 'etcd'];

/** Defines `title [engine]` suites; `ctx()` gives the running server inside tests. */
export function forEachEngine(
  title: string,
  define: (test: Test, ctx: () => EngineContext) => void,
  opts: StartOptions = {},
): void {
  for (const engine of ENGINES) {
    const s = suite(`${title} [${engine}]`);
    let ctx: EngineContext | undefined;
    let etcd: Awaited<ReturnType<typeof startEtcd>> | undefined;
    s.before(async () => {
      try {
        const args = [...(opts.args ?? [])];
        if (engine === 'etcd') {
          etcd = await startEtcd();
          args.push(`--kvstore-servers=${etcd.endpoint}`);
        }
        ctx = { engine, server: await startApiServer({ ...opts, args }) };
      } catch (e) {
        // uvu drops an error thrown by a before hook without a word (the suite shows 0 / N): say it.
        console.error(`${title} [${engine}]: setup failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
        throw e;
      }
    });
    s.after(async () => {
      await ctx?.server.stop();
      ctx?.server.cleanup();
      await etcd?.stop();
    });
    define(s, () => {
      if (!ctx) throw new Error('server not started');
      return ctx;
    });
    s.run();
  }
}

let counter = 0;
/** A unique, valid name for test objects. */
export function uniqueName(prefix = 't'): string {
  counter++;
  return `${prefix}-${process.pid}-${counter}-${Math.random().toString(36).slice(2, 7)}`;
}
