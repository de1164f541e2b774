/**
 * The Table representation (`kind: Table`, `apiVersion: meta.svc/v1` or `/v1beta1`, the same shape): column definitions
 * and one row of cells per object, laid out by the kind's `tableColumns` (or the default `Name`
 * and `Created At`). Each row carries the object as `includeObject` asks: nothing, its metadata as
 * a PartialObjectMetadata (the default), or the whole object.
 */
import { badRequest } from '../api/status.js';
import type { ListMeta, ResourceDefinition, SvcObject, TableCell, TableColumnDefinition, TableColumns } from '../api/types.js';
import { column, CREATED_DESCRIPTION, NAME_DESCRIPTION } from '../api/index.js';
import { META_GROUP, TABLE_VERSION } from './negotiation.js';

export const TABLE_API_VERSION = `${META_GROUP}/${TABLE_VERSION}`;

/** The columns of a kind with no table definition: its name and creation time. */
export const DEFAULT_TABLE_COLUMNS: TableColumns = {
  columns: [
    column('Name', 'string', NAME_DESCRIPTION, { format: 'name' }),
    column('Created At', 'date', CREATED_DESCRIPTION),
  ],
  cells: (obj) => [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? null],
};

export const INCLUDE_OBJECT_VALUES = ['None', 'Metadata', 'Object'] as const;
export type IncludeObject = (typeof INCLUDE_OBJECT_VALUES)[number];

/** `includeObject` from the query: absent means Metadata; any other value is a 400. */
export function includeObjectParam(query: URLSearchParams): IncludeObject {
  const raw = query.get('includeObject');
  if (raw === null || raw === '') return 'Metadata';
  if (!(INCLUDE_OBJECT_VALUES as readonly string[]).includes(raw)) {
    throw badRequest(`includeObject: Unsupported value: "${raw}": supported values: ${INCLUDE_OBJECT_VALUES.map((v) => `"${v}"`).join(', ')}`);
  }
  return raw as IncludeObject;
}

export interface TableOptions {
  includeObject: IncludeObject;
  /** Server clock (ms) for age cells. */
  now: number;
  /** Leave `columnDefinitions` empty (watch events after the first one). */
  noHeaders?: boolean;
  /** The Table's (and its rows' PartialObjectMetadata's) apiVersion: the one negotiated (default meta.svc/v1beta1). */
  apiVersion?: string;
}

export interface TableRow {
  cells: TableCell[];
  object?: SvcObject;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  columnDefinitions: readonly TableColumnDefinition[];
  rows: TableRow[];
}

export function tableColumnsOf(def: ResourceDefinition): TableColumns {
  return def.tableColumns ?? DEFAULT_TABLE_COLUMNS;
}

function rowObject(obj: SvcObject, include: IncludeObject, apiVersion: string): SvcObject | undefined {
  if (include === 'None') return undefined;
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
}

/** The apiVersion of the Table a negotiated representation's parameters ask for. */
export function tableApiVersion(params: Readonly<Record<string, string>>): string {
  return `${params['g'] ?? META_GROUP}/${params['v'] ?? TABLE_VERSION}`;
}

/** A Table of `objects` under `metadata` (a list's resourceVersion/continue, or one object's version). */
export function buildTable(def: ResourceDefinition, objects: readonly SvcObject[], metadata: ListMeta, opts: TableOptions): Table {
  const row = rowMaker(def, opts);
  return { ...tableHead(def, metadata, opts), rows: ordered(def, objects).map(row) };
}

function tableHead(def: ResourceDefinition, metadata: ListMeta, opts: TableOptions): Omit<Table, 'rows'> {
  const apiVersion = opts.apiVersion ?? TABLE_API_VERSION;
  return { kind: 'Table', apiVersion, metadata, columnDefinitions: opts.noHeaders ? [] : tableColumnsOf(def).columns };
}

function ordered(def: ResourceDefinition, objects: readonly SvcObject[]): readonly SvcObject[] {
  const order = tableColumnsOf(def).rowOrder;
  return order && objects.length > 1 ? [...objects].sort(order) : objects;
}

function rowMaker(def: ResourceDefinition, opts: TableOptions): (obj: SvcObject) => TableRow {
  const layout = tableColumnsOf(def);
  const apiVersion = opts.apiVersion ?? TABLE_API_VERSION;
  return (obj) => {
    const row: TableRow = { cells: layout.cells(obj, opts.now) };
    const object = rowObject(obj, opts.includeObject, apiVersion);
    if (object) row.object = object;
    return row;
  };
}

/**
 * The same document as `JSON.stringify(buildTable(...))`, as text pieces: the head, then one piece
 * per row (with its comma), then the end. A list's Table of thousands of rows takes hundreds of
 * milliseconds to lay out; a server walks these steps a few at a time, so other requests are served
 * between them and the request's deadline can fire.
 */
export function* tableJsonSteps(def: ResourceDefinition, objects: readonly SvcObject[], metadata: ListMeta, opts: TableOptions): Generator<string, void, void> {
  const row = rowMaker(def, opts);
  objects = ordered(def, objects);
  yield `${JSON.stringify(tableHead(def, metadata, opts)).slice(0, -1)},"rows":[`;
  for (let i = 0; i < objects.length; i++) yield `${i ? ',' : ''}${JSON.stringify(row(objects[i]!))}`;
  yield ']}';
}

/** The Table of one object (a get, or one watch event), carrying that object's resourceVersion. */
export function objectTable(def: ResourceDefinition, obj: SvcObject, opts: TableOptions): Table {
  const metadata: ListMeta = {};
  if (obj.metadata.resourceVersion !== undefined) metadata.resourceVersion = obj.metadata.resourceVersion;
  return buildTable(def, [obj], metadata, opts);
}
