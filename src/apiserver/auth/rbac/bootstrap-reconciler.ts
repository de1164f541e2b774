/**
 * Reconciles the default RBAC policy (./bootstrap-policy.ts: cluster roles and bindings, and the
 * roles and bindings of svc-system and svc-public) into storage at start, as the
 * established `rbac/bootstrap-roles` post-start hook does, and reports readiness through it:
 *
 * - a missing ClusterRole or ClusterRoleBinding is created;
 * - an existing one whose `rbac.authorization.svc.io/autoupdate` annotation is not "false" gets
 *   what it lacks added, never taken away: rules the stored ones do not cover (as atomic rules, the
 *   established way), missing subjects, missing labels and annotations, missing aggregation
 *   selectors; a binding whose roleRef differs (which cannot be changed in place) is recreated;
 * - "false" protects an object: it is left exactly as the administrator wrote it.
 *
 * Writes go straight to the stores (the server's own privileged writes, like the system
 * namespaces), validated like any write. A pass that fails (storage not answering) is retried.
 */
import type { Logger } from 'pino';
import { clusterRoleBindingDefinition, clusterRoleDefinition, roleBindingDefinition, roleDefinition } from '../../../api/kinds/rbac/roles.js';
import type { ResourceDefinition, SvcObject } from '../../../api/types.js';
import { StatusError } from '../../../api/status.js';
import { ConflictError } from '../../../storage/types.js';
import { prepareForCreate, prepareForUpdate, validateOrThrow } from '../../object-rules.js';
import type { ResourceStore } from '../../resource-store.js';
import { AUTOUPDATE_ANNOTATION, bootstrapClusterRoleBindings, bootstrapClusterRoles, bootstrapRoleBindings, bootstrapRoles } from './bootstrap-policy.js';
import { covers, type PolicyRule, rulesOf } from './rules.js';

type Record_ = Record<string, unknown>;

const subjectId = (s: Record_) => `${String(s['kind'])}\0${String(s['name'])}\0${String(s['namespace'] ?? '')}`;

/** Adds to `into` the keys of `from` it lacks; true if anything was added. */
function addMissingKeys(into: Record<string, string>, from: Record<string, string> | undefined): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(from ?? {})) {
    if (!(k in into)) {
      into[k] = v;
      changed = true;
    }
  }
  return changed;
}

/** A copy of `existing` with the labels and annotations of `want` it lacks, and whether any were. */
function withMissingMetadata(existing: SvcObject, want: SvcObject): { next: SvcObject; changed: boolean } {
  const next = structuredClone(existing) as SvcObject;
  next.metadata.labels ??= {};
  next.metadata.annotations ??= {};
  const labels = addMissingKeys(next.metadata.labels, want.metadata.labels);
  const annotations = addMissingKeys(next.metadata.annotations, want.metadata.annotations);
  return { next, changed: labels || annotations };
}

/** The changes a stored ClusterRole (or Role) needs to hold `want`; undefined when none. */
export function reconcileClusterRole(existing: SvcObject, want: SvcObject): SvcObject | undefined {
  const { next, changed: metaChanged } = withMissingMetadata(existing, want);
  let changed = metaChanged;
  const wantAgg = want['aggregationRule'] as { clusterRoleSelectors: unknown[] } | undefined;
  if (wantAgg) {
    const agg = ((next['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined) ?? {}) as { clusterRoleSelectors?: unknown[] };
    const have = agg.clusterRoleSelectors ?? [];
    const missing = wantAgg.clusterRoleSelectors.filter((w) => !have.some((h) => JSON.stringify(h) === JSON.stringify(w)));
    if (missing.length || !next['aggregationRule']) {
      next['aggregationRule'] = { ...agg, clusterRoleSelectors: [...have, ...missing] };
      changed = true;
    }
  }
  const rules = rulesOf(next['rules']);
  const { missing } = covers(rules, rulesOf(want['rules']));
  if (missing.length) {
    // The aggregation controller owns an aggregated role's rules.
    if (!wantAgg) {
      next['rules'] = [...(Array.isArray(next['rules']) ? (next['rules'] as PolicyRule[]) : []), ...missing];
      changed = true;
    }
  }
  return changed ? next : undefined;
}

/** The changes a stored ClusterRoleBinding (or RoleBinding) needs; 'recreate' when its roleRef differs. */
export function reconcileClusterRoleBinding(existing: SvcObject, want: SvcObject): SvcObject | 'recreate' | undefined {
  if (JSON.stringify(existing['roleRef']) !== JSON.stringify(want['roleRef'])) return 'recreate';
  const { next, changed: metaChanged } = withMissingMetadata(existing, want);
  let changed = metaChanged;
  const subjects = Array.isArray(next['subjects']) ? (next['subjects'] as Record_[]) : [];
  const have = new Set(subjects.map(subjectId));
  const missing = ((want['subjects'] as Record_[] | undefined) ?? []).filter((s) => !have.has(subjectId(s)));
  if (missing.length) {
    next['subjects'] = [...subjects, ...missing];
    changed = true;
  }
  return changed ? next : undefined;
}

export class BootstrapPolicy {
  private done = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly storeFor: (def: ResourceDefinition) => ResourceStore,
    private readonly now: () => number,
    private readonly logger: Logger,
    private readonly retryMs = 5_000,
  ) {}

  /** For the `poststarthook/rbac/bootstrap-roles` health check. */
  get ready(): boolean {
    return this.done;
  }

  /** Runs until one pass succeeds (in the background after the first failure). */
  async start(): Promise<void> {
    try {
      await this.ensure();
    } catch (err) {
      this.logger.warn({ err }, 'reconciling the default RBAC policy failed; retrying');
      this.timer = setTimeout(() => void this.start(), this.retryMs);
      this.timer.unref();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  async ensure(): Promise<void> {
    const kinds: [ResourceDefinition, SvcObject[], typeof reconcileClusterRoleBinding][] = [
      [clusterRoleDefinition, bootstrapClusterRoles(), reconcileClusterRole],
      [clusterRoleBindingDefinition, bootstrapClusterRoleBindings(), reconcileClusterRoleBinding],
      [roleDefinition, bootstrapRoles(), reconcileClusterRole],
      [roleBindingDefinition, bootstrapRoleBindings(), reconcileClusterRoleBinding],
    ];
    // All at once: the storage commits concurrent writes together, so a fresh server starts fast.
    await Promise.all(kinds.flatMap(([def, objects, diff]) => objects.map((want) => this.reconcile(def, this.storeFor(def), want, diff))));
    this.done = true;
  }

  private async reconcile(
    def: ResourceDefinition,
    store: ResourceStore,
    want: SvcObject,
    diff: (existing: SvcObject, want: SvcObject) => SvcObject | 'recreate' | undefined,
  ): Promise<void> {
    const name = want.metadata.name!;
    const namespace = want.metadata.namespace ?? '';
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await store.getForUpdate(namespace, name);
      try {
        if (!existing) {
          const obj = structuredClone(want) as SvcObject;
          prepareForCreate(def, obj, this.now());
          validateOrThrow(def, obj);
          await store.create(obj, false);
          this.logger.info({ kind: def.kind, name }, 'created default RBAC object');
          return;
        }
        if (existing.object.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return;
        const next = diff(existing.object, want);
        if (next === undefined) return;
        if (next === 'recreate') {
          await store.remove(existing, false);
          this.logger.info({ kind: def.kind, name }, 'recreating default RBAC binding with its roleRef');
          continue;
        }
        prepareForUpdate(def, next, existing.object);
        validateOrThrow(def, next, existing.object);
        const { value } = store.encode(next, existing);
        await store.replace(next, value, existing.revision, false);
        this.logger.info({ kind: def.kind, name }, 'added missing permissions to default RBAC object');
        return;
      } catch (err) {
        // Someone else wrote it meanwhile (another API server at start): look again.
        if (err instanceof ConflictError || (err instanceof StatusError && (err.reason === 'AlreadyExists' || err.reason === 'Conflict' || err.reason === 'NotFound'))) continue;
        throw err;
      }
    }
    throw new Error(`could not reconcile ${def.kind} ${name}: it kept changing`);
  }
}
