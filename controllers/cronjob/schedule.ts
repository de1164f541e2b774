/**
 * Cron schedules as the established CronJob reads them: five fields (minute, hour, day of month,
 * month, day of week) of `*`/`?`, numbers, `a-b` ranges, `/step` steps and comma lists, month and
 * weekday names (`jan`, `mon`); the macros `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily`
 * (`@midnight`), `@hourly`; and `@every <duration>`. Day of month and day of week, when both are
 * restricted, match when either does (cron's rule). Times are UTC (a `TZ=`/`CRON_TZ=` prefix is
 * accepted and ignored here). `next(t)` is the first scheduled time after `t`.
 */
import { parseDurationMs } from '../../src/api/duration.js';

export interface Schedule {
  /** The first scheduled time strictly after `after` (ms), or undefined when there is none within 5 years. */
  next(after: number): number | undefined;
  /** Times that need their seconds to be told apart (an `@every` not a whole number of minutes). */
  readonly subMinute: boolean;
}

const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

export class ScheduleError extends Error {}

interface Field {
  values: Set<number>;
  /** `*` or `?` (matters for the day-of-month / day-of-week rule). */
  star: boolean;
}

function parseField(text: string, min: number, max: number, names?: string[], nameBase = 0): Field {
  const values = new Set<number>();
  let star = false;
  const value = (s: string): number => {
    const i = names?.indexOf(s.toLowerCase()) ?? -1;
    const n = i >= 0 ? i + nameBase : /^\d+$/.test(s) ? Number(s) : NaN;
    if (!Number.isInteger(n)) throw new ScheduleError(`unparseable value ${JSON.stringify(s)}`);
    return n;
  };
  for (const item of text.split(',')) {
    const m = /^([^/]+)(?:\/(\d+))?$/.exec(item);
    if (!m) throw new ScheduleError(`unparseable field ${JSON.stringify(item)}`);
    const [, range, stepText] = m;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new ScheduleError(`step must be at least 1 in ${JSON.stringify(item)}`);
    let lo: number;
    let hi: number;
    if (range === '*' || range === '?') {
      [lo, hi] = [min, max];
      if (stepText === undefined) star = true;
    } else if (range!.includes('-')) {
      const [a, b] = range!.split('-');
      [lo, hi] = [value(a!), value(b!)];
    } else {
      lo = value(range!);
      hi = stepText === undefined ? lo : Math.max(lo, max);
    }
    // Day of week accepts 7 for Sunday, as 0.
    const top = max === 6 ? 7 : max;
    if (lo < min || hi > top || lo > hi) throw new ScheduleError(`${JSON.stringify(item)} is outside ${min}-${max}`);
    for (let v = lo; v <= hi; v += step) values.add(v === 7 && max === 6 ? 0 : v);
  }
  return { values, star };
}

const MINUTE = 60_000;
const FIVE_YEARS = 5 * 366 * 24 * 60 * MINUTE;

export function parseSchedule(spec: string): Schedule {
  let s = spec.trim().replace(/^(CRON_)?TZ=\S+\s+/, '');
  const every = /^@every\s+(\S+)$/.exec(s);
  if (every) {
    const ms = parseDurationMs(every[1]!);
    if (ms === undefined || ms < 1000) throw new ScheduleError(`@every needs a duration of at least 1s, not ${JSON.stringify(every[1])}`);
    const period = Math.round(ms / 1000) * 1000;
    return { next: (after) => Math.floor(after / 1000) * 1000 + period, subMinute: period % 60_000 !== 0 };
  }
  s = MACROS[s] ?? s;
  const parts = s.split(/\s+/);
  if (parts.length !== 5) throw new ScheduleError(`expected exactly 5 fields, found ${parts.length}: ${JSON.stringify(spec)}`);
  const minute = parseField(parts[0]!, 0, 59);
  const hour = parseField(parts[1]!, 0, 23);
  const dom = parseField(parts[2]!, 1, 31);
  const month = parseField(parts[3]!, 1, 12, MONTHS, 1);
  const dow = parseField(parts[4]!, 0, 6, DAYS, 0);
  const dayMatches = (d: Date) => {
    const a = dom.values.has(d.getUTCDate());
    const b = dow.values.has(d.getUTCDay());
    return dom.star || dow.star ? a && b : a || b;
  };
  return {
    subMinute: false,
    next(after) {
      let t = Math.floor(after / MINUTE) * MINUTE + MINUTE;
      const end = after + FIVE_YEARS;
      while (t <= end) {
        const d = new Date(t);
        if (!month.values.has(d.getUTCMonth() + 1)) {
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
          continue;
        }
        if (!dayMatches(d)) {
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
          continue;
        }
        if (!hour.values.has(d.getUTCHours())) {
          t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
          continue;
        }
        if (!minute.values.has(d.getUTCMinutes())) {
          t += MINUTE;
          continue;
        }
        return t;
      }
      return undefined;
    },
  };
}

/** Beyond this many missed times the count stops and the search jumps near `now` (a long-stopped controller). */
const SCAN_LIMIT = 10_000;

/**
 * The most recent scheduled time in (`since`, `now`] and how many times were missed (the
 * established controller warns past 100 and starts the most recent one anyway).
 */
export function mostRecentMissed(schedule: Schedule, since: number, now: number): { time: number | undefined; missed: number } {
  let time: number | undefined;
  let missed = 0;
  for (let t = schedule.next(since); t !== undefined && t <= now; t = schedule.next(t)) {
    time = t;
    if (++missed >= SCAN_LIMIT) {
      // Count no further; find the latest time from a year and a bit before now.
      const late = mostRecentMissed(schedule, Math.max(t, now - 400 * 24 * 3_600_000), now);
      return { time: late.time ?? time, missed: missed + late.missed };
    }
  }
  return { time, missed };
}
