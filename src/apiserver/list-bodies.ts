/**
 * The items of whole-scope JSON LISTs (every object of a namespace, or of a resource), joined once
 * and reused while nothing under the scope changes.
 *
 * Why: a LIST of a namespace nobody writes to, beside writes to others, was joined again for every
 * request: its keys merged, its objects gathered and filtered, and its items' JSON copied into the
 * answer's slices (about a tenth of a loaded server's main thread in the overload suite: 420 LISTs of
 * 562 KiB a second beside 2,300 writes a second to another namespace). Informers re-listing and
 * clients polling a collection ask for the same bytes again and again.
 *
 * Contract:
 * - `get(owner, scope, stamp, join)` answers the bytes `join()` made for the same owner (a resource
 *   store), scope and stamp, or calls `join()` and keeps what it returns. The caller's stamp must change
 *   whenever anything under the scope changes (the watch cache's `changedUnder`), so a body is never
 *   served for content it does not hold.
 * - At most `maxBytes` are kept, least recently used first out; a body larger than a quarter of that
 *   is answered and not kept.
 * - Only the items are kept: the list's own metadata (its resourceVersion) is written per request.
 */
export class ListBodies {
  /** Least recently used first (a Map keeps insertion order; a hit moves its entry to the end). */
  private readonly entries = new Map<string, { stamp: number; body: Buffer }>();
  private readonly ids = new WeakMap<object, number>();
  private nextId = 0;
  private held = 0;

  constructor(private readonly maxBytes = 32 * 2 ** 20) {}

  /** Bytes held. */
  get bytes(): number {
    return this.held;
  }

  get(owner: object, scope: string, stamp: number, join: () => Buffer): Buffer {
    let id = this.ids.get(owner);
    if (id === undefined) this.ids.set(owner, (id = this.nextId++));
    const key = `${id}\u0000${scope}`;
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      if (entry.stamp === stamp) {
        this.entries.set(key, entry);
        return entry.body;
      }
      this.held -= entry.body.length;
    }
    const body = join();
    if (body.length <= this.maxBytes / 4) {
      this.entries.set(key, { stamp, body });
      this.held += body.length;
      for (const [k, e] of this.entries) {
        if (this.held <= this.maxBytes) break;
        this.entries.delete(k);
        this.held -= e.body.length;
      }
    }
    return body;
  }
}
