/**
 * The one client interface controllers, the scheduler and users' own controllers use to reach the
 * API. Two transports sit behind it: HTTPS (src/client/http-transport.ts) and, in the all-in-one
 * mode, in-process calls into the API server's pipeline (wired in src/cli; client never imports
 * the API server).
 *
 * Guarantees: every failure is an `ApiError` carrying the server's `Status`; objects returned are
 * the caller's own (never shared with a cache or the server), and an object the caller sends is
 * never kept nor changed by the call; watch streams end with `complete`
 * when the server ends them cleanly and with `error` (an ApiError, e.g. 410 Gone) otherwise.
 */
import type { Observable } from 'rxjs';
import type { Status } from '../api/status.js';
import type { SvcList, SvcObject, WatchEventType } from '../api/types.js';

/** Names a resource: the path parts plus what the client needs to build paths. */
/**
 * Which resource a call addresses. `T` is the object type it holds (`resources.configmaps` is a
 * `ResourceRef<ConfigMap>`), so the client's verbs infer their result types from the ref.
 */
export interface ResourceRef<T extends SvcObject = SvcObject> {
  /** '' for the core group. */
  group: string;
  version: string;
  /** Plural, e.g. `configmaps`. */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Type only, never set: carries `T` (a method, so refs of related object types stay assignable). */
  __objectType?(object: T): void;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
}

export type PatchType = 'merge' | 'json' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** Only for apply patches. */
  force?: boolean;
  /** Patch a subresource (e.g. `status`) instead of the object. */
  subresource?: string;
}

export interface ApplyOptions {
  /** Who owns the applied fields (required: server-side apply records ownership per manager). */
  fieldManager: string;
  /** Take over fields another manager owns instead of failing with a 409 conflict. */
  force?: boolean;
  dryRun?: boolean;
  /** Apply to a subresource (e.g. `status`) instead of the object. */
  subresource?: string;
}

export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Which objects a collection delete removes (and how). */
export interface DeleteCollectionOptions extends DeleteOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

/** A resource the server serves, as its discovery documents describe it (preferred versions only). */
export interface DiscoveredResource extends ResourceRef {
  verbs: readonly string[];
}

export interface ClientWatchEvent<T extends SvcObject = SvcObject> {
  type: Exclude<WatchEventType, 'ERROR'>;
  object: T;
}

/** A failed API call: the HTTP code and the server's Status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly status: Status,
    /** Seconds from a Retry-After header, when the server sent one. */
    readonly retryAfterSeconds?: number,
  ) {
    super(status.message ?? `HTTP ${code}`);
    this.name = 'ApiError';
  }
  get reason(): string | undefined {
    return this.status.reason;
  }
}

export interface ApiClient {
  get<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, namespace: string, name: string): Promise<T>;
  list<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, opts?: ListOptions): Promise<SvcList<T>>;
  /**
   * Server-side watch; unsubscribe closes the connection. Event objects are deep-frozen (in
   * process they are the server's own, shared by every watcher): clone one before changing it.
   */
  watch<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, opts?: WatchOptions): Observable<ClientWatchEvent<T>>;
  create<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  update<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  updateStatus<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  patch<T extends SvcObject = SvcObject>(
    ref: ResourceRef<T>,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    opts?: PatchOptions,
  ): Promise<T>;
  /**
   * Server-side apply: `obj` (with apiVersion, kind, metadata.name and, for namespaced kinds,
   * metadata.namespace) holds exactly the fields `fieldManager` wants to own; creates the object
   * when absent. A field another manager owns is a 409 conflict unless `force`.
   */
  apply<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, obj: T, opts: ApplyOptions): Promise<T>;
  /** Resolves to the object while it is still being finalized, or undefined once it is gone. */
  delete<T extends SvcObject = SvcObject>(ref: ResourceRef<T>, namespace: string, name: string, opts?: DeleteOptions): Promise<T | undefined>;
  /** Deletes the objects of a collection (in `namespace`, or of every namespace with ''), each as a delete would. */
  deleteCollection(ref: ResourceRef, namespace: string, opts?: DeleteCollectionOptions): Promise<void>;
  /**
   * The resources the server serves now (built-in and custom), each at its group's preferred
   * version when served there (else at the first version that serves it), subresources left out,
   * each kind once (a group listed under both spellings, `.svc.io` and `.k8s.io`, is given once,
   * in ours): what the namespace and garbage-collector controllers walk.
   */
  discover(): Promise<DiscoveredResource[]>;
  /** Any subresource call (e.g. pods/binding, deployments/scale). */
  subresource<T = unknown>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    subresource: string,
    method: 'GET' | 'PUT' | 'POST' | 'PATCH',
    body?: unknown,
  ): Promise<T>;
}

/** The (first) value of request header `name` of `req` (lower-case name), for headers that have one. */
export function singleHeader(req: Pick<TransportRequest, 'headers'>, name: string): string | undefined {
  const v = req.headers?.[name];
  return typeof v === 'string' ? v : v?.[0];
}

/** One HTTP-shaped exchange, as both transports carry it. */
export interface TransportRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Absolute API path, e.g. `/api/v1/namespaces/default/pods`. */
  path: string;
  query?: Record<string, string>;
  /** Request headers (lower-case names); a list is sent as repeated header lines (e.g. `impersonate-group`). */
  headers?: Record<string, string | readonly string[]>;
  /** An object (encoded by the transport per its content type) or raw bytes. */
  body?: unknown;
  /**
   * The kind of the objects the request reads or writes, when known: lets the HTTP transport ask
   * for Protobuf only where the kind has it (JSON for custom resources).
   */
  typeMeta?: { apiVersion: string; kind: string };
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string>;
  /** The decoded body (objects are the caller's own copies). */
  body: unknown;
}

/** A long-running response: one decoded watch event at a time. */
export interface TransportStream {
  status: number;
  /** Response headers (lower-case names), e.g. the Content-Type the server chose. */
  headers: Record<string, string>;
  events: AsyncIterable<{ type: string; object: unknown }>;
  close(): void;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportResponse>;
  stream(req: TransportRequest): Promise<TransportStream>;
}
