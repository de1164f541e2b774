/**
 * One stored object as the server hands it out: deep-frozen, with its revision, and its JSON text
 * made on first use and then shared. The watch cache keeps these for every reader and watcher; the
 * API's reads and writes return them. Serialising lazily matters for large objects: a write answered
 * in Protobuf, a read made only to update, or a cached object nobody asks for never pays for it.
 */
import { deepFreeze, stringifyJson } from '../api/json-walk.js';
import type { SvcObject } from '../api/types.js';
import { internManagedFields } from './managed-fields-interning.js';

export class ObjectView {
  private text: Buffer | undefined;
  /** `object` is frozen here; `stored` is its value in the store (no resourceVersion), when at hand. */
  constructor(
    readonly key: string,
    readonly object: SvcObject,
    readonly revision: number,
    readonly stored?: Uint8Array,
  ) {
    internManagedFields(object);
    deepFreeze(object);
  }

  /** JSON.stringify(object), made once. */
  get json(): Buffer {
    return (this.text ??= serialize(this.object));
  }
}

/**
 * JSON bytes in their own allocation: `Buffer.from(string)` would carve small buffers out of Node's
 * shared 8 KiB pool, where one long-lived cache entry pins a whole slab of short-lived garbage.
 */
function serialize(object: SvcObject): Buffer {
  const text = stringifyJson(object);
  const buf = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  buf.write(text);
  return buf;
}
