/**
 * Builds one predicate from a request's labelSelector and fieldSelector, and tells whether the
 * request is narrowed by a selector at all (which makes remainingItemCount unknowable).
 */
import { parseFieldSelector, parseLabelSelector } from '../api/index.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';

export interface ObjectFilter {
  matches?: (obj: SvcObject) => boolean;
  /** The name pinned by `fieldSelector=metadata.name=<x>`, if any. */
  exactName?: string;
}

export function filterFromQuery(def: ResourceDefinition, query: URLSearchParams): ObjectFilter {
  const ls = query.get('labelSelector') ?? '';
  const fs = query.get('fieldSelector') ?? '';
  const labels = ls.trim() ? parseLabelSelector(ls) : undefined;
  const fields = fs.trim() ? parseFieldSelector(fs, def) : undefined;
  const useLabels = labels && !labels.empty ? labels : undefined;
  const useFields = fields && !fields.empty ? fields : undefined;
  if (!useLabels && !useFields) return {};
  return {
    matches: (obj) => (!useLabels || useLabels.matches(obj.metadata.labels ?? {})) && (!useFields || useFields.matches(obj)),
    exactName: useFields?.exactName(),
  };
}
