/**
 * Continue tokens for chunked lists: opaque to clients, they carry the snapshot revision, the key
 * to resume after (relative to the resource prefix) and when they were issued, so an old token
 * expires (410) after the configured lifetime.
 */
import { badRequest, expired } from '../api/status.js';

export interface ContinueToken {
  /** Revision of the snapshot every chunk is read at. */
  revision: number;
  /** Resume at this key (relative to the resource prefix); already past the last returned key. */
  start: string;
  /** Issue time of the first chunk (ms since epoch). */
  issuedAt: number;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.svc/v1', rv: token.revision, start: token.start, t: token.issuedAt })).toString(
    'base64url',
  );
}

export function decodeContinue(raw: string, now: number, ttlMs: number): ContinueToken {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badRequest('continue key is not valid: restart the list without a continue token');
  }
  // Any JSON decodes (`null`, a number, an array): only an object of the expected shape is a token.
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('continue key is not valid: restart the list without a continue token');
  }
  const p = parsed as { v?: unknown; rv?: unknown; start?: unknown; t?: unknown };
  if (p.v !== 'meta.svc/v1' || !Number.isSafeInteger(p.rv) || (p.rv as number) < 0 || typeof p.start !== 'string' || !Number.isFinite(p.t)) {
    throw badRequest('continue key is not valid: restart the list without a continue token');
  }
  if (p.start.includes('..') || p.start.startsWith('/')) throw badRequest('continue key is not valid: bad start key');
  if (now - (p.t as number) > ttlMs) {
    throw expired(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
  }
  return { revision: p.rv as number, start: p.start, issuedAt: p.t as number };
}
