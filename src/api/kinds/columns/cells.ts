/**
 * Building blocks of Table columns: column definitions, the established short durations (`5m`,
 * `3d4h`), and the cells several kinds share (name, age, containers, images, selector).
 * Everything here is a pure function of the object and the clock.
 */
import type { SvcObject, TableCell, TableColumnDefinition } from '../../types.js';
import { asArray, asRecord } from '../define.js';

export const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.';
export const CREATED_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. Represented in RFC3339 form and is in UTC.';

/** A column definition; `format` is '' unless given. */
export function column(
  name: string,
  type: TableColumnDefinition['type'],
  description: string,
  opts: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return { name, type, format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

export const NAME_COLUMN = column('Name', 'string', NAME_DESCRIPTION, { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', CREATED_DESCRIPTION);
export const CONTAINERS_COLUMN = column('Containers', 'string', 'Names of each container in the template.', { priority: 1 });
export const IMAGES_COLUMN = column('Images', 'string', 'Images referenced by each container in the template.', { priority: 1 });
export const SELECTOR_COLUMN = column('Selector', 'string', 'Label selector for the objects this one manages.', { priority: 1 });

/**
 * The established human duration: seconds up to 2 minutes, then minutes (with seconds below 10m),
 * hours (with minutes below 8h), days (with hours below 8d), years (with days below 8y).
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** Time since an RFC 3339 timestamp, `<unknown>` when absent or unparsable. */
export function since(stamp: unknown, now: number): string {
  if (typeof stamp !== 'string' || stamp === '') return '<unknown>';
  const t = Date.parse(stamp);
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

export function age(obj: SvcObject, now: number): string {
  return since(obj.metadata.creationTimestamp, now);
}

export function name(obj: SvcObject): string {
  return obj.metadata.name ?? '';
}

/** A nested value as a string, '' when absent. */
export function text(v: unknown): string {
  return v === undefined || v === null ? '' : String(v);
}

/** A nested value as a string, `<none>` when absent or empty. */
export function orNone(v: unknown): string {
  const s = text(v);
  return s === '' ? '<none>' : s;
}

/** A nested number (0 when absent), as the integer cells print it. */
export function count(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/** Reads `a.b.c` from an object ('undefined' at the first missing step). */
export function at(obj: unknown, ...path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** `k=v,k2=v2` of a string map (sorted), `<none>` when empty. */
export function formatLabels(map: unknown): string {
  const entries = Object.entries(asRecord(map)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length ? entries.map(([k, v]) => `${k}=${text(v)}`).join(',') : '<none>';
}

/** A LabelSelector (`matchLabels` + `matchExpressions`) as the established selector string. */
export function formatSelector(selector: unknown): string {
  const sel = asRecord(selector);
  const parts: string[] = [];
  for (const [k, v] of Object.entries(asRecord(sel['matchLabels']))) parts.push(`${k}=${text(v)}`);
  for (const e of asArray(sel['matchExpressions'])) {
    const r = asRecord(e);
    const key = text(r['key']);
    const values = asArray(r['values']).map(text).sort().join(',');
    switch (r['operator']) {
      case 'In':
        parts.push(`${key} in (${values})`);
        break;
      case 'NotIn':
        parts.push(`${key} notin (${values})`);
        break;
      case 'Exists':
        parts.push(key);
        break;
      case 'DoesNotExist':
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.sort().join(',');
}

/** The containers of a pod spec, as `[names, images]` comma-joined cells. */
export function containerCells(podSpec: unknown): [string, string] {
  const containers = asArray(asRecord(podSpec)['containers']).map(asRecord);
  return [containers.map((c) => text(c['name'])).join(','), containers.map((c) => text(c['image'])).join(',')];
}

/** Cells for a kind with a pod template at `spec.template`: containers, images, selector. */
export function templateCells(obj: SvcObject): TableCell[] {
  return [...containerCells(at(obj, 'spec', 'template', 'spec')), formatSelector(at(obj, 'spec', 'selector'))];
}

/** Access modes in their short forms (RWO, ROX, RWX, RWOP), comma-joined. */
export function accessModes(modes: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return asArray(modes).map((m) => short[text(m)] ?? text(m)).join(',');
}
