/**
 * The wire model read from the field-number tables (src/api/kinds/proto/): every message with its
 * fields parsed, and which message each built-in kind is. Both the `.proto` text and the runtime
 * conversion walk this model, so they cannot disagree.
 */
import { PROTO_PACKAGES, type ProtoPackageTable } from '../../api/kinds/proto/index.js';

export const SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double', 'bytes']);
/** Scalars whose zero a plain field reads as absent (`bytes` is a list, kept as sent). */
const PRESENCE_SCALARS = new Set(['string', 'int32', 'int64', 'bool', 'double']);

export interface WireField {
  /** JSON (and proto) field name. */
  name: string;
  number: number;
  /** Scalar type or message name. */
  type: string;
  repeated: boolean;
  /**
   * A scalar whose zero sent is a value (a Go pointer, or a field the established JSON always
   * writes); a plain scalar's `0`, `false`, `""` read as absent (see ProtoMessageTable).
   */
  optional: boolean;
  /** `map<string, type>` */
  map: boolean;
  /** The message's fields sit in the parent's JSON object (embedded struct). */
  inline: boolean;
}

export interface WireMessage {
  name: string;
  pkg: ProtoPackageTable;
  fields: WireField[];
  byName: Map<string, WireField>;
  notOnWire: ReadonlySet<string>;
  /** JSON form is the bare list of the only field `items`. */
  wrapsList: boolean;
}

function parseField(msg: string, name: string, spec: string): WireField {
  const m = /^(\d+) (repeated |optional )?(?:map<string,(\w+)>|(\w+))( inline)?$/.exec(spec);
  if (!m) throw new Error(`proto table: ${msg}.${name}: cannot read field spec ${JSON.stringify(spec)}`);
  const type = (m[3] ?? m[4])!;
  const optional = m[2] === 'optional ';
  if (optional && (m[3] !== undefined || !PRESENCE_SCALARS.has(type))) {
    throw new Error(`proto table: ${msg}.${name}: only a single string, number or bool can be optional (a message always has presence)`);
  }
  return { name, number: Number(m[1]), type, repeated: m[2] === 'repeated ', optional, map: m[3] !== undefined, inline: Boolean(m[5]) };
}

export interface WireModel {
  messages: ReadonlyMap<string, WireMessage>;
  /** `apiVersion/Kind` (e.g. `v1/Pod`) -> message name. */
  kinds: ReadonlyMap<string, string>;
  packages: readonly ProtoPackageTable[];
}

export function buildWireModel(packages: readonly ProtoPackageTable[] = PROTO_PACKAGES): WireModel {
  const messages = new Map<string, WireMessage>();
  const kinds = new Map<string, string>();
  for (const pkg of packages) {
    for (const [name, table] of Object.entries(pkg.messages)) {
      if (messages.has(name)) throw new Error(`proto table: message ${name} defined twice`);
      const fields = Object.entries(table.fields).map(([f, spec]) => parseField(name, f, spec));
      const numbers = new Set<number>();
      for (const f of fields) {
        if (numbers.has(f.number)) throw new Error(`proto table: ${name} uses field number ${f.number} twice`);
        numbers.add(f.number);
      }
      messages.set(name, { name, pkg, fields, byName: new Map(fields.map((f) => [f.name, f])), notOnWire: new Set(table.notOnWire ?? []), wrapsList: table.wrapsList ?? false });
    }
    for (const [kind, msg] of Object.entries(pkg.kinds ?? {})) {
      kinds.set(`${pkg.groupVersion}/${kind}`, msg);
      // A version sharing another's messages (batch/v1beta1 CronJob) shares its list message too.
      if (messages.has(`${msg}List`)) continue;
      // Every kind's list: ListMeta = 1, items = 2 (the established layout).
      const listFields = [
        { name: 'metadata', number: 1, type: 'ListMeta', repeated: false, optional: false, map: false, inline: false },
        { name: 'items', number: 2, type: msg, repeated: true, optional: false, map: false, inline: false },
      ];
      messages.set(`${msg}List`, { name: `${msg}List`, pkg, fields: listFields, byName: new Map(listFields.map((f) => [f.name, f])), notOnWire: new Set(), wrapsList: false });
    }
  }
  for (const msg of messages.values()) {
    for (const f of msg.fields) {
      if (!SCALARS.has(f.type) && !messages.has(f.type)) throw new Error(`proto table: ${msg.name}.${f.name} names unknown message ${f.type}`);
      if (f.inline && (f.repeated || f.map || SCALARS.has(f.type))) throw new Error(`proto table: ${msg.name}.${f.name}: only a single message can be inline`);
    }
    if (msg.wrapsList && (msg.fields.length !== 1 || msg.fields[0]!.name !== 'items' || !msg.fields[0]!.repeated)) {
      throw new Error(`proto table: ${msg.name} wraps a list but its only field is not a repeated 'items'`);
    }
  }
  return { messages, kinds, packages };
}

let shared: WireModel | undefined;
/** The model of the built-in tables (built once). */
export function wireModel(): WireModel {
  shared ??= buildWireModel();
  return shared;
}
