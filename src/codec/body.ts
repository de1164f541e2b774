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

/** Parses YAML text with the alias bound; throws the parser's error (callers turn it into a 400). */
export function parseYamlText(text: string): unknown {
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
