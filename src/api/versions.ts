/**
 * Several served versions of one built-in kind over one stored copy of each object, as the
 * established server keeps them: the kind's definition is its storage version (batch/v1 CronJob);
 * `servedVersion` derives a definition for another version (batch/v1beta1) that shares the kind's
 * names, storage and, unless the version's fields differ, its schema, defaults, validation and
 * Table columns, with a conversion hook pair on the definition (`ResourceDefinition.conversion`).
 *
 * The API server reads and writes through `readAs`/`writeAs`: a stored object is converted to the
 * version a request asked for, whatever version it was stored in (objects written before a kind
 * gained its current version keep their old apiVersion in the store and are converted on read).
 * Controllers and clients never see the storage version unless they ask for it.
 */
import type { ResourceDefinition, SchemaNode, SvcObject, TableColumns, VersionConversion } from './types.js';
import { groupVersion } from './types.js';
import type { FieldError } from './status.js';

export interface ServedVersionSpec {
  version: string;
  /** Another group serving the same objects (events.k8s.io Events over core Events); default: the kind's. */
  group?: string;
  /** The version's own schema when its fields differ from the storage version's. */
  schema?: SchemaNode;
  defaults?: (obj: SvcObject) => void;
  validate?: (obj: SvcObject, old?: SvcObject) => FieldError[];
  tableColumns?: TableColumns;
  shortNames?: string[];
  categories?: string[];
  /** Selectable fields of this version's objects (default: the storage version's). */
  selectableFields?: (obj: SvcObject) => Record<string, string>;
  /**
   * Field conversions beyond apiVersion, each given a private copy to change in place; absent:
   * the versions have the same fields (policy/v1beta1 and policy/v1 PodDisruptionBudgets).
   */
  fromStorage?: (obj: SvcObject) => void;
  toStorage?: (obj: SvcObject) => void;
}

/** A definition serving `storage`'s objects at another version (see the file comment). */
export function servedVersion(storage: ResourceDefinition, spec: ServedVersionSpec): ResourceDefinition {
  if (storage.conversion) throw new Error(`${storage.kind} ${spec.version}: the storage version must not itself convert`);
  const group = spec.group ?? storage.group;
  const gv = groupVersion({ group, version: spec.version });
  const storageGV = groupVersion(storage);
  const conversion: VersionConversion = {
    storage,
    fromStorage(obj) {
      spec.fromStorage?.(obj);
      return { ...obj, apiVersion: gv };
    },
    toStorage(obj) {
      const copy = structuredClone(obj);
      spec.toStorage?.(copy);
      return { ...copy, apiVersion: storageGV };
    },
  };
  const def: ResourceDefinition = {
    ...storage,
    group,
    version: spec.version,
    schema: spec.schema ?? storage.schema,
    shortNames: spec.shortNames ?? storage.shortNames,
    categories: spec.categories ?? storage.categories,
    selectableFields: spec.selectableFields ?? storage.selectableFields,
    conversion,
  };
  if (spec.defaults) def.defaults = spec.defaults;
  if (spec.validate) def.validate = spec.validate;
  if (spec.tableColumns) def.tableColumns = spec.tableColumns;
  else if (spec.schema && storage.tableColumns) {
    // Every version prints the same columns (the established server prints its internal form):
    // the storage version's cells of the object converted to it.
    const { columns, cells } = storage.tableColumns;
    def.tableColumns = { columns, cells: (obj, now) => cells(conversion.toStorage(obj), now) };
  }
  if (spec.schema && !spec.defaults) delete def.defaults;
  if (spec.schema && !spec.validate) delete def.validate;
  return def;
}

/** The definition whose objects `def` serves: itself, or its conversion's storage version. */
export function storageDefinition(def: ResourceDefinition): ResourceDefinition {
  return def.conversion?.storage ?? def;
}

/**
 * Converts a stored object (a private copy, in whatever version it was stored) to `def`'s version.
 * `siblings`: every served version of the kind, to read objects stored in a non-storage version.
 */
export function readAs(def: ResourceDefinition, siblings: readonly ResourceDefinition[]): (obj: SvcObject) => SvcObject {
  const gv = groupVersion(def);
  const storageGV = groupVersion(storageDefinition(def));
  return (obj) => {
    if (obj.apiVersion === gv) return obj;
    let stored = obj;
    if (obj.apiVersion !== storageGV) {
      const from = siblings.find((d) => d.conversion && groupVersion(d) === obj.apiVersion && storageDefinition(d) === storageDefinition(def));
      if (from?.conversion) stored = from.conversion.toStorage(obj);
    }
    return def.conversion ? def.conversion.fromStorage(stored) : stored;
  };
}

/** The object `def` is about to write, in its storage version (unchanged when `def` is the storage version). */
export function writeAs(def: ResourceDefinition, obj: SvcObject): SvcObject {
  return def.conversion ? def.conversion.toStorage(obj) : obj;
}
