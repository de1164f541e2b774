/**
 * What the garbage collector does for one object (by uid), with the established rules:
 *
 * - Being deleted with `orphan`: its dependents lose their reference to it, then the finalizer goes.
 * - Being deleted with `foregroundDeletion`: its dependents are deleted (in the foreground when
 *   they have dependents of their own); once none with `blockOwnerDeletion` is left, the finalizer
 *   goes and the server removes the object.
 * - Otherwise, if it has owners: each is solid (exists with that uid), dangling (gone, or another
 *   object now has its name) or waiting (being deleted in the foreground). With a solid owner it
 *   stays (references to dangling or waiting owners are removed). With none it is deleted: in the
 *   foreground when an owner waits for it and it has dependents, else with the policy its own
 *   finalizers ask for (background by default).
 *
 * The lifecycle (machines/lifecycles/garbagecollector.ts) names which of these applies, from facts
 * computed here (`garbageFacts`), and the attempt does that state's step.
 *
 * An owner missing from the graph is looked up through the API before anything is deleted, so a
 * graph that is behind never deletes an object whose owner exists.
 */
import type { OwnerReference } from '../../src/api/types.js';
import { ApiError, type ApiClient, type DeleteOptions, type ResourceRef } from '../../src/client/types.js';
import type { LifecycleState } from '../../src/runtime/lifecycle.js';
import { done, requeueAfter, type ReconcileOutcome } from '../../src/runtime/outcome.js';
import type { GarbageFacts } from '../../machines/lifecycles/garbagecollector.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN, type GraphNode, type OwnershipGraph } from './graph.js';

export interface AttemptContext {
  graph: OwnershipGraph;
  client: ApiClient;
  /** The resource of an owner reference (`apiVersion` + `kind`); undefined when not served. */
  resolve(apiVersion: string, kind: string): ResourceRef | undefined;
  log(msg: string, fields?: Record<string, unknown>): void;
  /** Evaluates the object's lifecycle on what was observed of it and records where it stands. */
  observe(node: GraphNode, facts: GarbageFacts): LifecycleState;
}

/** Ignores the errors that mean "the object is gone or changed": its next event brings it back. */
function settled(e: unknown): boolean {
  return e instanceof ApiError && (e.code === 404 || e.code === 409 || e.code === 422);
}

export async function attempt(uid: string, ctx: AttemptContext): Promise<ReconcileOutcome> {
  const node = ctx.graph.get(uid);
  if (!node) return done();
  const owners = node.beingDeleted ? undefined : await classifyOwners(node, ctx);
  // Dependents are read only where a rule uses them (an owner with many is looked at often):
  // orphan and foreground deletions, and the policy towards an owner waiting in the foreground.
  const collectorFinalizer = node.finalizers.includes(FINALIZER_ORPHAN) || node.finalizers.includes(FINALIZER_FOREGROUND);
  const dependents = (node.beingDeleted && collectorFinalizer) || owners?.waiting.length ? ctx.graph.dependentsOf(uid) : [];
  const facts = garbageFacts(node, dependents, owners);
  const { state } = ctx.observe(node, facts);
  switch (state) {
    case 'orphaning':
      return orphanDependents(node, dependents, ctx);
    case 'foreground.waitingForDependents':
      await deleteDependents(dependents, ctx);
      return done(); // each blocking one's removal queues this owner again
    case 'foreground.releasing':
      await deleteDependents(dependents, ctx);
      return removeFinalizer(node, FINALIZER_FOREGROUND, ctx);
    case 'deleting':
      ctx.log('deleting an object whose owners are gone', { object: describe(node), policy: facts.policy });
      await deleteNode(ctx.client, node, facts.policy);
      return done();
    case 'kept':
      if (owners && (owners.gone.length || owners.waiting.length)) {
        const drop = new Set([...owners.gone, ...owners.waiting].map((o) => o.uid));
        await setOwners(ctx.client, node, node.owners.filter((o) => !drop.has(o.uid))).catch((e: unknown) => {
          if (!settled(e)) throw e;
        });
      }
      return done();
    default: // idle: nothing to collect
      return done();
  }
}

/** Each owner: solid (exists with that uid), gone, or waiting (being deleted in the foreground). */
export interface OwnerClasses {
  solid: OwnerReference[];
  gone: OwnerReference[];
  waiting: OwnerReference[];
}

async function classifyOwners(node: GraphNode, ctx: AttemptContext): Promise<OwnerClasses> {
  const out: OwnerClasses = { solid: [], gone: [], waiting: [] };
  for (const o of node.owners) {
    const owner = ctx.graph.get(o.uid);
    if (owner) {
      (owner.beingDeleted && owner.finalizers.includes(FINALIZER_FOREGROUND) ? out.waiting : out.solid).push(o);
      continue;
    }
    const state = await lookUp(node, o, ctx);
    if (state === 'absent') out.gone.push(o);
    else out.solid.push(o); // present, or not verifiable (unknown kind): never delete on a guess
  }
  return out;
}

/**
 * The lifecycle's facts (machines/lifecycles/garbagecollector.ts) from the graph and the owners'
 * classes. Pure. `dependents` may be empty where no rule reads them (see `attempt`).
 */
export function garbageFacts(node: GraphNode, dependents: readonly GraphNode[], owners: OwnerClasses | undefined): GarbageFacts {
  const waiting = owners?.waiting.length ?? 0;
  return {
    beingDeleted: node.beingDeleted,
    orphanFinalizer: node.finalizers.includes(FINALIZER_ORPHAN),
    foregroundFinalizer: node.finalizers.includes(FINALIZER_FOREGROUND),
    dependents: dependents.length,
    dependentsNotDeleting: dependents.filter((d) => !d.beingDeleted).length,
    blocking: dependents.filter((d) => d.owners.some((o) => o.uid === node.uid && o.blockOwnerDeletion)).length,
    owners: node.owners.length,
    solidOwners: owners?.solid.length ?? 0,
    goneOwners: owners?.gone.length ?? 0,
    waitingOwners: waiting,
    policy:
      waiting && dependents.length
        ? 'Foreground'
        : node.finalizers.includes(FINALIZER_ORPHAN)
          ? 'Orphan'
          : node.finalizers.includes(FINALIZER_FOREGROUND)
            ? 'Foreground'
            : 'Background',
  };
}

async function lookUp(node: GraphNode, o: OwnerReference, ctx: AttemptContext): Promise<'present' | 'absent' | 'unknown'> {
  const ref = ctx.resolve(o.apiVersion, o.kind);
  if (!ref) return 'unknown';
  try {
    const owner = await ctx.client.get(ref, ref.namespaced ? node.namespace : '', o.name);
    return owner.metadata.uid === o.uid ? 'present' : 'absent';
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return 'absent';
    throw e;
  }
}

async function orphanDependents(owner: GraphNode, dependents: readonly GraphNode[], ctx: AttemptContext): Promise<ReconcileOutcome> {
  for (const d of dependents) {
    await setOwners(ctx.client, d, d.owners.filter((o) => o.uid !== owner.uid)).catch((e: unknown) => {
      if (!settled(e)) throw e;
    });
  }
  return removeFinalizer(owner, FINALIZER_ORPHAN, ctx);
}

/** Foreground: dependents not yet being deleted are deleted (in the foreground when they have dependents of their own). */
async function deleteDependents(dependents: readonly GraphNode[], ctx: AttemptContext): Promise<void> {
  for (const d of dependents) {
    if (d.beingDeleted) continue;
    await deleteNode(ctx.client, d, ctx.graph.dependentsOf(d.uid).length ? 'Foreground' : 'Background');
  }
}

async function deleteNode(client: ApiClient, node: GraphNode, propagationPolicy: DeleteOptions['propagationPolicy']): Promise<void> {
  try {
    await client.delete(node.ref, node.namespace, node.name, { ...(propagationPolicy ? { propagationPolicy } : {}), preconditions: { uid: node.uid } });
  } catch (e) {
    if (!settled(e)) throw e;
  }
}

/** Replaces `metadata.ownerReferences` if the object is still the one in the graph. */
async function setOwners(client: ApiClient, node: GraphNode, owners: readonly OwnerReference[]): Promise<void> {
  const patch = [
    { op: 'test', path: '/metadata/uid', value: node.uid },
    owners.length ? { op: 'replace', path: '/metadata/ownerReferences', value: owners } : { op: 'remove', path: '/metadata/ownerReferences' },
  ];
  await client.patch(node.ref, node.namespace, node.name, 'json', patch);
}

/** Removes one finalizer, checking the list is still the one the graph saw (else a newer event comes). */
async function removeFinalizer(node: GraphNode, finalizer: string, ctx: AttemptContext): Promise<ReconcileOutcome> {
  const patch = [
    { op: 'test', path: '/metadata/uid', value: node.uid },
    { op: 'test', path: '/metadata/finalizers', value: node.finalizers },
    { op: 'replace', path: '/metadata/finalizers', value: node.finalizers.filter((f) => f !== finalizer) },
  ];
  try {
    await ctx.client.patch(node.ref, node.namespace, node.name, 'json', patch);
    return done();
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return done();
    // The finalizers changed since the graph saw them: look again shortly.
    if (settled(e)) return requeueAfter(200);
    throw e;
  }
}

/** The object's key in the lifecycle tracker: `<resource>[.<group>]/[<namespace>/]<name>`. */
export function lifecycleKey(n: Pick<GraphNode, 'ref' | 'namespace' | 'name'>): string {
  return `${n.ref.resource}${n.ref.group ? `.${n.ref.group}` : ''}/${n.namespace ? `${n.namespace}/` : ''}${n.name}`;
}

function describe(n: GraphNode): string {
  return `${n.ref.resource}${n.ref.group ? `.${n.ref.group}` : ''} ${n.namespace ? `${n.namespace}/` : ''}${n.name}`;
}
