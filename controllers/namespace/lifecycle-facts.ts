/**
 * The namespace lifecycle's facts (machines/lifecycles/namespace.ts) from what the reconcile has:
 * the Namespace, and for a namespace being emptied, its pass's discovery error or content result
 * (./content.ts). Pure; no calls.
 */
import type { Namespace } from '../../src/api/generated/kinds.js';
import { NAMESPACE_FINALIZER } from '../../src/api/kinds/core/namespace.js';
import type { NamespaceFacts } from '../../machines/lifecycles/namespace.js';
import { describeCounts, describeFinalizers, type ContentResult } from './content.js';

/** Whether a pass is due: being deleted and still holding this controller's finalizer. */
export function needsEmptying(ns: Namespace): boolean {
  return ns.metadata.deletionTimestamp !== undefined && (ns.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER);
}

export function namespaceFacts(ns: Namespace, pass?: { discoveryError?: string; result?: ContentResult }): NamespaceFacts {
  const finalizers = ns.spec?.finalizers ?? [];
  const result = pass?.result;
  let remaining = 0;
  for (const n of result?.remaining.values() ?? []) remaining += n;
  const others = finalizers.filter((f) => f !== NAMESPACE_FINALIZER).sort();
  return {
    deleting: ns.metadata.deletionTimestamp !== undefined,
    ownFinalizer: finalizers.includes(NAMESPACE_FINALIZER),
    otherFinalizers: others.length,
    otherFinalizersText: others.join(', '),
    discoveryError: pass?.discoveryError,
    failures: result?.failures.length ?? 0,
    remaining,
    remainingText: result ? describeCounts(result.remaining) : '',
    finalized: result?.finalized ?? 0,
    finalizersText: result ? describeFinalizers(result.finalizers) : '',
    estimateMs: Math.max(0, result?.estimateMs ?? 0),
  };
}
