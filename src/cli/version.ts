/**
 * The project version, read from package.json (found by walking up from this file, so it works
 * from src/ under tsx and from dist/src/ alike).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ProjectVersion {
  /** package.json "version", e.g. '0.1.0'. */
  version: string;
  major: string;
  minor: string;
  /** 'v0.1.0'. */
  gitVersion: string;
}

let cached: ProjectVersion | undefined;

export function projectVersion(): ProjectVersion {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'svc' && typeof pkg.version === 'string') {
        const [major = '0', minor = '0'] = pkg.version.split('.');
        cached = { version: pkg.version, major, minor, gitVersion: `v${pkg.version}` };
        return cached;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json of svc not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** The `--version` line: `svc v0.1.0`. */
export function versionLine(): string {
  return `svc ${projectVersion().gitVersion}`;
}
