/**
 * Reads a V8 `.cpuprofile` (what `node --cpu-prof` writes) and sums self time per function and per
 * source file, so the main costs can be read without opening DevTools.
 */
import { readFileSync } from 'node:fs';

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface SelfTime {
  /** `function (file:line)` or `file` */
  name: string;
  selfMs: number;
  /** Share of all sampled time, 0..1 (idle included in the total). */
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  functions: SelfTime[];
  files: SelfTime[];
}

function shortUrl(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length);
  return url.replace(/^file:\/\//, '');
}

export function summarizeCpuProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  let total = 0;
  let idle = 0;
  const fn = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const cf = byId.get(id)!.callFrame;
    total += us;
    if (cf.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const where = shortUrl(cf.url);
    const fnKey = `${cf.functionName || '(anonymous)'} (${where}${cf.url ? `:${cf.lineNumber + 1}` : ''})`;
    fn.set(fnKey, (fn.get(fnKey) ?? 0) + us);
    const fileKey = cf.url ? where : cf.functionName;
    files.set(fileKey, (files.get(fileKey) ?? 0) + us);
  }
  const rank = (m: Map<string, number>): SelfTime[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: total ? us / total : 0 }));
  return { totalMs: total / 1000, idleMs: idle / 1000, functions: rank(fn), files: rank(files) };
}

/**
 * Inclusive time (ms) of the frames `matches` picks: every sample whose stack holds such a frame,
 * callees included (what a piece of code costs with the library calls it makes).
 */
export function inclusiveMs(file: string, matches: (frame: { functionName: string; url: string }) => boolean): number {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const under = new Map<number, boolean>();
  const isUnder = (id: number): boolean => {
    const known = under.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const yes = node !== undefined && (matches({ functionName: node.callFrame.functionName, url: shortUrl(node.callFrame.url) }) || (up !== undefined && isUnder(up)));
    under.set(id, yes);
    return yes;
  };
  let us = 0;
  for (let i = 0; i < profile.samples.length; i++) if (isUnder(profile.samples[i]!)) us += profile.timeDeltas[i] ?? 0;
  return us / 1000;
}

export function renderProfileSummary(s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `Sampled ${(s.totalMs / 1000).toFixed(1)} s, idle ${(s.idleMs / 1000).toFixed(1)} s (${pct(s.totalMs ? s.idleMs / s.totalMs : 0)}).`,
    '',
    '| Self time | Share | Function |',
    '|---:|---:|---|',
    ...s.functions.map((f) => `| ${f.selfMs.toFixed(0)} ms | ${pct(f.share)} | \`${f.name}\` |`),
    '',
    '| Self time | Share | File |',
    '|---:|---:|---|',
    ...s.files.map((f) => `| ${f.selfMs.toFixed(0)} ms | ${pct(f.share)} | \`${f.name}\` |`),
  ];
  return lines.join('\n');
}

// `node dist/bench/profile-summary.js <file.cpuprofile> [top]`
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: profile-summary.js <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(renderProfileSummary(summarizeCpuProfile(file, Number(top ?? 25))));
}
