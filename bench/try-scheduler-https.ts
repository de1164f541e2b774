/**
 * SchedulingBasic over HTTPS, for profiling: the apiserver in its own process (PROF=dir profiles it
 * there with --cpu-prof), the load client and the scheduler in this one.
 *   N=5000 BG=1000 M=10000 PROF=/tmp/prof-api node --cpu-prof dist/bench/try-scheduler-https.js
 * (H2=1: the clients offer HTTP/2.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '../src/client/index.js';
import { measureScheduling } from './measure-scheduler.js';
import { startApiServer, writeSvcconfigFor } from './server-process.js';

const work = mkdtempSync(join(tmpdir(), 'svc-try-https-'));
const certDir = join(work, 'certs');
const api = await startApiServer({ dataDir: join(work, 'data'), certDir, ...(process.env['PROF'] ? { profileDir: process.env['PROF'] } : {}) });
const cfg = writeSvcconfigFor(api, certDir, work);
// H2=1 offers HTTP/2 (the client's default is HTTP/1.1).
const http2 = process.env['H2'] === '1';
const load = connect({ svcconfig: cfg, qps: 0, http2 });
const sched = connect({ svcconfig: cfg, qps: 0, userAgent: 'scheduler', http2 });
const r = await measureScheduling(
  { variant: 'basic', nodes: Number(process.env['N'] ?? 5000), backgroundPods: Number(process.env['BG'] ?? 1000), measuredPods: Number(process.env['M'] ?? 10000), createConcurrency: 64 },
  load.client, sched.client, 'HTTPS', 'bench',
);
console.error(JSON.stringify(r));
await sched.close();
await load.close();
await api.stop();
rmSync(work, { recursive: true, force: true });
process.exit(0);
