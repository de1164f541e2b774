/**
 * MutatingAdmissionWebhook (in the established default list, after the other mutating
 * plugins): calls the MutatingWebhookConfiguration webhooks whose rules and selectors match
 * (./webhook/matching.ts) one after another, each given the object as the previous ones left it,
 * and applies each one's JSON patch before the next is called (./webhook/dispatcher.ts for calls,
 * failures and refusals).
 *
 * Reinvocation, as established (the chain's part is in ./chain.ts): a hook that changes the object
 * asks for a second run of the whole mutating chain, so every built-in mutating plugin runs again
 * (they are idempotent and see what the webhooks added). In that second run this plugin calls only
 * the reinvocationPolicy IfNeeded hooks that were called before a change: before a hook that
 * changed the object, or before built-in plugins that changed it since this plugin last ran. A
 * hook first skipped is never called in the second run, even if it matches now; there is no third.
 *
 * A patch that cannot be applied, or one for a request without an object (DELETE, CONNECT), is a
 * 500 whatever the failurePolicy (as established: it is not a failed call).
 */
import { badRequest, internalError, StatusError } from '../../api/status.js';
import type { SvcObject } from '../../api/types.js';
import { canonicalJson } from '../../api/json-walk.js';
import type { AdmissionAttributes, AdmissionPlugin } from './chain.js';
import { callHook, deniedBy, timedHook, matchingHooks, WebhookSource, type ConfiguredWebhook, type WebhookDeps } from './webhook/dispatcher.js';
import type { WebhookInvocation } from './webhook/matching.js';
import { applyReviewPatch, objectFor, objectFromReview } from './webhook/review.js';

/** Replaces `target`'s fields with `next`'s, in place: the handlers hold the object admission changes. */
function replaceInPlace(target: SvcObject, next: SvcObject): void {
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, next);
}

/**
 * What a patch may not change, as the established server's BeforeCreate/BeforeUpdate checks after
 * mutating admission: the type, the namespace, and (after creation) the name. Without this a
 * webhook could move an object where the requester was never authorized to write.
 */
function checkIdentity(hook: ConfiguredWebhook, a: AdmissionAttributes, before: SvcObject, next: SvcObject): void {
  if (next.apiVersion !== before.apiVersion || next.kind !== before.kind) {
    throw internalError(`Internal error occurred: admission webhook ${JSON.stringify(hook.name)} changed the object's apiVersion or kind`);
  }
  if ((next.metadata.namespace ?? '') !== (before.metadata.namespace ?? '')) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (a.operation !== 'CREATE' && next.metadata.name !== before.metadata.name) {
    const field = 'metadata.name';
    const message = `Invalid value: ${JSON.stringify(next.metadata.name ?? '')}: field is immutable`;
    throw new StatusError(422, 'Invalid', `${a.def.kind} ${JSON.stringify(before.metadata.name ?? '')} is invalid: ${field}: ${message}`, {
      name: before.metadata.name ?? '',
      group: a.def.group,
      kind: a.def.kind,
      causes: [{ reason: 'FieldValueInvalid', message, field }],
    });
  }
}

/** Calls one hook and applies its patch; true when the object changed. */
async function mutateOnce(hook: ConfiguredWebhook, inv: WebhookInvocation, a: AdmissionAttributes, deps: WebhookDeps): Promise<boolean> {
  const result = await callHook(hook, inv, a, deps, true);
  if (!result) return false;
  if (!result.allowed) throw deniedBy(hook.name, result.status);
  if (!result.patch || result.patch.length === 0) return false;
  if (!a.object) throw internalError(`Internal error occurred: admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`);
  const before = objectFor(inv, a, a.object)!;
  let patched: SvcObject;
  try {
    patched = applyReviewPatch(before, result.patch);
  } catch (e) {
    throw internalError(`Internal error occurred: ${(e as Error).message}`);
  }
  const next = objectFromReview(inv, a, patched);
  checkIdentity(hook, a, a.object, next);
  const changed = JSON.stringify(next) !== JSON.stringify(a.object);
  if (changed) replaceInPlace(a.object, next);
  return changed;
}

/** This plugin's reinvocation state across the chain's two runs (established webhookReinvokeContext). */
interface WebhookReinvocation {
  /** The object as this plugin last left it, to see whether built-in plugins changed it since. */
  lastOutput?: string;
  /** IfNeeded hooks called since the last change: due again if the object changes later. */
  previouslyInvoked: Set<string>;
  /** Hooks to call in the second run. */
  reinvoke: Set<string>;
}

const PLUGIN = 'MutatingAdmissionWebhook';

export function mutatingAdmissionWebhook(deps: WebhookDeps): AdmissionPlugin {
  const source = new WebhookSource(deps.configurations);
  return {
    name: PLUGIN,
    // Each hook's own sideEffects is checked against dry run when it matches (dispatcher.ts).
    sideEffects: 'NoneOnDryRun',
    handles: () => true,
    async mutate(a) {
      const hooks = await source.hooks();
      const matched = await matchingHooks(hooks, a, deps);
      if (matched.length === 0) return;
      const ctx = (a.reinvocation ??= { isReinvoke: false, shouldReinvoke: false, values: new Map() });
      let state = ctx.values.get(PLUGIN) as WebhookReinvocation | undefined;
      if (!state) ctx.values.set(PLUGIN, (state = { previouslyInvoked: new Set(), reinvoke: new Set() }));
      const st = state;
      // Built-in plugins changed the object since the hooks last saw it: the IfNeeded hooks called are due.
      const dueAll = () => {
        for (const k of st.previouslyInvoked) st.reinvoke.add(k);
        st.previouslyInvoked.clear();
      };
      if (ctx.isReinvoke && st.lastOutput !== canonicalJson(a.object ?? null)) dueAll();
      try {
        for (const { hook, inv } of matched) {
          if (ctx.isReinvoke && !st.reinvoke.has(hook.key)) continue;
          const changed = await timedHook(hook, 'admit', a, deps, () => mutateOnce(hook, inv, a, deps));
          if (changed) {
            dueAll();
            ctx.shouldReinvoke = true;
          }
          if (hook.reinvocationPolicy === 'IfNeeded') st.previouslyInvoked.add(hook.key);
        }
      } finally {
        // Compared by content, not key order (the established semantic DeepEqual).
        st.lastOutput = canonicalJson(a.object ?? null);
      }
    },
  };
}
