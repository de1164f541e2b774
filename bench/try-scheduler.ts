/**
 * One scheduler benchmark case in process, for profiling:
 *   N=5000 BG=1000 M=10000 V=basic node --cpu-prof dist/bench/try-scheduler.js
 * (V: basic | anti-affinity | topology-spread). Prints the result as one JSON line on stderr.
 */
import { tmpdir } from 'node:os';
import { connectInProcess } from '../src/cli/in-process-client.js';
import { startInProcessServer } from './in-process-server.js';
import { measureScheduling, type Variant } from './measure-scheduler.js';

const local = await startInProcessServer(tmpdir());
const conn = connectInProcess(local.server);
const r = await measureScheduling(
  {
    variant: (process.env['V'] ?? 'basic') as Variant,
    nodes: Number(process.env['N'] ?? 1000),
    backgroundPods: Number(process.env['BG'] ?? 200),
    measuredPods: Number(process.env['M'] ?? 2000),
    createConcurrency: 64,
  },
  conn.client, conn.client, 'in-process', 'bench',
);
console.error(JSON.stringify(r));
await conn.close();
await local.stop();
process.exit(0);
