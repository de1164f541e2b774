/**
 * ValidatingAdmissionWebhook (in the established default list, just before ResourceQuota): calls
 * every ValidatingWebhookConfiguration webhook whose rules and selectors match the request
 * (./webhook/matching.ts), all at once, with the object as it will be stored, and refuses the
 * request when one refuses or fails under failurePolicy Fail (./webhook/dispatcher.ts). As
 * established, the first refusal to arrive is the one returned.
 */
import type { AdmissionPlugin } from './chain.js';
import { callHook, deniedBy, timedHook, matchingHooks, WebhookSource, type WebhookDeps } from './webhook/dispatcher.js';

export function validatingAdmissionWebhook(deps: WebhookDeps): AdmissionPlugin {
  const source = new WebhookSource(deps.configurations);
  return {
    name: 'ValidatingAdmissionWebhook',
    // Each hook's own sideEffects is checked against dry run when it matches (dispatcher.ts).
    sideEffects: 'NoneOnDryRun',
    handles: () => true,
    async validate(a) {
      const hits = await matchingHooks(await source.hooks(), a, deps);
      if (hits.length === 0) return;
      const errors: unknown[] = [];
      await Promise.all(
        hits.map(async ({ hook, inv }) => {
          try {
            await timedHook(hook, 'validating', a, deps, async () => {
              const result = await callHook(hook, inv, a, deps, false);
              if (result && !result.allowed) throw deniedBy(hook.name, result.status);
            });
          } catch (e) {
            errors.push(e);
          }
        }),
      );
      if (errors.length > 0) throw errors[0];
    },
  };
}
