/**
 * Shared shapes of API objects and of the one declarative description each kind has.
 *
 * `ResourceDefinition` is the single source of truth for a kind: discovery, validation, defaulting,
 * field selectors, storage keys and the subresources served are all derived from it.
 */
import type { FieldError } from './status.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: ManagedFieldsEntry[];
  selfLink?: string;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
  selfLink?: string;
}

/** Any API object: typed kinds narrow `spec`/`status`/`data` themselves. */
export interface SvcObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface SvcList<T extends SvcObject = SvcObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T = SvcObject> {
  type: WatchEventType;
  object: T;
}

export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/** A JSON-schema (OpenAPI v3) node, with this project's merge markers. */
export interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  /**
   * Unset (built-in kinds): null reads as "unset" and is accepted. Custom resource schemas always
   * set it: false refuses null (a default, when declared, replaces it), true keeps it.
   */
  nullable?: boolean;
  /**
   * Logical junctors of custom resource schemas: value checks only. Pruning, defaulting and apply
   * follow the structural part (properties, items, additionalProperties) outside them.
   */
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  allOf?: SchemaNode[];
  not?: SchemaNode;
  /** Further OpenAPI v3 value checks, used by custom resource schemas. */
  minLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  /** OpenAPI v3.0 style: true makes `minimum`/`maximum` exclusive. */
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  uniqueItems?: boolean;
  /** Filled in when the field is absent (custom resources' structural defaulting). */
  default?: unknown;
  /** int-or-string style fields (e.g. a port name or number). */
  'x-svc-int-or-string'?: boolean;
  /** Keep unknown fields (free-form objects). */
  'x-svc-preserve-unknown-fields'?: boolean;
  'x-svc-list-type'?: 'atomic' | 'set' | 'map';
  'x-svc-list-map-keys'?: string[];
  'x-svc-map-type'?: 'atomic' | 'granular';
}

/** How the `scale` subresource maps onto the parent object. */
export interface ScaleMapping {
  /** Dotted path of the desired replica count, e.g. `spec.replicas`. */
  specReplicasPath: string;
  /** Dotted path of the observed replica count, e.g. `status.replicas`. */
  statusReplicasPath: string;
  /** Dotted path of the label selector (a LabelSelector object or a map for replicationcontrollers). */
  labelSelectorPath?: string;
}

export type SubresourceName = 'status' | 'approval' | 'scale' | 'binding' | 'eviction' | 'log' | 'exec' | 'attach' | 'portforward';

/** How `metadata.name` is validated for a kind. */
export type NameRule = 'subdomain' | 'label' | 'path-segment';

export interface ResourceDefinition {
  /** '' for the core (legacy) group served under /api/v1. */
  group: string;
  version: string;
  kind: string;
  /** Usually `${kind}List`. */
  listKind: string;
  /** Lower-case plural used in paths, e.g. `configmaps`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: Verb[];
  subresources: SubresourceName[];
  /** Present when `subresources` includes 'scale'. */
  scale?: ScaleMapping;
  nameRule: NameRule;
  /** The OpenAPI schema of the whole object (apiVersion, kind, metadata, spec, status ...). */
  schema: SchemaNode;
  /**
   * Values of every selectable field of an object, for field selectors. Always includes
   * `metadata.name` and (for namespaced kinds) `metadata.namespace`.
   */
  selectableFields(obj: SvcObject): Record<string, string>;
  /** Fills defaults in place (spec only; metadata is the server's). */
  defaults?(obj: SvcObject): void;
  /** Kind-specific validation of an object about to be stored (metadata is checked generically). */
  validate?(obj: SvcObject, old?: SvcObject): FieldError[];
  /** Watch cache size heuristic for this kind (overridden by --watch-cache-sizes). */
  watchCacheSize?: number;
  /** Whether a spec change bumps metadata.generation (true for kinds with spec + status). */
  tracksGeneration: boolean;
  /** Whether the kind has a status the main resource's writes must not change (needs 'status' subresource). */
  hasStatus: boolean;
  /** Whether a create keeps the given status (Nodes: the agent registers with its capacity) instead of clearing it. */
  statusSetOnCreate?: boolean;
  /** Columns of the Table representation; absent: the default `Name` and `Created At`. */
  tableColumns?: TableColumns;
  /**
   * Set on a version served beside its kind's storage version (batch/v1beta1 CronJobs beside
   * batch/v1): the objects are stored once, in the storage version, and converted on every read
   * and write (src/api/versions.ts). Absent: this definition is its kind's storage version.
   */
  conversion?: VersionConversion;
}

/** How one served version of a kind converts to and from the version its objects are stored in. */
export interface VersionConversion {
  /** The storage version's definition (for events.k8s.io Events: the core v1 Event). */
  storage: ResourceDefinition;
  /** A stored object (storage version, a private copy) as this version serves it, apiVersion included. */
  fromStorage(obj: SvcObject): SvcObject;
  /** An object of this version as it is stored, apiVersion included; must not change `obj`. */
  toStorage(obj: SvcObject): SvcObject;
}

/** One column of a Table (`columnDefinitions` entry). */
export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type of the cells: string, integer, number, boolean, or `date` for timestamps. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** OpenAPI format hint, e.g. `name` for the object's name column ('' when none). */
  format: string;
  description: string;
  /** 0: always shown; higher: shown only in wide output. */
  priority: number;
}

export type TableCell = string | number | boolean | null;

/** A kind's Table layout: the columns, and one pure function giving an object's cells in that order. */
export interface TableColumns {
  columns: readonly TableColumnDefinition[];
  /** `now` (ms) is passed in so ages are computed against the server's (injectable) clock. */
  cells(obj: SvcObject, now: number): TableCell[];
  /** The order a list's rows are printed in, when the established printer sorts them (FlowSchemas by precedence); absent: the list's. */
  rowOrder?: (a: SvcObject, b: SvcObject) => number;
}

/** group/version string as it appears in apiVersion: `v1` or `apps/v1`. */
export function groupVersion(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}
