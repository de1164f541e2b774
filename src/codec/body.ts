/**
 * Decoding request bodies by Content-Type.
 *
 * JSON, YAML and (for kinds that offer it) the Protobuf envelope are read here; which response
 * representation is written is chosen in ./negotiation.ts (see docs/content-types.md).
 */
import { parse as parseYaml } from 'yaml';
import { badRequest } from '../api/status.js';
import { negotiateRequest } from './negotiation.js';
import { PROTOBUF_MEDIA_TYPE, ProtobufDecodeError, protobufCodec } from './protobuf/codec.js';

/** Media types a body of a create/update may use. */
export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
/** Media types of a PATCH body. */
export const PATCH_MEDIA_TYPES = ['application/merge-patch+json', 'application/json-patch+json'] as const;

export { mediaTypeOf } from './negotiation.js';

/**
 * How many alias expansions a YAML body may cause (the parser counts them weighted by the size of
 * what each alias stands for): enough for ordinary anchors, far too few for "billion laughs".
 */
export const MAX_YAML_ALIAS_COUNT = 100;

/**
 * How deep a YAML body may nest (flow brackets or block indentation) before it is parsed: the
 * parser recurses per level, so deeper text is refused by a linear scan instead of overflowing
 * the stack. Above the objects' own bound (256), so that one still names the field.
 */
export const MAX_YAML_NESTING = 512;

/** The deepest nesting of `text`'s flow collections and block structure (a linear scan, no recursion). */
export function yamlNestingDepth(text: string): number {
  let max = 0;
  let flow = 0;
  const indents: number[] = [];
  let lineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') {
      lineStart = true;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (ch === ' ') {
        indent++;
        continue;
      }
      lineStart = false;
      if (ch === '#' || ch === '\r') {
        while (i < text.length && text[i] !== '\n') i++;
        i--;
        continue;
      }
      if (flow === 0) {
        while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
        indents.push(indent);
        // Each "- " starting an item in a block sequence opens one more level on the same line.
        let j = i;
        while (text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\n')) {
          indents.push(indent + (j - i) + 1);
          j += 2;
          while (text[j] === ' ') j++;
        }
        if (indents.length > max) max = indents.length;
      }
    }
    if (ch === '"' || ch === "'") {
      // Skip the quoted scalar (a single quote escapes itself, a double-quoted one uses backslashes).
      for (i++; i < text.length; i++) {
        if (ch === '"' && text[i] === '\\') i++;
        else if (text[i] === ch) {
          if (ch === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
    } else if (ch === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
    } else if (ch === '[' || ch === '{') {
      flow++;
      if (flow + indents.length > max) max = flow + indents.length;
    } else if ((ch === ']' || ch === '}') && flow > 0) {
      flow--;
    }
  }
  return max;
}

/** Parses YAML text with the alias and nesting bounds; throws an Error with a plain message (callers turn it into a 400). */
export function parseYamlText(text: string): unknown {
  const depth = yamlNestingDepth(text);
  if (depth > MAX_YAML_NESTING) throw new Error(`it nests ${depth} levels deep, more than the ${MAX_YAML_NESTING} allowed`);
  return parseYaml(text, { maxAliasCount: MAX_YAML_ALIAS_COUNT });
}

function describeJsonError(err: unknown, body: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  const preview = body.length > 80 ? `${body.slice(0, 80)}...` : body;
  return `the request body is not valid JSON (${msg}); body starts with ${JSON.stringify(preview)}`;
}

/** Parses a JSON or YAML body; anything else is 415, unparsable text 400. */
export function decodeBody(contentType: string | undefined, body: Buffer, allowed: readonly string[]): unknown {
  const mt = negotiateRequest(contentType, allowed);
  if (mt === PROTOBUF_MEDIA_TYPE) return decodeProtobufBody(body);
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the request body is empty; send an object');
  if (mt === 'application/yaml') {
    try {
      return parseYamlText(text);
    } catch (err) {
      throw badRequest(`the request body is not valid YAML: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(describeJsonError(err, text));
  }
}

/** A Protobuf envelope body (only offered where the caller allows the media type); 400 when unreadable. */
function decodeProtobufBody(body: Buffer): unknown {
  if (body.length === 0) throw badRequest('the request body is empty; send an object');
  try {
    return protobufCodec().decodeObject(body);
  } catch (err) {
    if (err instanceof ProtobufDecodeError) throw badRequest(`the request body is not valid ${PROTOBUF_MEDIA_TYPE}: ${err.message}`);
    // Nested messages (e.g. JSONSchemaProps) decode recursively: a body nested past the stack is refused.
    if (err instanceof RangeError) throw badRequest(`the request body is not valid ${PROTOBUF_MEDIA_TYPE}: it nests too deep`);
    throw err;
  }
}
