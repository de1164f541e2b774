/**
 * Which kinds offer Protobuf: a kind does when it has a message and every field its schema models
 * has a number of a matching type (or is declared absent from the established wire). A kind with a
 * gap offers JSON only, so no response is ever half-encoded.
 */
import type { ResourceDefinition, SchemaNode } from '../../api/types.js';
import { groupVersion } from '../../api/types.js';
import { SCALARS, wireModel, type WireField, type WireModel } from './model.js';

export type ProtobufSupport = { message: string } | { reason: string };

function fieldFor(model: WireModel, msgName: string, key: string): WireField | 'notOnWire' | undefined {
  const msg = model.messages.get(msgName)!;
  const direct = msg.byName.get(key);
  if (direct && !direct.inline) return direct;
  for (const f of msg.fields) {
    if (!f.inline) continue;
    const inner = fieldFor(model, f.type, key);
    if (inner) return inner;
  }
  return msg.notOnWire.has(key) ? 'notOnWire' : undefined;
}

/** Problems of a schema node against a field's element type ('' when compatible). */
function checkValue(model: WireModel, node: SchemaNode, type: string, path: string, out: string[]): void {
  if (node['x-svc-int-or-string']) {
    const want = node.format === 'quantity' ? 'Quantity' : 'IntOrString';
    if (type !== want) out.push(`${path}: schema is ${want}, wire is ${type}`);
    return;
  }
  switch (node.type) {
    case 'string': {
      const want = node.format === 'date-time' ? ['Time', 'MicroTime'] : node.format === 'byte' ? ['bytes'] : ['string'];
      if (!want.includes(type)) out.push(`${path}: schema is ${want.join('|')}, wire is ${type}`);
      return;
    }
    case 'integer':
      if (type !== 'int32' && type !== 'int64') out.push(`${path}: schema is an integer, wire is ${type}`);
      return;
    case 'number':
      if (type !== 'double') out.push(`${path}: schema is a number, wire is ${type}`);
      return;
    case 'boolean':
      if (type !== 'bool') out.push(`${path}: schema is a boolean, wire is ${type}`);
      return;
    case 'array': {
      const wrapper = model.messages.get(type);
      if (!wrapper?.wrapsList) out.push(`${path}: schema is a list, wire is ${type}`);
      else if (node.items) checkValue(model, node.items, wrapper.fields[0]!.type, `${path}[]`, out);
      return;
    }
    case 'object':
      if (SCALARS.has(type)) out.push(`${path}: schema is an object, wire is ${type}`);
      else if (node.properties && type !== 'FieldsV1' && type !== 'RawExtension') checkMessage(model, node, type, path, out);
      return;
    default:
      return;
  }
}

function checkMessage(model: WireModel, node: SchemaNode, msgName: string, path: string, out: string[], root = false): void {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    if (root && (key === 'apiVersion' || key === 'kind')) continue;
    const p = path ? `${path}.${key}` : key;
    const f = fieldFor(model, msgName, key);
    if (f === 'notOnWire') continue;
    if (!f) {
      out.push(`${p}: no field number in ${msgName}`);
      continue;
    }
    if (child.type === 'array') {
      if (!f.repeated) out.push(`${p}: schema is a list, wire is not repeated`);
      else if (child.items) checkValue(model, child.items, f.type, `${p}[]`, out);
    } else if (child.type === 'object' && typeof child.additionalProperties === 'object') {
      if (!f.map) out.push(`${p}: schema is a map, wire is not`);
      else checkValue(model, child.additionalProperties, f.type, `${p}{}`, out);
    } else if (f.repeated || f.map) {
      out.push(`${p}: wire is ${f.repeated ? 'repeated' : 'a map'}, schema is not`);
    } else {
      checkValue(model, child, f.type, p, out);
    }
  }
}

/** Every mismatch between a kind's schema and its wire message (empty: Protobuf is offered). */
export function protobufProblems(def: ResourceDefinition, model: WireModel = wireModel()): { message?: string; problems: string[] } {
  const message = model.kinds.get(`${groupVersion(def)}/${def.kind}`);
  if (!message) return { problems: [`${groupVersion(def)}/${def.kind} has no wire message`] };
  const problems: string[] = [];
  checkMessage(model, def.schema, message, '', problems, true);
  return { message, problems };
}

const cache = new WeakMap<ResourceDefinition, ProtobufSupport>();

/** Whether (and as which message) a kind is served in Protobuf; computed once per definition. */
export function protobufSupport(def: ResourceDefinition): ProtobufSupport {
  let s = cache.get(def);
  if (!s) {
    const { message, problems } = protobufProblems(def);
    s = message && problems.length === 0 ? { message } : { reason: problems[0] ?? 'no wire message' };
    cache.set(def, s);
  }
  return s;
}
