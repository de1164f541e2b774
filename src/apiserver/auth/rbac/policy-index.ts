/**
 * The RBAC policy in memory: Roles, ClusterRoles, RoleBindings and ClusterRoleBindings as the
 * server's own watch caches hold them, indexed so that one decision costs O(bindings of the user):
 *
 * - bindings are indexed by subject key (`u:<username>` or `g:<group>`; a ServiceAccount subject is
 *   the user `system:serviceaccount:<ns>:<name>`, as the established server matches it), cluster
 *   bindings once, role bindings per namespace;
 * - roles keep their rules compiled (./rules.ts) so a request walks Sets, not lists.
 *
 * Freshness: the index follows each kind's watch cache (the same one LIST and WATCH read), so a
 * change is seen once the cache has delivered it — the established authorizer reads informers the
 * same way. If a cache watch fails the index re-reads that kind from the cache and watches again.
 * With the watch cache off (`--watch-cache=false`) the index keeps a private cache of its own for
 * these four kinds.
 */
import type { Logger } from 'pino';
import { canonicalGroup } from '../../../api/established-spelling.js';
import { clusterRoleBindingDefinition, clusterRoleDefinition, roleBindingDefinition, roleDefinition } from '../../../api/kinds/index.js';
import type { ResourceDefinition, SvcObject } from '../../../api/types.js';
import type { ResourceStore } from '../../resource-store.js';
import { StoreFollower } from '../../store-follower.js';
import { serviceAccountUsername, type UserInfo } from '../user.js';
import { type CompiledRule, compileRule, type PolicyRule, rulesOf } from './rules.js';

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

/** One binding as the authorizer needs it. */
export interface IndexedBinding {
  kind: 'ClusterRoleBinding' | 'RoleBinding';
  name: string;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

interface IndexedRole {
  rules: PolicyRule[];
  compiled: CompiledRule[];
}

/** The keys a user's bindings are indexed under: their name and each of their groups. */
export function subjectKeysOf(user: UserInfo): string[] {
  const keys = [`u:${user.username}`];
  for (const g of user.groups) keys.push(`g:${g}`);
  return keys;
}

/** The key a subject of a binding is indexed under ('' for a subject that can match no one). */
function subjectKey(s: Subject, bindingNamespace: string): string {
  switch (s.kind) {
    case 'User':
      return `u:${s.name}`;
    case 'Group':
      return `g:${s.name}`;
    case 'ServiceAccount': {
      // Established: a ServiceAccount subject with no namespace means the binding's namespace.
      const ns = s.namespace || bindingNamespace;
      return ns && s.name ? `u:${serviceAccountUsername(ns, s.name)}` : '';
    }
    default:
      return '';
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

function bindingOf(kind: IndexedBinding['kind'], o: SvcObject): IndexedBinding {
  const ref = (o['roleRef'] ?? {}) as Record<string, unknown>;
  const subjects = Array.isArray(o['subjects']) ? (o['subjects'] as Record<string, unknown>[]) : [];
  return {
    kind,
    name: o.metadata.name ?? '',
    namespace: o.metadata.namespace ?? '',
    roleRef: { apiGroup: canonicalGroup(text(ref['apiGroup'])), kind: text(ref['kind']), name: text(ref['name']) },
    subjects: subjects.map((s) => ({
      kind: text(s['kind']),
      name: text(s['name']),
      ...(s['apiGroup'] ? { apiGroup: text(s['apiGroup']) } : {}),
      ...(s['namespace'] ? { namespace: text(s['namespace']) } : {}),
    })),
  };
}

/** Subject key -> bindings, for one scope (the cluster, or one namespace). */
class BindingIndex {
  private readonly bySubject = new Map<string, Set<IndexedBinding>>();
  private readonly byName = new Map<string, IndexedBinding>();

  put(b: IndexedBinding): void {
    this.remove(b.name);
    this.byName.set(b.name, b);
    for (const s of b.subjects) {
      const key = subjectKey(s, b.namespace);
      if (!key) continue;
      let set = this.bySubject.get(key);
      if (!set) this.bySubject.set(key, (set = new Set()));
      set.add(b);
    }
  }

  remove(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const s of old.subjects) {
      const key = subjectKey(s, old.namespace);
      const set = this.bySubject.get(key);
      set?.delete(old);
      if (set && set.size === 0) this.bySubject.delete(key);
    }
  }

  get size(): number {
    return this.byName.size;
  }

  clear(): void {
    this.byName.clear();
    this.bySubject.clear();
  }

  /** The bindings naming any of `keys`, each once. */
  forKeys(keys: readonly string[]): IndexedBinding[] {
    const out = new Set<IndexedBinding>();
    for (const k of keys) for (const b of this.bySubject.get(k) ?? []) out.add(b);
    return [...out];
  }

  /**
   * Calls `fn` with each binding naming the user (name `username`, or one of `groups`) until it
   * returns true; true if one did. The request path: no allocation. A binding naming both the
   * user and a group of theirs may be seen twice, which cannot change a decision.
   */
  some(username: string, groups: readonly string[], fn: (b: IndexedBinding) => boolean): boolean {
    if (this.byName.size === 0) return false;
    const own = this.bySubject.get(`u:${username}`);
    if (own) for (const b of own) if (fn(b)) return true;
    for (const g of groups) {
      const set = this.bySubject.get(`g:${g}`);
      if (set) for (const b of set) if (fn(b)) return true;
    }
    return false;
  }
}

export class RbacPolicyIndex {
  private readonly clusterRoles = new Map<string, IndexedRole>();
  /** `<namespace>/<name>` -> role. */
  private readonly roles = new Map<string, IndexedRole>();
  private readonly clusterBindings = new BindingIndex();
  private readonly roleBindings = new Map<string, BindingIndex>();
  private readonly followers: StoreFollower[] = [];

  private constructor(private readonly logger: Logger) {}

  /** Follows the four kinds' caches from their current state; resolves once the index holds it. */
  static async start(storeFor: (def: ResourceDefinition) => ResourceStore, logger: Logger): Promise<RbacPolicyIndex> {
    const index = new RbacPolicyIndex(logger);
    const kinds: [ResourceDefinition, (obj: SvcObject, deleted: boolean) => void][] = [
      [clusterRoleDefinition, (o, del) => index.putRole(index.clusterRoles, o.metadata.name ?? '', o, del)],
      [roleDefinition, (o, del) => index.putRole(index.roles, `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o, del)],
      [clusterRoleBindingDefinition, (o, del) => (del ? index.clusterBindings.remove(o.metadata.name ?? '') : index.clusterBindings.put(bindingOf('ClusterRoleBinding', o)))],
      [roleBindingDefinition, (o, del) => index.putRoleBinding(o, del)],
    ];
    try {
      for (const [def, apply] of kinds) {
        let store: ResourceStore;
        try {
          store = storeFor(def);
        } catch {
          throw new Error(`RBAC needs the ${def.group}/${def.version} API (${def.plural}), which --runtime-config disabled`);
        }
        // The server's own in-server informer (its watch cache when there is one): every relist
        // replaces this kind's part of the index, so a missed change is never kept.
        const follower = new StoreFollower(
          store,
          {
            reset: (all) => {
              index.clear(def);
              for (const o of all) apply(o, false);
            },
            upsert: (o) => apply(o, false),
            remove: (o) => apply(o, true),
          },
          logger.child({ resource: def.plural }),
        );
        index.followers.push(follower);
        await follower.start();
      }
    } catch (err) {
      index.stop();
      throw err;
    }
    return index;
  }

  stop(): void {
    for (const f of this.followers) f.stop();
  }

  private clear(def: ResourceDefinition): void {
    if (def === clusterRoleDefinition) this.clusterRoles.clear();
    else if (def === roleDefinition) this.roles.clear();
    else if (def === roleBindingDefinition) this.roleBindings.clear();
    else this.clusterBindings.clear();
  }

  private putRole(map: Map<string, IndexedRole>, key: string, o: SvcObject, deleted: boolean): void {
    if (deleted) {
      map.delete(key);
      return;
    }
    const rules = rulesOf(o['rules']);
    map.set(key, { rules, compiled: rules.map(compileRule) });
  }

  private putRoleBinding(o: SvcObject, deleted: boolean): void {
    const ns = o.metadata.namespace ?? '';
    let idx = this.roleBindings.get(ns);
    if (deleted) {
      idx?.remove(o.metadata.name ?? '');
      if (idx && idx.size === 0) this.roleBindings.delete(ns);
      return;
    }
    if (!idx) this.roleBindings.set(ns, (idx = new BindingIndex()));
    idx.put(bindingOf('RoleBinding', o));
  }

  /** Calls `fn` with each ClusterRoleBinding naming the user until it returns true (the request path). */
  someClusterBinding(user: UserInfo, fn: (b: IndexedBinding) => boolean): boolean {
    return this.clusterBindings.some(user.username, user.groups, fn);
  }

  /** Calls `fn` with each RoleBinding of `namespace` naming the user until it returns true. */
  someRoleBinding(namespace: string, user: UserInfo, fn: (b: IndexedBinding) => boolean): boolean {
    return this.roleBindings.get(namespace)?.some(user.username, user.groups, fn) ?? false;
  }

  /** ClusterRoleBindings naming the user or one of their groups. */
  clusterBindingsFor(keys: readonly string[]): IndexedBinding[] {
    return this.clusterBindings.forKeys(keys);
  }

  /** RoleBindings of `namespace` naming the user or one of their groups. */
  roleBindingsFor(namespace: string, keys: readonly string[]): IndexedBinding[] {
    return this.roleBindings.get(namespace)?.forKeys(keys) ?? [];
  }

  /**
   * The rules a role reference grants (the established GetRoleReferenceRules); undefined when the
   * role does not exist (the caller reports it as the established "not found" text).
   */
  roleRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; compiled: CompiledRule[] } | undefined {
    if (ref.kind === 'ClusterRole') return this.clusterRoles.get(ref.name);
    if (ref.kind === 'Role') return this.roles.get(`${bindingNamespace}/${ref.name}`);
    return undefined;
  }
}
