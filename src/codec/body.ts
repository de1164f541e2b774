/**
 * Decoding request bodies by Content-Type, and choosing a response format from Accept.
 *
 * JSON and YAML are read here; the Protobuf and Table representations join through the same two
 * functions (see docs/api.md).
 */
import { parse as parseYaml } from 'yaml';
import { badRequest, notAcceptable, unsupportedMediaType } from '../api/status.js';

/** Media types a body of a create/update may use. */
export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml'] as const;
/** Media types of a PATCH body. */
export const PATCH_MEDIA_TYPES = ['application/merge-patch+json', 'application/json-patch+json'] as const;

export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

function describeJsonError(err: unknown, body: string): string {
  const msg = err instanceof Error ? err.message : String(err);
  const preview = body.length > 80 ? `${body.slice(0, 80)}...` : body;
  return `the request body is not valid JSON (${msg}); body starts with ${JSON.stringify(preview)}`;
}

/** Parses a JSON or YAML body; anything else is 415, unparsable text 400. */
export function decodeBody(contentType: string | undefined, body: Buffer, allowed: readonly string[]): unknown {
  const mt = mediaTypeOf(contentType) || 'application/json';
  if (!allowed.includes(mt)) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format: ${mt || '(none)'}; accepted media types include: ${allowed.join(', ')}`,
    );
  }
  const text = body.toString('utf8');
  if (text.trim() === '') throw badRequest('the request body is empty; send an object');
  if (mt === 'application/yaml') {
    try {
      return parseYaml(text, { maxAliasCount: 100 });
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

/** Parses an Accept header into media ranges ordered by q (stable for ties). */
export function parseAccept(header: string | undefined): { type: string; params: Record<string, string>; q: number }[] {
  if (!header || header.trim() === '') return [{ type: '*/*', params: {}, q: 1 }];
  const out: { type: string; params: Record<string, string>; q: number; i: number }[] = [];
  header.split(',').forEach((part, i) => {
    const [t, ...ps] = part.split(';');
    const type = t!.trim().toLowerCase();
    if (!type) return;
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of ps) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const k = p.slice(0, eq).trim().toLowerCase();
      const v = p.slice(eq + 1).trim();
      if (k === 'q') q = Number(v);
      else params[k] = v;
    }
    if (!Number.isFinite(q) || q < 0) q = 0;
    out.push({ type, params, q, i });
  });
  return out.filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i);
}

/**
 * Chooses the response media type among `offered` (first wins among equal q). Ranges with an `as=`
 * parameter ask for a transformed representation (Table) that callers handle before this; here they
 * are skipped so a listed fallback (e.g. plain application/json) is used.
 */
export function negotiate(header: string | undefined, offered: readonly string[]): string {
  if (header === undefined || header === '*/*' || header === offered[0]) return offered[0]!;
  for (const range of parseAccept(header)) {
    if (range.params['as']) continue;
    if (range.type === '*/*') return offered[0]!;
    if (range.type.endsWith('/*')) {
      const major = range.type.slice(0, -1);
      const hit = offered.find((o) => o.startsWith(major));
      if (hit) return hit;
      continue;
    }
    if (offered.includes(range.type)) return range.type;
  }
  throw notAcceptable(`only the following media types are accepted: ${offered.join(', ')}`);
}
