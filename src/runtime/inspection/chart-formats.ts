/** The formats a chart can be written in, their file extensions, and one function to write any. */
import type { ChartModel } from './chart-model.js';
import { toDot } from './chart-dot.js';
import { toMermaid } from './chart-mermaid.js';
import { toSvg } from './chart-svg.js';

export const CHART_FORMATS = ['mermaid', 'svg', 'dot', 'json'] as const;
export type ChartFormat = (typeof CHART_FORMATS)[number];

/** File extension per format (`docs/charts/<name>.<ext>`). */
export const CHART_EXTENSIONS: Record<ChartFormat, string> = { mermaid: 'mmd', svg: 'svg', dot: 'dot', json: 'json' };

export function renderChart(model: ChartModel, format: ChartFormat): Promise<string> {
  switch (format) {
    case 'mermaid':
      return Promise.resolve(toMermaid(model));
    case 'dot':
      return Promise.resolve(toDot(model));
    case 'json':
      return Promise.resolve(`${JSON.stringify(model, null, 2)}\n`);
    case 'svg':
      return toSvg(model);
  }
}
