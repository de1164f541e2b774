/** The "Controller authoring" section of docs/benchmarks.md (bench/measure-backup.ts). */
import type { BackupFigures } from './measure-backup.js';

export const BACKUP_HEADING = '## Controller authoring: the backup example';

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

export function renderBackupSection(f: BackupFigures, run: { command: string; date: Date; loadAtStart: number }): string {
  const rows = f.runs
    .map((r) => `| ${r.label} | \`${r.flags.join(' ') || '(none)'}\` | ${r.backups === f.sources ? `${r.seconds} s` : `${n0(r.backups)} of ${n0(f.sources)} after ${r.seconds} s`} | ${n0(f.sources / r.seconds)} |`)
    .join('\n');
  return `${BACKUP_HEADING}

Measured by \`${run.command}\` on ${run.date.toISOString()} (load average at start ${run.loadAtStart.toFixed(2)}); code in
bench/measure-backup.ts. The guide's backup controller (docs/examples/backup-controller.ts: server-side apply of a copy
per labelled ConfigMap, no Event on success) hosted by \`svc run\` as its own process against \`svc up\`, over HTTPS,
with leader election; ${n0(f.sources)} labelled ConfigMaps exist first. Time: from starting \`svc run\` to the
${n0(f.sources)}th backup listed (process start, leader election, the informer's list and every write included).

| Client settings | Flags | All ${n0(f.sources)} backed up | Backups/s |
|---|---|---:|---:|
${rows}

Target: under 20 s at the documented settings. Each write (and each Event a controller records) waits its turn at the
client's rate limit, so at the defaults (20 writes/s) ${n0(f.sources)} writes take at least ${n0(f.sources / 20)} s whatever the
controller does.
`;
}
