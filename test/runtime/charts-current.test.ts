// docs/charts/ holds the project's machines and the built-in controllers with a lifecycle as
// Mermaid and SVG; regenerating them (in memory) must give the committed files (run `npm run charts`
// after changing a machine).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultCharts } from '../../src/cli/svc-charts.js';
import { CHART_EXTENSIONS, chartModel, chartStates, renderChart } from '../../src/runtime/inspection/index.js';
import { ROOT } from '../helpers/apiserver.js';

for (const { name, machine, model: own } of defaultCharts()) {
  test(`docs/charts/${name}.mmd and .svg are current`, async () => {
    const model = own ?? chartModel(machine, name);
    for (const format of ['mermaid', 'svg'] as const) {
      const file = join(ROOT, 'docs', 'charts', `${name}.${CHART_EXTENSIONS[format]}`);
      assert.ok(existsSync(file), `${file} is missing; run npm run charts`);
      const want = await renderChart(model, format);
      assert.ok(readFileSync(file, 'utf8') === want, `${file} is out of date; run npm run charts`);
    }
    const svg = readFileSync(join(ROOT, 'docs', 'charts', `${name}.svg`), 'utf8');
    for (const s of chartStates(model)) if (s.path) assert.ok(svg.includes(`id="state&#45;${s.path}"`), `${name}: ${s.path}`);
  });
}

test('docs/charts.md shows every project chart', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'charts.md'), 'utf8');
  for (const { name } of defaultCharts()) assert.ok(doc.includes(`(charts/${name}.svg)`), `${name} is not shown in docs/charts.md`);
});

test.run();
