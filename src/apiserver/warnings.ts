/**
 * Response headers made from user data, encoded the way the established server puts them on the
 * wire, so that no text a client sent (a field name with an emoji, a byte-order mark, a control
 * character) can make a response unsendable. Node refuses a header value with a character above
 * U+00FF on HTTP/1.1 (`setHeader` throws) and, worse, accepts it on HTTP/2 and then resets the
 * stream when it sends the head: a write already committed would go unanswered.
 *
 * The established server (Go's net/http under k8s.io/apiserver) writes header values as UTF-8 bytes.
 * Node writes a header string one byte per character (latin1), so the value given to Node is the
 * UTF-8 bytes of the text spelled as latin1 characters: the same bytes reach the wire, on both
 * protocols, and a client reading the header as UTF-8 (as kubectl does) gets the text back.
 *
 * `Warning` headers follow k8s.io/apiserver's warning recorder: `299 - "<text>"` with `"` and `\`
 * escaped (apimachinery's NewWarningHeader), the same text once per response, and past 4 KiB of
 * warnings in total every warning cut to its first 256 characters. Unknown-field warnings name the
 * field quoted as Go's `%q` does (strconv.Quote: non-printable characters escaped, printable
 * Unicode kept), as the established strict decoder's `unknown field "..."` errors do.
 *
 * In-process responses (the control plane's own calls) carry the text itself: they have no wire.
 */
import type { Response } from './http.js';
import { InProcessResponse } from './in-process-exchange.js';

/** k8s.io/apiserver/pkg/endpoints/filters/warning.go: truncateAtTotalRunes and truncateItemRunes. */
const TOTAL_WARNING_BYTES = 4 * 1024;
const TRUNCATED_WARNING_CHARS = 256;

interface Recorder {
  texts: Set<string>;
  headers: string[];
  written: number;
  truncating: boolean;
}

const RECORDERS = new WeakMap<Response, Recorder>();

/** Adds a `Warning: 299 - "<text>"` header to `res` (before its head is sent), as established. */
export function addWarning(res: Response, text: string): void {
  if (!text || res.headersSent) return;
  let r = RECORDERS.get(res);
  if (!r) RECORDERS.set(res, (r = { texts: new Set(), headers: [], written: 0, truncating: false }));
  if (r.written >= TOTAL_WARNING_BYTES && r.truncating) return;
  if (r.texts.has(text)) return;
  r.texts.add(text);
  const header = warningHeader(r.truncating ? truncated(text) : text);
  if (r.written + Buffer.byteLength(header) <= TOTAL_WARNING_BYTES || r.truncating) {
    r.written += Buffer.byteLength(header);
    r.headers.push(header);
  } else {
    // Over the total: from now on every warning, earlier ones included, is cut short.
    r.truncating = true;
    r.headers = [...r.texts].map((t) => warningHeader(truncated(t)));
    r.written = r.headers.reduce((n, h) => n + Buffer.byteLength(h), 0);
  }
  const wire = res instanceof InProcessResponse ? r.headers : r.headers.map(wireHeaderValue);
  res.setHeader('warning', wire);
}

/** `299 - "<text>"`, the text quoted as apimachinery's makeQuotedString does. */
function warningHeader(text: string): string {
  return `299 - "${wellFormed(text).replace(/["\\]/g, '\\$&')}"`;
}

function truncated(text: string): string {
  const chars = [...text];
  return chars.length > TRUNCATED_WARNING_CHARS ? chars.slice(0, TRUNCATED_WARNING_CHARS).join('') : text;
}

/** The text of the established unknown-field warning (and strict decoding error) for a field path. */
export function unknownFieldText(field: string): string {
  return `unknown field ${goQuote(field)}`;
}

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v' };

/** Go's strconv.Quote: printable characters as they are, `"` and `\` escaped, the rest as \x, \u or \U escapes. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of wellFormed(s)) {
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (SHORT_ESCAPES[ch]) out += SHORT_ESCAPES[ch];
    else {
      const cp = ch.codePointAt(0)!;
      out += cp < 0x80 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}

/** Lone surrogates (JSON allows them) become U+FFFD, as Go's decoder makes them. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** Characters Node sends in a header value on both protocols: tab, printable ASCII and 0x80-0xFF. */
const WIRE_SAFE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * A header value as Node must be given it to send `text`'s UTF-8 bytes: the bytes spelled as latin1
 * characters. Control characters (which Go's HTTP/1.1 server turns into spaces, or its HTTP/2
 * server leaves out) become spaces, so the result is always sendable.
 */
export function wireHeaderValue(text: string): string {
  if (/^[\t\x20-\x7e]*$/.test(text)) return text;
  const clean = wellFormed(text).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ' ');
  return Buffer.from(clean, 'utf8').toString('latin1');
}

/** True when Node can send `value` as a header value on HTTP/1.1 and HTTP/2 alike. */
export function isWireSafe(value: string): boolean {
  return WIRE_SAFE.test(value);
}
