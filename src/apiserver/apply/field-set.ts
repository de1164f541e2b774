/**
 * A set of field paths, stored as a tree keyed by the established FieldsV1 path elements:
 * `f:<name>` (struct field or map key), `k:<json of the key fields>` (item of a list-type map),
 * `v:<json value>` (item of a set list) and `i:<index>` (positional item). A node can be a member
 * itself and have members below it; FieldsV1 writes that as `".": {}` beside the children.
 *
 * Sets are immutable once built, so the operations share unchanged subtrees (and return the set
 * itself when nothing changes) instead of copying: ownership of a 100,000-entry map costs little
 * when a write touches one entry of it. A set decoded from FieldsV1 keeps that document to encode.
 */
import { canonicalJson } from '../../api/json-walk.js';
import { badRequest } from '../../api/status.js';

/** One step of a field path, e.g. `f:spec` or `k:{"name":"web"}`. */
export type PathElement = string;
export type FieldPath = readonly PathElement[];

interface Node {
  member: boolean;
  children: Map<PathElement, Node>;
}

const newNode = (): Node => ({ member: false, children: new Map() });

/** Established FieldsV1 order: `.` first, then fields, keys, values, indexes. */
const KIND_ORDER: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

function compareElements(a: PathElement, b: PathElement): number {
  const ka = KIND_ORDER[a[0]!] ?? 4;
  const kb = KIND_ORDER[b[0]!] ?? 4;
  if (ka !== kb) return ka - kb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A node's children in FieldsV1 order. Children of one kind other than `i:` (the usual case: a
 * struct's or a map's `f:` fields) sort as plain strings, which is much faster for large maps.
 */
function sortedElements(children: Map<PathElement, Node>): PathElement[] {
  const keys = [...children.keys()];
  if (keys.length < 2) return keys;
  const kind = keys[0]![0];
  if (kind !== 'i' && keys.every((k) => k[0] === kind)) return keys.sort();
  return keys.sort(compareElements);
}

export class FieldSet {
  private readonly root: Node;
  /** The FieldsV1 document this set was decoded from (it encodes to that again). */
  private encoded: Record<string, unknown> | undefined;

  constructor(root: Node = newNode()) {
    this.root = root;
  }

  static of(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Only while building a new set (of, untouchedBy): built sets are never changed. */
  private insert(path: FieldPath): void {
    let node = this.root;
    for (const el of path) {
      let next = node.children.get(el);
      if (!next) node.children.set(el, (next = newNode()));
      node = next;
    }
    if (path.length > 0) node.member = true;
  }

  private node(path: FieldPath): Node | undefined {
    let node: Node | undefined = this.root;
    for (const el of path) {
      node = node.children.get(el);
      if (!node) return undefined;
    }
    return node;
  }

  /** True when `path` itself is a member. */
  has(path: FieldPath): boolean {
    return path.length > 0 && (this.node(path)?.member ?? false);
  }

  /** True when `path` or anything below it is a member (the path is "touched" by this set). */
  covers(path: FieldPath): boolean {
    return path.length === 0 ? !this.isEmpty() : this.node(path) !== undefined;
  }

  /** The subtree below `path` (members relative to it), without `path` itself. */
  childrenOf(path: FieldPath): FieldSet {
    const n = this.node(path);
    return n ? new FieldSet({ member: false, children: n.children }) : new FieldSet();
  }

  isEmpty(): boolean {
    return this.root.children.size === 0;
  }

  equals(other: FieldSet): boolean {
    const same = (a: Node, b: Node): boolean => {
      if (a.member !== b.member || a.children.size !== b.children.size) return false;
      for (const [k, ac] of a.children) {
        const bc = b.children.get(k);
        if (!bc || !same(ac, bc)) return false;
      }
      return true;
    };
    return same(this.root, other.root);
  }

  union(other: FieldSet): FieldSet {
    const merge = (a: Node, b: Node): Node => {
      if (a === b || (b.children.size === 0 && (a.member || !b.member))) return a;
      if (a.children.size === 0 && (b.member || !a.member)) return b;
      const children = new Map(a.children);
      for (const [k, bc] of b.children) {
        const ac = children.get(k);
        children.set(k, ac ? merge(ac, bc) : bc);
      }
      return { member: a.member || b.member, children };
    };
    return this.derived(merge(this.root, other.root));
  }

  /** Members of this set that are not members of `other` (paths, not subtrees). */
  difference(other: FieldSet): FieldSet {
    const diff = (a: Node, b: Node | undefined): Node | undefined => {
      if (!b || (b.children.size === 0 && !b.member)) return a;
      return filtered(a, a.member && !b.member, (k, ac) => diff(ac, b.children.get(k)));
    };
    return this.derived(diff(this.root, other.root));
  }

  /** This set when `root` is its own root (nothing changed), else a new set. */
  private derived(root: Node | undefined): FieldSet {
    if (root === this.root) return this;
    return new FieldSet(root ?? newNode());
  }

  intersection(other: FieldSet): FieldSet {
    const inter = (a: Node, b: Node): Node | undefined => {
      const out: Node = { member: a.member && b.member, children: new Map() };
      for (const [k, ac] of a.children) {
        const bc = b.children.get(k);
        const c = bc && inter(ac, bc);
        if (c) out.children.set(k, c);
      }
      return out.member || out.children.size > 0 ? out : undefined;
    };
    return new FieldSet(inter(this.root, other.root) ?? newNode());
  }

  /**
   * The members of this set whose path exists in `present` (as a member or on the way to one):
   * what is left of an ownership claim once the object no longer holds the rest.
   */
  presentIn(present: FieldSet): FieldSet {
    const keep = (a: Node, p: Node): Node | undefined => {
      if (a === p) return a;
      return filtered(a, a.member, (k, ac) => {
        const pc = p.children.get(k);
        return pc && keep(ac, pc);
      });
    };
    return this.derived(keep(this.root, present.root));
  }

  /**
   * The outermost paths this set touches that `keep` does not touch at all: what an applier may
   * remove when it stops setting them (a whole item goes with everything below it). `descendOnly`
   * lists first-level elements never removed whole (only what is below them).
   */
  untouchedBy(keep: FieldSet, descendOnly: readonly PathElement[] = []): FieldSet {
    const out = new FieldSet();
    const walk = (a: Node, k: Node, prefix: PathElement[]): void => {
      for (const [el, ac] of a.children) {
        const path = [...prefix, el];
        const kc = k.children.get(el);
        if (!kc && !(prefix.length === 0 && descendOnly.includes(el))) out.insert(path);
        else walk(ac, kc ?? newNode(), path);
      }
    };
    walk(this.root, keep.root, []);
    return out;
  }

  /** Every member path, depth first in FieldsV1 order. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (n: Node, prefix: PathElement[]): void => {
      if (n.member) out.push(prefix);
      for (const k of sortedElements(n.children)) walk(n.children.get(k)!, [...prefix, k]);
    };
    walk(this.root, []);
    return out;
  }

  /** The FieldsV1 JSON: leaves are `{}`, a member with children carries `".": {}`. */
  toFieldsV1(): Record<string, unknown> {
    if (this.encoded) return this.encoded;
    const enc = (n: Node): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      if (n.member && n.children.size > 0) out['.'] = {};
      for (const k of sortedElements(n.children)) out[k] = enc(n.children.get(k)!);
      return out;
    };
    return enc(this.root);
  }

  /** Parses FieldsV1 JSON; a malformed document is a 400 naming the bad key. */
  static fromFieldsV1(json: unknown): FieldSet {
    const dec = (v: unknown, where: string): Node => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) {
        throw badRequest(`fieldsV1${where}: must be an object`);
      }
      const n = newNode();
      const keys = Object.keys(v);
      if (keys.length === 0) n.member = true;
      for (const k of keys) {
        if (k === '.') {
          n.member = true;
          continue;
        }
        const kind = k[0];
        if (k[1] !== ':' || (kind !== 'f' && kind !== 'k' && kind !== 'v' && kind !== 'i') || (kind === 'i' && !/^i:\d+$/.test(k))) {
          throw badRequest(`fieldsV1${where}: invalid path element ${JSON.stringify(k)}: expected f:<name>, k:<json>, v:<json> or i:<index>`);
        }
        if (kind === 'k' || kind === 'v') {
          try {
            JSON.parse(k.slice(2));
          } catch {
            throw badRequest(`fieldsV1${where}: path element ${JSON.stringify(k)} does not hold valid JSON`);
          }
        }
        n.children.set(k, dec((v as Record<string, unknown>)[k], `${where}[${JSON.stringify(k)}]`));
      }
      return n;
    };
    const root = dec(json ?? {}, '');
    const set = new FieldSet({ member: false, children: root.children });
    if (json && !Object.prototype.hasOwnProperty.call(json, '.')) set.encoded = json as Record<string, unknown>;
    return set;
  }
}

/**
 * `a` with membership `member` and each child replaced by `child(k, c)` (dropped when undefined):
 * `a` itself when that changes nothing, undefined when nothing is left.
 */
function filtered(a: Node, member: boolean, child: (k: PathElement, c: Node) => Node | undefined): Node | undefined {
  let children: Map<PathElement, Node> | undefined;
  for (const [k, ac] of a.children) {
    const c = child(k, ac);
    if (c === ac) {
      children?.set(k, c);
      continue;
    }
    if (!children) {
      // First change: copy the children seen so far.
      children = new Map();
      for (const [k2, c2] of a.children) {
        if (k2 === k) break;
        children.set(k2, c2);
      }
    }
    if (c) children.set(k, c);
  }
  if (!children && member === a.member) return a;
  const out: Node = { member, children: children ?? a.children };
  return out.member || out.children.size > 0 ? out : undefined;
}

/** The path element of a struct field or map key. */
export const fieldElement = (name: string): PathElement => `f:${name}`;

/** The path element of a list-type map item: its key fields as JSON, names sorted. */
export function keyElement(keys: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const k of Object.keys(keys).sort()) sorted[k] = keys[k];
  return `k:${JSON.stringify(sorted)}`;
}

export const valueElement = (value: unknown): PathElement => `v:${canonicalJson(value)}`;
export const indexElement = (i: number): PathElement => `i:${i}`;


/** A path as conflict messages print it: `.spec.containers[name="web"].image`, `[="a"]`, `[0]`. */
export function formatPath(path: FieldPath): string {
  let out = '';
  for (const el of path) {
    const body = el.slice(2);
    switch (el[0]) {
      case 'f':
        out += `.${body}`;
        break;
      case 'k': {
        const keys = JSON.parse(body) as Record<string, unknown>;
        out += `[${Object.entries(keys).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
        break;
      }
      case 'v':
        out += `[=${body}]`;
        break;
      default:
        out += `[${body}]`;
    }
  }
  return out;
}
