/**
 * PrioritySort (queue sort): higher `spec.priority` first; equal priorities in the order they
 * (re)entered the active queue. The default and only built-in queue sort.
 */
import type { Plugin, QueuedPodInfo, QueueSortPlugin } from '../../framework/interfaces.js';

export const name = 'PrioritySort';

export function less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
  const pa = a.podInfo.priority;
  const pb = b.podInfo.priority;
  return pa > pb || (pa === pb && a.timestamp < b.timestamp);
}

export function factory(): Plugin {
  const plugin: QueueSortPlugin = { name, less };
  return plugin;
}
