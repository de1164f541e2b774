// Layering rule (design.md "Layering"): who may import whom. Scans every import of src/ and
// machines/ (and controllers/ when present) and fails naming the file and the forbidden import.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..', '..');

/** The area of a repository path: `src/api`, `machines`, `controllers`, ... */
function areaOf(path: string): string {
  const rel = relative(root, path).split('/');
  return rel[0] === 'src' ? `src/${rel[1]}` : rel[0]!;
}

/** Areas each area must not import (beyond node built-ins and packages). */
const FORBIDDEN: Record<string, string[]> = {
  // src/testing (the test cluster) sits on top with src/cli: nothing below imports it.
  'src/api': ['src/codec', 'src/storage', 'src/apiserver', 'src/client', 'src/runtime', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'machines', 'controllers', 'src/testing'],
  'src/codec': ['src/storage', 'src/apiserver', 'src/client', 'src/runtime', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'machines', 'controllers', 'src/testing'],
  'src/storage': ['src/apiserver', 'src/client', 'src/runtime', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'machines', 'controllers', 'src/testing'],
  'src/apiserver': ['src/runtime', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'machines', 'controllers', 'src/testing'],
  'src/client': ['src/storage', 'src/apiserver', 'src/runtime', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'machines', 'controllers', 'src/testing'],
  'src/runtime': ['src/storage', 'src/apiserver', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'controllers', 'src/testing'],
  machines: ['src/storage', 'src/apiserver', 'src/scheduler', 'src/nodes', 'src/cloud', 'src/cli', 'controllers', 'src/testing'],
  'src/scheduler': ['src/storage', 'src/apiserver', 'src/nodes', 'src/cloud', 'src/cli', 'controllers', 'src/testing'],
  // The simulated nodes run on the simulated cloud's instances (src/nodes/cloud-machines.ts).
  'src/nodes': ['src/storage', 'src/apiserver', 'src/scheduler', 'src/cli', 'controllers', 'src/testing'],
  'src/cloud': ['src/storage', 'src/apiserver', 'src/client', 'src/runtime', 'src/scheduler', 'src/nodes', 'src/cli', 'machines', 'controllers', 'src/testing'],
  // The cloud controllers call the cloud through its interface (design.md: "The cloud").
  controllers: ['src/storage', 'src/apiserver', 'src/scheduler', 'src/nodes', 'src/cli', 'src/testing'],
};

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;

test('no area imports an area the design forbids', () => {
  const violations: string[] = [];
  const files = [...tsFiles(join(root, 'src')), ...tsFiles(join(root, 'machines')), ...tsFiles(join(root, 'controllers'))];
  assert.ok(files.length > 100, `found only ${files.length} source files under ${root}`);
  for (const file of files) {
    const from = areaOf(file);
    const forbidden = FORBIDDEN[from];
    if (!forbidden) continue;
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2]!;
      const to = areaOf(resolve(dirname(file), spec));
      if (forbidden.includes(to)) violations.push(`${relative(root, file)} imports ${spec} (${from} must not import ${to})`);
    }
  }
  assert.equal(violations, [], violations.join('\n'));
});

test.run();
