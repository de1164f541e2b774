// docs/content-types.md's examples, run as documented (bash, curl, jq, od and the page's Protobuf
// decoder) against the real apiserver in the order the page gives them. Every `$ command` must
// print the lines the page shows under it; only values that differ from run to run (listed in
// VARYING) are compared by shape.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ApiServerProcess, ROOT } from '../helpers/apiserver.js';
import { type DocsWorkspace, startDocsWorkspace } from '../helpers/doc-examples.js';

interface Command {
  section: string;
  /** The command with its continuation lines, without the `$ ` prompt. */
  script: string;
  /** The lines the page shows under it (may be empty). */
  output: string;
}

interface Page {
  /** The first ```sh block: the variables and the objects the examples use. */
  setup: string;
  commands: Command[];
}

/** Splits the page's ```sh blocks into the setup block and `$ ` commands with their printed lines. */
function parsePage(markdown: string): Page {
  let section = '';
  let setup: string | undefined;
  const commands: Command[] = [];
  const re = /^(## .*)$|^```sh\n([\s\S]*?)^```\n/gm;
  for (let m = re.exec(markdown); m; m = re.exec(markdown)) {
    if (m[1]) {
      section = m[1].slice(3);
      continue;
    }
    const block = m[2]!;
    if (setup === undefined) {
      setup = block;
      continue;
    }
    let current: Command | undefined;
    let continued = false;
    for (const line of block.split('\n')) {
      if (line.startsWith('$ ')) {
        current = { section, script: line.slice(2), output: '' };
        commands.push(current);
      } else if (continued && current) {
        current.script += `\n${line}`;
      } else if (current && line !== '') {
        current.output += `${line}\n`;
      } else if (!current && line !== '') {
        throw new Error(`a line before any "$ " command in a block under "${section}": ${line}`);
      }
      continued = line.endsWith('\\') && current !== undefined && current.output === '';
    }
  }
  if (setup === undefined) throw new Error('no ```sh block found');
  return { setup, commands };
}

/**
 * Values the page shows that differ from run to run, and the shape that stands for them.
 * Everything else (status codes, reasons, messages, content types, prefix bytes, column names,
 * types and priorities, cells other than ages) must be exactly as printed.
 */
const VARYING: [RegExp, string][] = [
  [/"resourceVersion":"\d+"/g, '"resourceVersion":"\\d+"'],
  [/"seconds":\d+/g, '"seconds":\\d+'],
  [/\b\d+ bytes\b/g, '\\d+ bytes'],
  // A Table age cell: "0s", "5m7s" ...
  [/"(?:\d+[smhdy])+"/g, '"(?:\\d+[smhdy])+"'],
  // A name generated from `generateName: draft-`.
  [/\bdraft-[a-z0-9]{5}\b/g, 'draft-[a-z0-9]{5}'],
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The page's output as a pattern: literal text, with each VARYING value replaced by its shape. */
function outputPattern(shown: string): RegExp {
  const spans: { start: number; end: number; shape: string }[] = [];
  for (const [re, shape] of VARYING) {
    for (const m of shown.matchAll(re)) {
      const start = m.index!;
      if (!spans.some((s) => start < s.end && s.start < start + m[0].length)) spans.push({ start, end: start + m[0].length, shape });
    }
  }
  spans.sort((a, b) => a.start - b.start);
  let source = '';
  let at = 0;
  for (const s of spans) {
    source += escape(shown.slice(at, s.start)) + s.shape;
    at = s.end;
  }
  return new RegExp(`^${source}${escape(shown.slice(at))}$`);
}

const run = promisify(execFile);
const test = suite('docs/content-types.md examples');
let ws: DocsWorkspace | undefined;
let server: ApiServerProcess | undefined;
let cwd = '';

test.before(async () => {
  ws = await startDocsWorkspace('content-types', { linkDist: true });
  ({ server, cwd } = ws);
});

test.after(async () => {
  await ws?.stop();
});

test('the page parses into a setup block and the commands of each section', () => {
  const page = parsePage(readFileSync(join(ROOT, 'docs', 'content-types.md'), 'utf8'));
  const sections = new Set(page.commands.map((c) => c.section));
  assert.equal([...sections], ['Negotiation', 'Table', 'Dry run', 'Protobuf']);
  assert.ok(page.commands.length >= 20, `found ${page.commands.length} commands`);
  assert.ok(outputPattern('{"resourceVersion":"6","name":"draft-58kdc","age":"5m7s"} 575 bytes').test('{"resourceVersion":"12","name":"draft-x9q2z","age":"3s"} 601 bytes'));
  assert.not.ok(outputPattern('{"code":406}').test('{"code":415}'), 'status codes are compared exactly');
  assert.not.ok(outputPattern(' 6b 38 73 00').test(' 7b 22 6b 69'), 'prefix bytes are compared exactly');
});

test('every example runs and prints what the page shows', async () => {
  const page = parsePage(readFileSync(join(ROOT, 'docs', 'content-types.md'), 'utf8'));
  const env = { ...process.env, API: server!.url };
  const opts = { cwd, env, timeout: 20_000 };
  // The setup against the test server (its URL comes from the environment, not the page's API=).
  const setup = page.setup.split('\n').filter((l) => !l.startsWith('API=')).join('\n');
  const created = await run('bash', ['-euo', 'pipefail', '-c', setup], opts);
  assert.is(created.stdout, '201\n201\n', 'the setup creates the pod and the ConfigMap, as the page says');

  // Variables set so far (the setup's, then `$ NAME=...` commands) go before each command.
  const variables = setup.split('\n').filter((l) => /^[A-Z_]+=/.test(l));
  for (const c of page.commands) {
    if (/^[A-Z_]+=\S+$/.test(c.script)) {
      assert.is(c.output, '', `an assignment prints nothing: ${c.script}`);
      variables.push(c.script);
      continue;
    }
    const label = `"${c.section}": ${c.script.split('\n')[0]}`;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', [...variables, c.script].join('\n')], opts).catch((err: Error & { stderr?: string }) => {
      throw new Error(`${label} failed: ${err.message}\n${err.stderr ?? ''}`);
    });
    const pattern = outputPattern(c.output.trim());
    assert.ok(pattern.test(stdout.trim()), `${label}\n  page:   ${c.output.trim()}\n  server: ${stdout.trim()}`);
  }
});

test.run();
