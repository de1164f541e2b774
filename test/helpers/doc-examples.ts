import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ApiServerProcess, ROOT, startApiServer } from './apiserver.js';

/**
 * The runnable examples of a docs/ page written as "a ```sh block, then the block it prints":
 * every ```sh block with the plain (or ```json) block that directly follows it, under the nearest
 * `###` (or `##`) title. The first block of such a page sets API and CA for the rest.
 */
export interface DocExample {
  title: string;
  script: string;
  /** The output block right after the script, if any. */
  output?: string;
}

export function docExamples(markdown: string): DocExample[] {
  const out: DocExample[] = [];
  const re = /^(#{2,3} .*)$|^```sh\n([\s\S]*?)^```\n(?:\n```(?:json)?\n([\s\S]*?)^```\n)?/gm;
  let title = '';
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    if (m[1]) title = m[1].replace(/^#+ /, '');
    else out.push({ title, script: m[2]!, ...(m[3] !== undefined ? { output: m[3] } : {}) });
  }
  return out;
}

/**
 * A real apiserver and a working folder laid out as the pages assume they run (from the repository
 * folder: `data/certs/apiserver.crt` is the server's CA, `dist` the build). `stop()` removes both.
 */
export interface DocsWorkspace {
  server: ApiServerProcess;
  cwd: string;
  stop(): Promise<void>;
}

export async function startDocsWorkspace(prefix: string, opts: { linkDist?: boolean } = {}): Promise<DocsWorkspace> {
  const server = await startApiServer();
  const cwd = mkdtempSync(join(tmpdir(), `svc-docs-${prefix}-`));
  mkdirSync(join(cwd, 'data', 'certs'), { recursive: true });
  copyFileSync(server.caFile, join(cwd, 'data', 'certs', 'apiserver.crt'));
  if (opts.linkDist) symlinkSync(join(ROOT, 'dist'), join(cwd, 'dist'));
  return {
    server,
    cwd,
    async stop() {
      await server.stop();
      server.cleanup();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
