/**
 * The `/debug/api_priority_and_fairness/dump_*` pages in the established layout: comma-separated
 * cells aligned by Go's text/tabwriter (minimum width 8, padding 1, spaces), one header line, then
 * one line per priority level, per queue, or per waiting request (`?includeRequestDetails=1` adds
 * who asked for what). An Exempt level has no queues: `<none>` in every column.
 */

/** A level as the dumps see it. */
export interface LevelDigest {
  name: string;
  /** Absent for an Exempt level. */
  queues?: {
    index: number;
    executing: number;
    virtualStart: number;
    waiting: { flowSchema: string; distinguisher: string; arrivedAt: number; detail?: RequestDetail }[];
  }[];
  quiescing: boolean;
  executing: number;
  waiting: number;
}

export interface RequestDetail {
  userName: string;
  verb: string;
  path: string;
  namespace: string;
  name: string;
  apiVersion: string;
  resource: string;
  subresource: string;
}

/** Go's tabwriter with minwidth 8, tabwidth 0, padding 1, padchar ' ', flags 0: tab-terminated cells aligned per column. */
export function tabwrite(lines: string[][]): string {
  const widths: number[] = [];
  for (const cells of lines) {
    // The last cell of a line is not tab-terminated: it is not part of a column.
    for (let i = 0; i < cells.length - 1; i++) widths[i] = Math.max(widths[i] ?? 8, cells[i]!.length + 1);
  }
  return lines.map((cells) => cells.map((c, i) => (i < cells.length - 1 ? c.padEnd(widths[i]!) : c)).join('') + '\n').join('');
}

/** `row(a, b, c)` of the established code: cells joined by ",\t" (each but the last keeps its comma). */
function row(...columns: string[]): string[] {
  return columns.map((c, i) => (i < columns.length - 1 ? `${c},` : c));
}

const NONE = '<none>';

export function dumpPriorityLevels(levels: readonly LevelDigest[]): string {
  const lines = [row('PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests')];
  for (const l of levels) {
    if (!l.queues) {
      lines.push(row(l.name, NONE, NONE, NONE, NONE, NONE));
      continue;
    }
    const active = l.queues.filter((q) => q.waiting.length > 0).length;
    lines.push(row(l.name, String(active), String(l.executing === 0 && l.waiting === 0), String(l.quiescing), String(l.waiting), String(l.executing)));
  }
  return tabwrite(lines);
}

export function dumpQueues(levels: readonly LevelDigest[]): string {
  const lines = [row('PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'VirtualStart')];
  for (const l of levels) {
    if (!l.queues) {
      lines.push(row(l.name, NONE, NONE, NONE, NONE));
      continue;
    }
    for (const q of l.queues) lines.push(row(l.name, String(q.index), String(q.waiting.length), String(q.executing), q.virtualStart.toFixed(4)));
  }
  return tabwrite(lines);
}

export function dumpRequests(levels: readonly LevelDigest[], includeDetails: boolean): string {
  const head = ['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime'];
  const details = ['UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'];
  const lines = [row(...head, ...(includeDetails ? details : []))];
  for (const l of levels) {
    for (const q of l.queues ?? []) {
      q.waiting.forEach((r, i) => {
        const cells = [l.name, r.flowSchema, String(q.index), String(i), r.distinguisher, new Date(r.arrivedAt).toISOString().replace(/\.?0*Z$/, 'Z')];
        if (includeDetails) {
          const d = r.detail;
          cells.push(d?.userName ?? '', d?.verb ?? '', d?.path ?? '', d?.namespace ?? '', d?.name ?? '', d?.apiVersion ?? '', d?.resource ?? '', d?.subresource ?? '');
        }
        lines.push(row(...cells));
      });
    }
  }
  return tabwrite(lines);
}
