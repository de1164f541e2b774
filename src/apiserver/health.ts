/**
 * /healthz, /livez and /readyz: named checks, each also served at its own sub-path, `?verbose`
 * listing every check, and `?exclude=<name>` skipping one (as the established server does).
 */
import { writeText, type Response } from './http.js';

export interface HealthCheck {
  name: string;
  /** Resolves to an error message when unhealthy, undefined when healthy. */
  check(): Promise<string | undefined> | string | undefined;
}

export class HealthEndpoint {
  constructor(
    readonly path: '/healthz' | '/livez' | '/readyz',
    private readonly checks: HealthCheck[],
  ) {}

  /** Handles `path` and `path/<check>`; returns false for other paths. */
  async serve(pathname: string, query: URLSearchParams, res: Response): Promise<boolean> {
    if (pathname !== this.path && !pathname.startsWith(`${this.path}/`)) return false;
    const sub = pathname.slice(this.path.length + 1);
    if (sub) {
      const c = this.checks.find((x) => x.name === sub);
      if (!c) {
        writeText(res, 404, `404 page not found: no ${this.path} check named "${sub}"\n`);
        return true;
      }
      const err = await safe(c);
      writeText(res, err ? 500 : 200, err ? `internal server error: ${err}\n` : 'ok');
      return true;
    }
    const excluded = new Set(query.getAll('exclude'));
    const lines: string[] = [];
    let failed = false;
    for (const c of this.checks) {
      if (excluded.has(c.name)) {
        lines.push(`[+]${c.name} excluded: ok`);
        continue;
      }
      const err = await safe(c);
      if (err) failed = true;
      lines.push(err ? `[-]${c.name} failed: reason withheld` : `[+]${c.name} ok`);
    }
    const verbose = query.has('verbose');
    const name = this.path.slice(1);
    if (failed) {
      writeText(res, 500, `${lines.join('\n')}\n${name} check failed\n`);
    } else if (verbose) {
      writeText(res, 200, `${lines.join('\n')}\n${name} check passed\n`);
    } else {
      writeText(res, 200, 'ok');
    }
    return true;
  }
}

async function safe(c: HealthCheck): Promise<string | undefined> {
  try {
    return await c.check();
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
