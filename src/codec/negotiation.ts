/**
 * Content negotiation: which representation a response is written in (from Accept) and whether a
 * request body's Content-Type is one the server reads. The two are chosen independently.
 *
 * A representation is offered as a media type plus the parameters that select it (the Table is
 * `application/json;as=Table;g=meta.svc;v=v1beta1`). Accept clauses are tried in q order (ties in
 * the order given); the first clause some offered representation satisfies wins, so a client lists
 * fallbacks (Table, then plain JSON). Nothing acceptable is a 406 Status.
 *
 * A representation is one `Representation` name and one `OfferedRepresentation` constant, added to
 * the lists the router passes in (Protobuf only for kinds that offer it).
 */
import { canonicalGroup, canonicalMediaType, type Spelling, spelledMediaType } from '../api/established-spelling.js';
import { notAcceptable, unsupportedMediaType } from '../api/status.js';

/** What the handler writes. */
export type Representation = 'json' | 'table' | 'protobuf';

export interface OfferedRepresentation {
  representation: Representation;
  /** `type/subtype`, lower case. */
  mediaType: string;
  /**
   * Parameters an Accept clause must carry to select this representation (`as`, `g`, `v`). A clause
   * that carries a conversion parameter (`as`, `g`, `v`) selects only the representation with
   * exactly those values; other parameters (charset, pretty ...) are ignored.
   */
  params: Readonly<Record<string, string>>;
  /** The response Content-Type header. */
  contentType: string;
}

/** Group and version of the Table (and PartialObjectMetadata) representation; v1 is the same shape. */
export const META_GROUP = 'meta.svc';
export const TABLE_VERSION = 'v1beta1';
export const TABLE_V1_VERSION = 'v1';

export const JSON_REPRESENTATION: OfferedRepresentation = {
  representation: 'json',
  mediaType: 'application/json',
  params: {},
  contentType: 'application/json',
};

export const TABLE_REPRESENTATION: OfferedRepresentation = {
  representation: 'table',
  mediaType: 'application/json',
  params: { as: 'Table', g: META_GROUP, v: TABLE_VERSION },
  contentType: `application/json;as=Table;g=${META_GROUP};v=${TABLE_VERSION}`,
};

export const TABLE_V1_REPRESENTATION: OfferedRepresentation = {
  representation: 'table',
  mediaType: 'application/json',
  params: { as: 'Table', g: META_GROUP, v: TABLE_V1_VERSION },
  contentType: `application/json;as=Table;g=${META_GROUP};v=${TABLE_V1_VERSION}`,
};

/** The Protobuf envelope (src/codec/protobuf/); offered only for kinds whose fields all have numbers. */
export const PROTOBUF_REPRESENTATION: OfferedRepresentation = {
  representation: 'protobuf',
  mediaType: 'application/vnd.svc.protobuf',
  params: {},
  contentType: 'application/vnd.svc.protobuf',
};

/** Parameters that ask for a converted object rather than a plain encoding. */
const CONVERSION_PARAMS = ['as', 'g', 'v'] as const;

export interface MediaRange {
  /** `type/subtype`, `type/*` or `*\/*`, lower case. */
  type: string;
  params: Record<string, string>;
  q: number;
}

/** Parses an Accept header into media ranges ordered by q (stable for ties); q=0 ranges are dropped. */
export function parseAccept(header: string | undefined): MediaRange[] {
  if (header === undefined || header.trim() === '') return [{ type: '*/*', params: {}, q: 1 }];
  const out: (MediaRange & { i: number })[] = [];
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
      const v = p.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (k === 'q') q = Number(v);
      else params[k] = v;
    }
    if (!Number.isFinite(q) || q < 0) q = 0;
    out.push({ type, params, q: Math.min(q, 1), i });
  });
  return out
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map(({ type, params, q }) => ({ type, params, q }));
}

function typeMatches(range: string, mediaType: string): boolean {
  if (range === '*/*') return true;
  if (range.endsWith('/*')) return mediaType.startsWith(range.slice(0, -1));
  return range === mediaType;
}

/** Does one Accept clause select this offered representation? */
export function rangeSelects(range: MediaRange, offer: OfferedRepresentation): boolean {
  if (!typeMatches(range.type, offer.mediaType)) return false;
  for (const k of CONVERSION_PARAMS) {
    if ((range.params[k] ?? '') !== (offer.params[k] ?? '')) return false;
  }
  return true;
}

/** Describes what could have been asked for, for the 406 message. */
function describeOffers(offered: readonly OfferedRepresentation[]): string {
  return offered.map((o) => o.contentType).join(', ');
}

/** The representation chosen, with the spelling its Accept clause used and the Content-Type in that spelling. */
export interface NegotiatedRepresentation extends OfferedRepresentation {
  spelling: Spelling;
}

/** A media range in our spelling (media type and `g=`), and whether it was written in the established one. */
function canonicalRange(range: MediaRange): { range: MediaRange; spelling: Spelling } {
  const type = canonicalMediaType(range.type);
  const g = range.params['g'];
  const cg = g === undefined ? undefined : canonicalGroup(g);
  if (type === range.type && cg === g) return { range, spelling: 'svc' };
  return { range: { ...range, type, params: cg === undefined ? range.params : { ...range.params, g: cg } }, spelling: 'established' };
}

/**
 * Chooses the response representation among `offered` (the first offered wins for wildcards).
 * Clauses in the established spelling (src/api/established-spelling.ts) select the same offers and
 * get the Content-Type in their spelling. 406 NotAcceptable when no clause selects any of them.
 */
export function negotiateResponse(accept: string | undefined, offered: readonly OfferedRepresentation[]): NegotiatedRepresentation {
  for (const clause of parseAccept(accept)) {
    const { range, spelling } = canonicalRange(clause);
    const hit = offered.find((o) => rangeSelects(range, o));
    if (hit) return { ...hit, spelling, contentType: spelledMediaType(hit.contentType, spelling) };
  }
  throw notAcceptable(
    `none of the media types in Accept (${accept ?? ''}) can be served for this request; the server can produce: ${describeOffers(offered)}; ` +
      'list a fallback such as application/json',
  );
}

/** `type/subtype` of a Content-Type header, lower case ('' when absent). */
export function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * The request body's media type when the server reads it (an absent Content-Type means JSON);
 * 415 UnsupportedMediaType otherwise, naming what is accepted.
 */
export function negotiateRequest(contentType: string | undefined, accepted: readonly string[]): string {
  const mt = canonicalMediaType(mediaTypeOf(contentType) || 'application/json');
  if (!accepted.includes(mt)) {
    throw unsupportedMediaType(
      `the body of the request was in an unknown format: ${mt}; accepted media types include: ${accepted.join(', ')}`,
    );
  }
  return mt;
}
