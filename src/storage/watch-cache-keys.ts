/**
 * Sorted key index of a watch cache. Adds and removals are O(1) (recorded aside); the sorted array is
 * rebuilt by one merge on the next read that needs order, so a burst of creates costs one sort of
 * the new keys instead of one array splice each.
 */
export class SortedKeys {
  private sorted: string[] = [];
  private added = new Set<string>();
  private removed = new Set<string>();

  /** Replace the whole index with keys already in ascending order. */
  reset(sortedKeys: string[]): void {
    this.sorted = sortedKeys;
    this.added.clear();
    this.removed.clear();
  }

  /** Record a new key (not currently in the index). */
  add(key: string): void {
    if (this.removed.delete(key)) return; // still present in `sorted`
    this.added.add(key);
  }

  /** Record the removal of a key currently in the index. */
  remove(key: string): void {
    if (this.added.delete(key)) return;
    this.removed.add(key);
  }

  /** Keys starting with `prefix` (all keys for ''), ascending. */
  withPrefix(prefix: string): string[] {
    const keys = this.current();
    if (prefix === '') return keys.slice();
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < keys.length && keys[i]!.startsWith(prefix); i++) out.push(keys[i]!);
    return out;
  }

  private current(): string[] {
    if (this.added.size === 0 && this.removed.size === 0) return this.sorted;
    const adds = [...this.added].sort();
    const out: string[] = new Array(this.sorted.length - this.removed.size + adds.length);
    let i = 0;
    let j = 0;
    let n = 0;
    while (i < this.sorted.length || j < adds.length) {
      const a = this.sorted[i];
      if (a !== undefined && this.removed.has(a)) {
        i++;
        continue;
      }
      const b = adds[j];
      if (b === undefined || (a !== undefined && a < b)) {
        out[n++] = a!;
        i++;
      } else {
        out[n++] = b;
        j++;
      }
    }
    out.length = n;
    this.sorted = out;
    this.added.clear();
    this.removed.clear();
    return out;
  }
}
