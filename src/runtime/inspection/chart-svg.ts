/**
 * SVG charts rendered locally: Graphviz compiled to WebAssembly (`@viz-js/viz`) lays out the DOT
 * of a chart; nothing is downloaded at run time and no external service is asked. The module
 * (a few MB of WebAssembly) is loaded on first use, so importing the runtime stays cheap.
 */
import type { Viz } from '@viz-js/viz';
import type { ChartModel } from './chart-model.js';
import { toDot } from './chart-dot.js';

let viz: Promise<Viz> | undefined;

/** Renders DOT source to an SVG document (throws with Graphviz's messages when it cannot). */
export async function renderDotToSvg(dot: string): Promise<string> {
  viz ??= import('@viz-js/viz').then((m) => m.instance());
  const result = (await viz).render(dot, { format: 'svg' });
  if (result.status !== 'success') {
    throw new Error(`graphviz could not render the chart: ${result.errors.map((e) => e.message).join('; ') || 'unknown error'}`);
  }
  return result.output;
}

export function toSvg(model: ChartModel): Promise<string> {
  return renderDotToSvg(toDot(model));
}
