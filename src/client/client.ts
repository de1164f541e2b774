/**
 * `createClient(transport)`: the `ApiClient` over any transport. It builds paths from a
 * `ResourceRef` (any resource: built-in or custom), turns options into query parameters, and turns
 * a watch stream into an RxJS Observable.
 *
 * Requests carry the resource's `apiVersion`/`kind` (`TransportRequest.typeMeta`), and bodies of
 * create/update get them when they name none, so the HTTP transport can use Protobuf for kinds that
 * have it (see ./body-codecs.ts).
 *
 * Guarantees (on top of src/client/types.ts): every failure is an `ApiError` (a watch's `ERROR`
 * event becomes one carrying the server's Status, e.g. 410 Gone); `BOOKMARK` events are passed on
 * (their object carries only `metadata.resourceVersion`); unsubscribing closes the watch at once.
 */
import { canonicalGroup } from '../api/established-spelling.js';
import { deepFreeze } from '../api/json-walk.js';
import { Observable } from 'rxjs';
import type { Status } from '../api/status.js';
import type { SvcList, SvcObject } from '../api/types.js';
import { apiError, toApiError } from './api-errors.js';
import { type ImpersonationConfig, impersonationHeaders, withHeaders } from './impersonation.js';
import {
  ApiError, type ApiClient, type ApplyOptions, type ClientWatchEvent, type DeleteCollectionOptions, type DeleteOptions, type DiscoveredResource, type ListOptions, type PatchType, type ResourceRef, type Transport,
  type TransportRequest, type TransportStream, type WatchOptions, type WriteOptions,
} from './types.js';

export interface ClientOptions {
  /** `fieldManager` of writes that name none. Default: none (the server derives one). */
  fieldManager?: string;
  /** Act as this user on every request (./impersonation.ts); the transport's credential must be allowed to. */
  impersonate?: ImpersonationConfig;
}

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

const WATCH_EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK']);

/**
 * The path of a resource collection or object: `/api/v1[/namespaces/<ns>]/<resource>[/<name>]`, or
 * `/apis/<group>/<version>/...`. A namespaced resource without a namespace is the collection across
 * all namespaces.
 */
export function resourcePath(ref: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
  let p = ref.group ? `/apis/${ref.group}/${ref.version}` : `/api/${ref.version}`;
  if (ref.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${ref.resource}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

function queryOf(entries: Record<string, string | number | boolean | undefined>): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined && v !== '') q[k] = String(v);
  return q;
}

function writeQuery(opts: WriteOptions | undefined, fieldManager: string | undefined): Record<string, string> {
  return queryOf({ dryRun: opts?.dryRun ? 'All' : undefined, fieldManager: opts?.fieldManager ?? fieldManager });
}

const badRequest = (message: string): ApiError => apiError(400, message);

/** `apiVersion` of a resource's objects (`v1`, `apps/v1`). */
export function apiVersionOf(ref: ResourceRef): string {
  return ref.group ? `${ref.group}/${ref.version}` : ref.version;
}

/**
 * The object with `apiVersion` and `kind` from the resource when it names neither (a copy; the
 * caller's object is never changed): the transport picks the body's representation from them.
 */
function withTypeMeta<T extends SvcObject>(ref: ResourceRef, obj: T): T {
  if (obj === null || typeof obj !== 'object' || (obj.apiVersion && obj.kind)) return obj;
  return { ...obj, apiVersion: obj.apiVersion || apiVersionOf(ref), kind: obj.kind || ref.kind };
}

export function createClient(base: Transport, opts: ClientOptions = {}): ApiClient {
  const fm = opts.fieldManager;
  const transport = opts.impersonate ? withHeaders(base, impersonationHeaders(opts.impersonate)) : base;

  /** A namespaced object needs its namespace; cluster-scoped objects ignore it. */
  const objectPath = (ref: ResourceRef, namespace: string, name: string, sub?: string): string => {
    if (ref.namespaced && !namespace) throw badRequest(`${ref.resource} ${JSON.stringify(name)}: a namespace is required`);
    if (!name) throw badRequest(`${ref.resource}: a name is required`);
    return resourcePath(ref, namespace, name, sub);
  };
  const nameOf = (ref: ResourceRef, obj: SvcObject): string => {
    const name = obj.metadata?.name;
    if (!name) throw badRequest(`${ref.resource}: the object has no metadata.name`);
    return name;
  };
  async function call<T>(ref: ResourceRef, req: TransportRequest): Promise<T> {
    return (await transport.request({ ...req, typeMeta: { apiVersion: apiVersionOf(ref), kind: ref.kind } })).body as T;
  }

  const client: ApiClient = {
    get: async (ref, namespace, name) => call(ref, { method: 'GET', path: objectPath(ref, namespace, name) }),

    list<T extends SvcObject>(ref: ResourceRef, o: ListOptions = {}) {
      const query = queryOf({
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        limit: o.limit,
        continue: o.continue,
        resourceVersion: o.resourceVersion,
        resourceVersionMatch: o.resourceVersionMatch,
      });
      return call<SvcList<T>>(ref, { method: 'GET', path: resourcePath(ref, o.namespace), query });
    },

    watch<T extends SvcObject>(ref: ResourceRef, o: WatchOptions = {}) {
      const query = queryOf({
        watch: 'true',
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
        resourceVersion: o.resourceVersion,
        allowWatchBookmarks: o.allowWatchBookmarks ? 'true' : undefined,
        timeoutSeconds: o.timeoutSeconds,
      });
      const req: TransportRequest = { method: 'GET', path: resourcePath(ref, o.namespace), query, typeMeta: { apiVersion: apiVersionOf(ref), kind: ref.kind } };
      return new Observable<ClientWatchEvent<T>>((sub) => {
        let stream: TransportStream | undefined;
        let closed = false;
        void (async () => {
          stream = await transport.stream(req);
          if (closed) return stream.close();
          for await (const ev of stream.events) {
            if (closed) return;
            if (ev.type === 'ERROR') {
              const status = ev.object as Status;
              return sub.error(new ApiError(status.code ?? 500, status, status.details?.retryAfterSeconds));
            }
            // Frozen on every transport (in process it is the server's own shared object).
            if (WATCH_EVENT_TYPES.has(ev.type)) sub.next({ type: ev.type as ClientWatchEvent['type'], object: deepFreeze(ev.object as T) });
          }
          sub.complete();
        })().catch((err: unknown) => {
          if (!closed) sub.error(toApiError(err));
        });
        return () => {
          closed = true;
          stream?.close();
        };
      });
    },

    create: async (ref, namespace, obj, o) => {
      if (ref.namespaced && !namespace) throw badRequest(`${ref.resource}: a namespace is required to create`);
      return call(ref, { method: 'POST', path: resourcePath(ref, namespace), query: writeQuery(o, fm), body: withTypeMeta(ref, obj) });
    },

    update: async (ref, namespace, obj, o) =>
      call(ref, { method: 'PUT', path: objectPath(ref, namespace, nameOf(ref, obj)), query: writeQuery(o, fm), body: withTypeMeta(ref, obj) }),

    updateStatus: async (ref, namespace, obj, o) =>
      call(ref, { method: 'PUT', path: objectPath(ref, namespace, nameOf(ref, obj), 'status'), query: writeQuery(o, fm), body: withTypeMeta(ref, obj) }),

    patch: async (ref, namespace, name, type, patch, o) => {
      const query = { ...writeQuery(o, fm), ...queryOf({ force: type === 'apply' && o?.force ? 'true' : undefined }) };
      return call(ref, { method: 'PATCH', path: objectPath(ref, namespace, name, o?.subresource), query, body: patch, headers: { 'content-type': PATCH_CONTENT_TYPES[type] } });
    },

    async apply<T extends SvcObject>(ref: ResourceRef, obj: T, o: ApplyOptions) {
      if (!o?.fieldManager) throw badRequest(`${ref.resource}: apply needs a fieldManager (who owns the applied fields)`);
      const name = nameOf(ref, obj);
      const namespace = obj.metadata.namespace ?? '';
      if (ref.namespaced && !namespace) throw badRequest(`${ref.resource}: an applied object needs metadata.namespace`);
      return client.patch<T>(ref, namespace, name, 'apply', withTypeMeta(ref, obj), o);
    },

    async delete<T extends SvcObject>(ref: ResourceRef, namespace: string, name: string, o: DeleteOptions = {}) {
      // Options travel as query parameters; only preconditions need a DeleteOptions body.
      const query = queryOf({ dryRun: o.dryRun ? 'All' : undefined, gracePeriodSeconds: o.gracePeriodSeconds, propagationPolicy: o.propagationPolicy });
      const req: TransportRequest = { method: 'DELETE', path: objectPath(ref, namespace, name), query };
      if (o.preconditions) req.body = { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: o.preconditions };
      const out = await call<SvcObject>(ref, req);
      return out?.kind === 'Status' ? undefined : (out as T);
    },

    async deleteCollection(ref: ResourceRef, namespace: string, o: DeleteCollectionOptions = {}) {
      if (ref.namespaced && namespace === undefined) throw badRequest(`${ref.resource}: a namespace ('' for all) is required`);
      const query = queryOf({
        dryRun: o.dryRun ? 'All' : undefined,
        gracePeriodSeconds: o.gracePeriodSeconds,
        propagationPolicy: o.propagationPolicy,
        labelSelector: o.labelSelector,
        fieldSelector: o.fieldSelector,
      });
      const req: TransportRequest = { method: 'DELETE', path: resourcePath(ref, namespace), query };
      if (o.preconditions) req.body = { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: o.preconditions };
      await call<unknown>(ref, req);
    },

    async discover() {
      const get = async <T>(path: string) => (await transport.request({ method: 'GET', path })).body as T;
      type ResourceList = { resources?: { name: string; kind: string; namespaced: boolean; verbs?: string[] }[] };
      const out: DiscoveredResource[] = [];
      const add = (group: string, version: string, list: ResourceList) => {
        for (const r of list.resources ?? []) {
          if (r.name.includes('/')) continue;
          out.push({ group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs ?? [] });
        }
      };
      const core = await get<{ versions?: string[] }>('/api');
      const coreVersion = core.versions?.includes('v1') ? 'v1' : core.versions?.[0];
      if (coreVersion) add('', coreVersion, await get<ResourceList>(`/api/${coreVersion}`));
      const groups = await get<{ groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[] }>('/apis');
      // The server lists an aliased group under both spellings (`coordination.svc.io` and
      // `coordination.k8s.io`, src/api/established-spelling.ts): one group, served once, whose
      // objects are stored once. Callers (the garbage collector, the namespace controller) would
      // otherwise watch and delete every aliased kind twice: keep our spelling.
      const listed = groups.groups ?? [];
      const names = new Set(listed.map((g) => g.name));
      const distinct = listed.filter((g) => canonicalGroup(g.name) === g.name || !names.has(canonicalGroup(g.name)));
      // Each group's preferred version first, then the others for resources served only there
      // (`--runtime-config=batch/v1=false` leaves cronjobs at v1beta1 only): each resource once, at its best version.
      const lists = await Promise.all(
        distinct.flatMap((g) => {
          const preferred = g.preferredVersion?.version;
          const versions = [...new Set([...(preferred ? [preferred] : []), ...(g.versions ?? []).map((v) => v.version)])];
          return versions.map(async (version) => {
            try {
              return { group: g.name, version, list: await get<ResourceList>(`/apis/${g.name}/${version}`) };
            } catch (e) {
              // A group that went away between the two reads (a CRD deleted) is simply not there.
              if (e instanceof ApiError && e.code === 404) return undefined;
              throw e;
            }
          });
        }),
      );
      const seen = new Set<string>();
      for (const l of lists) {
        if (!l) continue;
        l.list.resources = (l.list.resources ?? []).filter((r) => !seen.has(`${l.group}/${r.name}`));
        for (const r of l.list.resources) seen.add(`${l.group}/${r.name}`);
      }
      for (const l of lists) if (l) add(l.group, l.version, l.list);
      return out;
    },

    subresource: async (ref, namespace, name, subresource, method, body) =>
      call(ref, { method, path: objectPath(ref, namespace, name, subresource), ...(body === undefined ? {} : { body }) }),
  };
  return client;
}
