/**
 * The clusterrole-aggregation controller: a ClusterRole with an `aggregationRule` gets as its
 * rules the union of the rules of every ClusterRole its selectors match (the established
 * controller: how `admin`, `edit` and `view` pick up the rules of roles labelled
 * `rbac.authorization.svc.io/aggregate-to-<role>: "true"`).
 *
 * - Watches: ClusterRoles. Triggers: ClusterRoles (any change queues every aggregated role, since
 *   a label or rule change anywhere may change what one aggregates).
 * - Writes: the aggregated role's `rules`, only when they differ from the union (an update with
 *   the role's resourceVersion: a concurrent change is a conflict, and the key is retried).
 * - Guarantees: the union keeps the order of the matched roles (by name) and of their rules, each
 *   distinct rule once; the aggregated role itself is never one of its sources; a role with no
 *   aggregationRule is never touched.
 */
import type { ClusterRole } from '../../src/api/generated/kinds.js';
import { RBAC_GROUP } from '../../src/api/kinds/rbac/roles.js';
import { labelSelectorFromObject } from '../../src/api/labels.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

type Rule = NonNullable<ClusterRole['rules']>[number];

const isAggregated = (r: ClusterRole) => (r.aggregationRule?.clusterRoleSelectors?.length ?? 0) > 0;

/** The union of the rules of the roles `role`'s selectors match, in the established order. */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): Rule[] {
  const sorted = [...all].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const rules: Rule[] = [];
  const seen = new Set<string>();
  for (const spec of role.aggregationRule?.clusterRoleSelectors ?? []) {
    let selector;
    try {
      selector = labelSelectorFromObject(spec);
    } catch {
      continue; // validation refuses bad selectors; an old stored one selects nothing
    }
    for (const source of sorted) {
      if (source.metadata.name === role.metadata.name) continue;
      if (!selector.matches(source.metadata.labels ?? {})) continue;
      for (const r of source.rules ?? []) {
        const key = JSON.stringify(r);
        if (seen.has(key)) continue;
        seen.add(key);
        rules.push(r);
      }
    }
  }
  return rules;
}

export function clusterRoleAggregationController(concurrency: number): ControllerDefinition<ClusterRole> {
  return defineController<ClusterRole>({
    name: 'clusterrole-aggregation',
    watches: resources.clusterroles,
    concurrency,
    // It writes the roles it aggregates, with rules it does not hold itself.
    permissions: [{ apiGroups: [RBAC_GROUP], resources: ['clusterroles'], verbs: ['update', 'escalate'] }],
    triggers: [
      {
        resource: resources.clusterroles,
        keysFor: (_changed, roles) => roles.list().filter(isAggregated).map((r) => r.metadata.name ?? ''),
      },
    ],
    async reconcile(_key, ctx) {
      const role = ctx.object;
      if (!role || !isAggregated(role)) return done();
      const rules = aggregatedRules(role, ctx.cache.list());
      if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) return done();
      try {
        await ctx.client.update<ClusterRole>(resources.clusterroles, '', { ...structuredClone(role), rules });
      } catch (e) {
        // Gone meanwhile: nothing to aggregate. A conflict: the newer version is queued by its event.
        if (e instanceof ApiError && (e.code === 404 || e.code === 409)) return done();
        throw e;
      }
      return done();
    },
  });
}
