/** The "Volumes" section of docs/benchmarks.md (bench/measure-volumes.ts): claims bound per second by the binder. */
import type { VolumesBenchFigures } from './measure-volumes.js';

export const VOLUMES_HEADING = '## Volumes';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

export function renderVolumesSection(f: VolumesBenchFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  return `${VOLUMES_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-volumes.ts. One process: the API server on its embedded store (RBAC, default admission plugins) and the
persistentvolume-binder alone (one worker, as established; its own service account, in-process client), no scheduler or
nodes. Claims are created 32 at a time; the time runs from the first create to the last claim \`Bound\`.

| Case | Time | Rate (goal ≥ 500/s) |
|---|---|---|
| ${n0(f.claims)} claims, ${n0(f.claims)} Available static volumes of 1-10 Gi: smallest fit, bound | ${f.staticBindS.toFixed(2)} s | ${n0(f.claims / f.staticBindS)} claims/s |
| ${n0(f.claims)} claims of the default class: provisioned (svc.io/simulated) and bound | ${f.dynamicBindS.toFixed(2)} s | ${n0(f.claims / f.dynamicBindS)} claims/s |

Each static bind is four writes (the volume's claimRef, its phase, the claim's volumeName and annotations, its status);
each provisioned one six (the claim's provisioner annotations, the volume's create, then the same four).
`;
}
