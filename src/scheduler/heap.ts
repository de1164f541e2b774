/**
 * A binary heap keyed by string, with O(log n) push, pop, update and delete by key: the active
 * and back-off queues need "remove this pod" as often as "pop the first".
 */
export class KeyedHeap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(private readonly keyOf: (item: T) => string, private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds, or replaces the item with the same key and restores order. */
  push(item: T): void {
    const key = this.keyOf(item);
    const i = this.index.get(key);
    if (i !== undefined) {
      this.items[i] = item;
      this.fix(i);
      return;
    }
    this.items.push(item);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    return this.removeAt(0);
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.removeAt(i);
  }

  values(): readonly T[] {
    return this.items;
  }

  private removeAt(i: number): T {
    const item = this.items[i]!;
    const last = this.items.pop()!;
    this.index.delete(this.keyOf(item));
    if (i < this.items.length) {
      this.items[i] = last;
      this.index.set(this.keyOf(last), i);
      this.fix(i);
    }
    return item;
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private up(i: number): boolean {
    let moved = false;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.items[i]!, this.items[parent]!)) break;
      this.swap(i, parent);
      i = parent;
      moved = true;
    }
    return moved;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(this.items[l]!, this.items[m]!)) m = l;
      if (r < n && this.less(this.items[r]!, this.items[m]!)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const x = this.items[a]!;
    const y = this.items[b]!;
    this.items[a] = y;
    this.items[b] = x;
    this.index.set(this.keyOf(y), a);
    this.index.set(this.keyOf(x), b);
  }
}
