/**
 * Typed helpers for the built-in kinds: `resources` (a `ResourceRef` for every built-in kind,
 * derived from src/api's registry) and `typed(client, ref)`, the client's verbs bound to one
 * resource. Custom resources use the same `typed` (or the `ApiClient` directly) with a
 * `ResourceRef` of their own — nothing here is specific to built-in kinds.
 */
import type { Observable } from 'rxjs';
import { builtinResourceKey, builtinResources } from '../api/registry.js';
import type { BuiltinKinds } from '../api/generated/kinds.js';
import type { ResourceDefinition, SvcList, SvcObject } from '../api/types.js';
import type {
  ApiClient, ClientWatchEvent, DeleteOptions, ListOptions, PatchOptions, PatchType, ResourceRef, WatchOptions, WriteOptions,
} from './types.js';

/** The plural of every built-in resource (a test checks it against the registry). */
export type BuiltinResourceName =
  | 'namespaces' | 'pods' | 'nodes' | 'services' | 'endpoints' | 'configmaps' | 'secrets' | 'serviceaccounts' | 'events'
  | 'replicationcontrollers' | 'persistentvolumes' | 'persistentvolumeclaims' | 'resourcequotas' | 'limitranges'
  | 'deployments' | 'replicasets' | 'statefulsets' | 'daemonsets' | 'controllerrevisions' | 'jobs' | 'cronjobs'
  | 'leases' | 'endpointslices' | 'poddisruptionbudgets' | 'horizontalpodautoscalers' | 'priorityclasses'
  | 'roles' | 'rolebindings' | 'clusterroles' | 'clusterrolebindings' | 'certificatesigningrequests' | 'customresourcedefinitions'
  | 'pods.metrics.svc.io' | 'nodes.metrics.svc.io'
  | 'ingresses' | 'ingressclasses' | 'networkpolicies' | 'storageclasses' | 'csidrivers' | 'csinodes' | 'volumeattachments' | 'runtimeclasses'
  | 'cronjobs.v1beta1.batch' | 'poddisruptionbudgets.v1beta1.policy' | 'endpointslices.v1beta1.discovery.svc.io'
  | 'horizontalpodautoscalers.v2beta2.autoscaling' | 'horizontalpodautoscalers.v1.autoscaling' | 'runtimeclasses.v1beta1.node.svc.io'
  | 'events.events.svc.io';

/** The `ResourceRef` of a resource definition (built-in or custom). */
export function refOf(def: Pick<ResourceDefinition, 'group' | 'version' | 'plural' | 'kind' | 'namespaced'>): ResourceRef {
  return Object.freeze({ group: def.group, version: def.version, resource: def.plural, kind: def.kind, namespaced: def.namespaced });
}

/** Every built-in resource's ref, by its key (`builtinResourceKey`). */
export function builtinResourceRefs(): Record<string, ResourceRef> {
  return Object.fromEntries(builtinResources().map((d) => [builtinResourceKey(d), refOf(d)]));
}

/** `resources.configmaps`, `resources.deployments`, `resources['pods.metrics.svc.io']` ...: refs of the built-in kinds (frozen). */
export const resources: Readonly<{ [K in BuiltinResourceName]: ResourceRef<BuiltinKinds[K]> }> = Object.freeze(
  builtinResourceRefs() as { [K in BuiltinResourceName]: ResourceRef<BuiltinKinds[K]> },
);

/** The client's verbs for one resource, typed by the object type `T`. */
export interface TypedResource<T extends SvcObject> {
  readonly ref: ResourceRef;
  get(namespace: string, name: string): Promise<T>;
  list(opts?: ListOptions): Promise<SvcList<T>>;
  watch(opts?: WatchOptions): Observable<ClientWatchEvent<T>>;
  create(namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  update(namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus(namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  patch(namespace: string, name: string, type: PatchType, patch: unknown, opts?: PatchOptions): Promise<T>;
  delete(namespace: string, name: string, opts?: DeleteOptions): Promise<T | undefined>;
}

/**
 * Binds `client` to `ref`. Example: `typed<ConfigMap>(client, resources.configmaps).get('default', 'x')`.
 * For cluster-scoped resources pass `''` as the namespace.
 */
export function typed<T extends SvcObject = SvcObject>(client: ApiClient, ref: ResourceRef<T>): TypedResource<T> {
  return {
    ref,
    get: (ns, name) => client.get<T>(ref, ns, name),
    list: (opts) => client.list<T>(ref, opts),
    watch: (opts) => client.watch<T>(ref, opts),
    create: (ns, obj, opts) => client.create<T>(ref, ns, obj, opts),
    update: (ns, obj, opts) => client.update<T>(ref, ns, obj, opts),
    updateStatus: (ns, obj, opts) => client.updateStatus<T>(ref, ns, obj, opts),
    patch: (ns, name, type, patch, opts) => client.patch<T>(ref, ns, name, type, patch, opts),
    delete: (ns, name, opts) => client.delete<T>(ref, ns, name, opts),
  };
}
