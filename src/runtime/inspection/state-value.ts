/** xstate state values (`'follower'`, `{ leader: { renewing: 'attempt' } }`) as dotted state paths. */

export type StateValueLike = string | { [key: string]: StateValueLike | undefined };

/** The paths of the active leaf states, e.g. `['leader.renewing.attempt']` (parallel: several). */
export function leafPaths(value: StateValueLike, prefix = ''): string[] {
  if (typeof value === 'string') return [prefix ? `${prefix}.${value}` : value];
  const out: string[] = [];
  for (const [key, sub] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (sub === undefined || (typeof sub === 'object' && Object.keys(sub).length === 0)) out.push(path);
    else out.push(...leafPaths(sub, path));
  }
  return out;
}

/** Every active state's path, ancestors included: `['leader', 'leader.renewing', 'leader.renewing.attempt']`. */
export function activePaths(value: StateValueLike): string[] {
  const out = new Set<string>();
  for (const leaf of leafPaths(value)) {
    const parts = leaf.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
  }
  return [...out];
}

/** One line for a state value: its leaf paths joined by `, `. */
export function describeStateValue(value: StateValueLike): string {
  return leafPaths(value).join(', ');
}

export function isStateValue(v: unknown): v is StateValueLike {
  if (typeof v === 'string') return true;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.values(v).every((x) => x === undefined || isStateValue(x));
}
