/**
 * Boolean words as the established system reads them (Go's strconv.ParseBool): 1, t, T, TRUE, true,
 * True and their false counterparts. One home for flags and query parameters alike; clients send
 * several of these (the Python client sends `watch=True`).
 */
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** The boolean a word spells, or undefined when it spells none. */
export function parseBoolWord(raw: string): boolean | undefined {
  if (TRUE_WORDS.has(raw)) return true;
  if (FALSE_WORDS.has(raw)) return false;
  return undefined;
}
