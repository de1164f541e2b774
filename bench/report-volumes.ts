/** The "Volumes" section of docs/benchmarks.md (bench/measure-volumes.ts): claims bound per second by the binder. */
import type { VolumesBenchFigures } from './measure-volumes.js';

export const VOLUMES_HEADING = '## Volumes';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

export function renderVolumesSection(f: VolumesBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  return `${VOLUMES_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-volumes.ts. One process: the API server on its embedded store (\`--data-dir-fsync=false\`, so the disk
shared with other work does not set the pace; RBAC and the default admission plugins on) and the persistentvolume-binder
alone (its 64 workers, its own service account, in-process client), no scheduler or nodes. Claims are created 32 at a
time; the time runs from the first create to the last claim \`Bound\` (seen by a watch).

| Case | Time | Rate (goal ≥ 500/s) |
|---|---|---|
| ${n0(f.claims)} claims, ${n0(f.claims)} Available static volumes of 1-10 Gi: smallest fit, bound | ${f.staticBindS.toFixed(2)} s | ${n0(f.claims / f.staticBindS)} claims/s |
| ${n0(f.claims)} claims of the default class: provisioned (svc.io/simulated) and bound | ${f.dynamicBindS.toFixed(2)} s | ${n0(f.claims / f.dynamicBindS)} claims/s |

Each static bind is four writes (the volume's claimRef, its phase, the claim's volumeName and annotations, its status);
each provisioned one six (the claim's provisioner annotations, the volume's create, the Event, then the volume's
phase, the claim's volumeName and annotations, its status: the provisioned volume carries its claimRef already). With
the 1,000 creates that is 5,000-7,000 writes, each waiting for the one before within a claim, in the established order.
The binder no longer sets the pace: with 64 workers many claims wait for their writes at once, and a claim's
candidate volumes come from two cache indexes (its pre-bound volumes, the unbound ones of its class), not a scan of
every volume each sync (that scan and its quantity parsing were about 20% of the process's CPU in a profile of the
8-worker run; 2.3% with the indexes). What remains is the API server's write path in this one process (storage,
managed fields, validation, watch fan-out): the run above is about ${n0((f.claims * 5) / f.staticBindS)} writes/s (static, five per claim with its
create) and ${n0((f.claims * 7) / f.dynamicBindS)} writes/s (provisioned, seven). The goal of 500 claims/s would need 2,500-3,500 writes/s, or a
bind of one or two writes, which the established wire behaviour (each write a separate update other components
watch) does not allow: not met. "Issue 25 goals" below has the runs before and after, loaded and quieter.
`;
}
