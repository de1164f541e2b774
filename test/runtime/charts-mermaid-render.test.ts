// The Mermaid charts really render: the docs/charts/*.mmd files and a chart using every construct
// (nested, parallel, delayed, guarded, invoked, final, machine-wide) go through the real Mermaid
// library (node_modules/mermaid, offline) in headless Chromium, and every state shows up.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultCharts } from '../../src/cli/svc-charts.js';
import { chartModel, chartStates, toMermaid } from '../../src/runtime/inspection/index.js';
import { ROOT } from '../helpers/apiserver.js';
import { demo } from '../helpers/chart-machines.js';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
let browser: Browser;
let page: Page;

test.before(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({ path: join(ROOT, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js') });
});
test.after(async () => {
  await browser?.close();
});

interface MermaidApi {
  initialize(o: object): void;
  render(id: string, text: string): Promise<{ svg: string }>;
}

/** Renders with the real Mermaid; returns the SVG or throws Mermaid's parse error. */
async function render(text: string, n: number): Promise<string> {
  return page.evaluate(
    async ([src, id]) => {
      const m = (globalThis as unknown as { mermaid: MermaidApi }).mermaid;
      m.initialize({ startOnLoad: false, securityLevel: 'strict' });
      return (await m.render(id, src)).svg;
    },
    [text, `chart${n}`] as const,
  );
}

let n = 0;
for (const { name, machine, model } of defaultCharts()) {
  test(`docs/charts/${name}.mmd renders in Mermaid with every state`, async () => {
    const text = readFileSync(join(ROOT, 'docs', 'charts', `${name}.mmd`), 'utf8');
    const svg = await render(text, n++);
    for (const s of chartStates(model ?? chartModel(machine, name))) if (s.path) assert.match(svg, new RegExp(`<p>${s.key}(<br>|</p>)`), `${name}: state ${s.key} is drawn`);
  });
}

test('a chart with nested, parallel, delayed, guarded and machine-wide transitions renders', async () => {
  const svg = await render(toMermaid(chartModel(demo, 'demo')), n++);
  for (const label of ['fetching', 'l2', 'r2', 'any state', 'after retry (1000ms)', 'GO [!ready]']) assert.ok(svg.includes(label), label);
});

test('a broken chart is rejected (the check can fail)', async () => {
  let failed = false;
  try {
    await render('stateDiagram-v2\n  a --> : {', n++);
  } catch {
    failed = true;
  }
  assert.ok(failed);
});

test.run();
