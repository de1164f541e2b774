/**
 * How objects are kept in the key-value store: JSON bytes without `metadata.resourceVersion` (the
 * version is the store's modRevision, put back on every read), under
 * `<prefix>/[<group>/]<resource>/[<namespace>/]<name>`.
 */
import { stringifyJson } from '../api/json-walk.js';
import type { ResourceDefinition, SvcObject } from '../api/types.js';

const encoder = new TextEncoder();

export function encodeForStorage(obj: SvcObject): Uint8Array {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return encoder.encode(stringifyJson({ ...obj, metadata }));
}

export function decodeFromStorage(value: Uint8Array, modRevision: number): SvcObject {
  const obj = JSON.parse(Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8')) as SvcObject;
  obj.metadata.resourceVersion = String(modRevision);
  return obj;
}

/** Key layout of one resource under the storage prefix. */
export class StorageKeys {
  /** Ends with '/': every key of this resource starts with it. */
  readonly resourcePrefix: string;
  constructor(
    prefix: string,
    private readonly def: Pick<ResourceDefinition, 'group' | 'plural' | 'namespaced'>,
  ) {
    const base = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
    this.resourcePrefix = `${base}/${def.group ? `${def.group}/` : ''}${def.plural}/`;
  }
  key(namespace: string, name: string): string {
    return this.def.namespaced ? `${this.resourcePrefix}${namespace}/${name}` : `${this.resourcePrefix}${name}`;
  }
  /** The prefix of one namespace's objects ('' namespace: every object of the resource). */
  scope(namespace: string): string {
    return this.def.namespaced && namespace ? `${this.resourcePrefix}${namespace}/` : this.resourcePrefix;
  }
}
