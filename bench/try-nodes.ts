/**
 * One simulated-nodes benchmark case, for trying sizes and profiling:
 *   PART=startup NODES=500 RATE=100 SECONDS=60 node dist/bench/try-nodes.js
 *   PART=scale NODES=1000 PODS=20000 node --cpu-prof dist/bench/try-nodes.js
 * Prints the figures as one JSON line.
 */
import { tmpdir } from 'node:os';
import { measureScale, measureStartup, type NodesBenchSettings } from './measure-nodes.js';

const n = (k: string, d: number) => Number(process.env[k] ?? d);
const settings: NodesBenchSettings = {
  startupNodes: n('NODES', 500),
  startupRatePerSecond: n('RATE', 100),
  startupSeconds: n('SECONDS', 60),
  scaleNodes: n('NODES', 1000),
  scalePods: n('PODS', 20_000),
  scaleConcurrency: n('CONCURRENCY', 64),
};
const log = (m: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${m}`);
const r = process.env['PART'] === 'scale' ? await measureScale(tmpdir(), settings, log) : await measureStartup(tmpdir(), settings, log);
console.log(JSON.stringify(r));
process.exit(0);
