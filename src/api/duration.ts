/**
 * Go-style durations (`10s`, `1m0s`, `8760h0m0s`, `1.5h`, `300ms`, `2h45m`, `-5s`, `0`), the form
 * flags and configuration files use, to and from milliseconds (fractions kept below 1 ms).
 */

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** What a person should write instead of a malformed duration. */
export const DURATION_EXPECTED = 'expected a duration such as 10s, 1m0s, 1.5h, 300ms or 2h45m (units ns, us, ms, s, m, h)';

/** Milliseconds, or undefined when `value` is not a duration. */
export function parseDurationMs(value: string): number | undefined {
  let s = value.trim();
  if (s === '') return undefined;
  let sign = 1;
  if (s[0] === '-' || s[0] === '+') {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') return undefined;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  let total = 0;
  while (s.length > 0) {
    const m = part.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2]!] as number);
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/** Formats milliseconds the way Go prints a time.Duration: `1m0s`, `8760h0m0s`, `300ms`, `0s`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) {
    if (rest >= 1) return `${sign}${trimNumber(rest)}ms`;
    if (rest >= 1e-3) return `${sign}${trimNumber(rest * 1000)}µs`;
    return `${sign}${trimNumber(rest * 1e6)}ns`;
  }
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${trimNumber(rest / 1000)}s`;
  if (h > 0) return `${sign}${h}h${m}m${s}`;
  if (m > 0) return `${sign}${m}m${s}`;
  return `${sign}${s}`;
}

function trimNumber(n: number): string {
  return String(Number(n.toFixed(9)));
}
