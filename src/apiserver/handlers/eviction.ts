/**
 * POST pods/<name>/eviction (an Eviction, policy/v1 or v1beta1): deletes the pod unless that would
 * violate its PodDisruptionBudget, as established:
 *
 * - a pod that has finished (Succeeded, Failed) or is not covered by any budget is deleted at once;
 * - a pod covered by more than one budget cannot be evicted (500, the established message);
 * - with one budget whose status is behind its spec (observedGeneration) the answer is 429;
 * - with `disruptionsAllowed` at 0 the answer is 429 TooManyRequests "Cannot evict pod as it would
 *   violate the pod's disruption budget.", with a DisruptionBudget cause saying how many healthy
 *   pods it needs and has;
 * - otherwise the budget's status is updated first (one disruption fewer, the pod recorded in
 *   `disruptedPods`, an optimistic write: a concurrent eviction makes one of them retry), then
 *   the pod is deleted with the Eviction's deleteOptions. Answer: 201 and a Success Status.
 */
import { admissionFieldsOf } from './admission-request.js';
import { podDisruptionBudgetDefinition } from '../../api/kinds/policy/poddisruptionbudget.js';
import { labelSelectorFromObject, type LabelSelectorSpec } from '../../api/labels.js';
import { badRequest, internalError, methodNotAllowed, StatusError, successStatus } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { OBJECT_MEDIA_TYPES } from '../../codec/body.js';
import { readRequestValue, writeJson } from '../http.js';
import { asObject, timestamp } from '../object-rules.js';
import { isDryRun, type RequestScope } from '../scope.js';
import { deleteObject, deleteOptionsFrom, type DeleteOptions } from './delete.js';
import { guaranteedUpdate } from './write.js';

/** The Eviction's `deleteOptions`, read by the same parser as a DELETE's body. */
function deleteOptionsOf(body: SvcObject, dryRun: boolean): DeleteOptions {
  const raw = body['deleteOptions'];
  if (raw === undefined || raw === null) return { dryRun };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('deleteOptions must be an object');
  return deleteOptionsFrom(raw as Record<string, unknown>, new URLSearchParams(), dryRun, 'deleteOptions.');
}

export async function handleEviction(s: RequestScope): Promise<void> {
  if (s.info.verb !== 'create') throw methodNotAllowed('only POST is supported on the eviction subresource');
  const dryRun = isDryRun(s.query);
  const body = asObject(await readRequestValue(s.req, OBJECT_MEDIA_TYPES, s.services.config.inputLimits), 'Eviction');
  if (body.kind !== undefined && body.kind !== 'Eviction') throw badRequest(`the kind in the data (${String(body.kind)}) must be Eviction`);
  if (body.metadata.name !== undefined && body.metadata.name !== s.info.name) {
    throw badRequest(`name in URL does not match name in Eviction object: ${s.info.name} != ${body.metadata.name}`);
  }
  const opts = deleteOptionsOf(body, dryRun);
  // The Eviction is admitted as the create it is (NodeRestriction: a node evicts only its own pods).
  const attrs = { operation: 'CREATE' as const, def: s.def, namespace: s.info.namespace, name: s.info.name, subresource: 'eviction', object: body, dryRun, ...admissionFieldsOf(s) };
  await s.services.admission.mutate(attrs);
  await s.services.admission.validate(attrs);
  const pod = (await s.store.get(s.info.namespace, s.info.name)).object;
  const phase = (pod.status as { phase?: string } | undefined)?.phase;

  const evict = async () => {
    await deleteObject(s, opts);
    writeJson(s.res, 201, successStatus(undefined, 201));
  };
  if (phase === 'Succeeded' || phase === 'Failed') return evict();

  const budgets = s.services.storeFor(podDisruptionBudgetDefinition);
  const all = (await budgets.list({ namespace: s.info.namespace, filtered: false })).items.map((v) => v.object);
  const covering = all.filter((b) => {
    const sel = (b.spec as { selector?: LabelSelectorSpec } | undefined)?.selector;
    // policy/v1: no selector selects no pods, an empty one every pod.
    if (!sel) return false;
    try {
      return labelSelectorFromObject(sel).matches(pod.metadata.labels);
    } catch {
      return false;
    }
  });
  if (covering.length === 0) return evict();
  if (covering.length > 1) throw internalError('This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
  const budget = covering[0]!;
  const budgetScope: RequestScope = {
    ...s,
    def: podDisruptionBudgetDefinition,
    store: budgets,
    info: { ...s.info, resource: 'poddisruptionbudgets', group: 'policy', version: podDisruptionBudgetDefinition.version, name: budget.metadata.name ?? '', subresource: 'status', verb: 'update' },
  };
  await guaranteedUpdate(
    budgetScope,
    (_frozen, draft) => {
      const current = draft();
      const status = (current.status ?? {}) as { observedGeneration?: number; disruptionsAllowed?: number; desiredHealthy?: number; currentHealthy?: number; disruptedPods?: Record<string, string> };
      if ((status.observedGeneration ?? 0) < (current.metadata.generation ?? 0)) {
        throw new StatusError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
          retryAfterSeconds: 10,
          causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${current.metadata.name} is still being processed by the server.` }],
        });
      }
      if ((status.disruptionsAllowed ?? 0) <= 0) {
        throw new StatusError(429, 'TooManyRequests', 'Cannot evict pod as it would violate the pod\'s disruption budget.', {
          retryAfterSeconds: 10,
          causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${current.metadata.name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently` }],
        });
      }
      status.disruptionsAllowed = (status.disruptionsAllowed ?? 0) - 1;
      status.disruptedPods = { ...(status.disruptedPods ?? {}), [s.info.name]: timestamp(s.services.now()) };
      current.status = status;
      return current;
    },
    { dryRun, subresource: 'status' },
  );
  return evict();
}
