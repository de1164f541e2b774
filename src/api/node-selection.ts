/**
 * Which nodes a pod may go to, with the established semantics, shared by the scheduler and the
 * controllers that place pods themselves (daemonset):
 *
 * - Node selector terms (node affinity, PV node affinity) compiled once into matchers: a list of
 *   terms is an OR, a term's expressions an AND. Operators: In, NotIn, Exists, DoesNotExist, Gt and
 *   Lt (integer comparison of the label value). `matchFields` supports `metadata.name` only. A
 *   term with no expressions and no fields matches nothing.
 * - Tolerations: an empty effect matches every effect; operator Exists with an empty key
 *   tolerates every taint; Equal (the default) compares values.
 */
import type { Node, NodeSelectorRequirement, NodeSelectorTerm } from './generated/kinds.js';
import type { Taint, Toleration } from './kind-parts.js';

export type NodeMatcher = (node: Node) => boolean;

function requirement(r: NodeSelectorRequirement, read: (node: Node) => string | undefined): NodeMatcher {
  const key = r.key ?? '';
  const values = r.values ?? [];
  const set = new Set(values);
  switch (r.operator) {
    case 'In':
      return (n) => {
        const v = read(n);
        return v !== undefined && set.has(v);
      };
    case 'NotIn':
      return (n) => {
        const v = read(n);
        return v === undefined || !set.has(v);
      };
    case 'Exists':
      return (n) => read(n) !== undefined;
    case 'DoesNotExist':
      return (n) => read(n) === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = values.length === 1 ? Number.parseInt(values[0]!, 10) : Number.NaN;
      if (!Number.isFinite(bound)) return () => false;
      return (n) => {
        const raw = read(n);
        if (raw === undefined || !/^-?\d+$/.test(raw)) return false;
        const v = Number.parseInt(raw, 10);
        return r.operator === 'Gt' ? v > bound : v < bound;
      };
    }
    default:
      // Validation refuses other operators; a stored one matches nothing.
      void key;
      return () => false;
  }
}

export function compileTerm(term: NodeSelectorTerm): NodeMatcher {
  const parts: NodeMatcher[] = [];
  for (const r of term.matchExpressions ?? []) parts.push(requirement(r, (n) => n.metadata.labels?.[r.key ?? '']));
  for (const r of term.matchFields ?? []) {
    if (r.key !== 'metadata.name') parts.push(() => false);
    else parts.push(requirement(r, (n) => n.metadata.name));
  }
  if (parts.length === 0) return () => false;
  return (n) => {
    for (const p of parts) if (!p(n)) return false;
    return true;
  };
}

/** OR of terms; no terms at all matches nothing (an empty required selector). */
export function compileTerms(terms: readonly NodeSelectorTerm[]): NodeMatcher {
  const compiled = terms.map(compileTerm);
  return (n) => {
    for (const m of compiled) if (m(n)) return true;
    return false;
  };
}

export function tolerates(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  if (!t.key && t.operator !== 'Exists') return false;
  if (t.operator === 'Exists') return true;
  return (t.value ?? '') === (taint.value ?? '');
}

export function taintTolerated(taint: Taint, tolerations: readonly Toleration[]): boolean {
  for (const t of tolerations) if (tolerates(t, taint)) return true;
  return false;
}
