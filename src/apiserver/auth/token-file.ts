/**
 * Static tokens (--token-auth-file): a CSV file, one token a line, in the established format
 *
 *   token,user,uid[,"group1,group2"]
 *
 * read once at start (the established server never reloads it). A bearer token equal to one of the
 * file's is that line's user; any other token is not this method's (the next token method is
 * asked). Parsing follows the established reader (Go's encoding/csv with leading spaces trimmed):
 * quoted fields may hold commas, `""` is a quote, blank lines are skipped, fewer than three
 * columns is an error, an empty token is skipped, and a token given twice keeps its last line.
 * A file that does not parse stops the server at start with the line named.
 *
 * The tokens know nothing of audiences: authenticators.ts wraps this method with
 * `audienceAgnostic`, as the established server does.
 */
import type { Authenticated, TokenAuthenticator } from './authentication.js';
import type { UserInfo } from './user.js';

/** One CSV record and the line it starts on. */
interface CsvRecord {
  line: number;
  fields: string[];
}

/** Records of `text` the way Go's csv.Reader with TrimLeadingSpace reads them; throws naming the line and column. */
export function parseCsv(text: string): CsvRecord[] {
  const out: CsvRecord[] = [];
  const src = text.replace(/^\uFEFF/, '');
  let i = 0;
  let line = 1;
  while (i < src.length) {
    // A blank line is no record.
    if (src[i] === '\n' || (src[i] === '\r' && src[i + 1] === '\n')) {
      i += src[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const start = line;
    const fields: string[] = [];
    for (;;) {
      while (src[i] === ' ' || src[i] === '\t') i++;
      let field = '';
      if (src[i] === '"') {
        const column = i;
        i++;
        for (;;) {
          if (i >= src.length) throw new Error(`record on line ${start}; parse error on line ${line}, column ${column + 1}: extraneous or missing " in quoted-field`);
          const c = src[i]!;
          if (c === '"') {
            if (src[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i++;
            break;
          }
          if (c === '\n') line++;
          if (!(c === '\r' && src[i + 1] === '\n')) field += c;
          i++;
        }
        if (i < src.length && src[i] !== ',' && src[i] !== '\n' && !(src[i] === '\r' && src[i + 1] === '\n')) {
          throw new Error(`record on line ${start}; parse error on line ${line}: extraneous or missing " in quoted-field`);
        }
      } else {
        while (i < src.length && src[i] !== ',' && src[i] !== '\n' && !(src[i] === '\r' && src[i + 1] === '\n')) {
          if (src[i] === '"') throw new Error(`parse error on line ${line}: bare " in non-quoted-field`);
          field += src[i];
          i++;
        }
      }
      fields.push(field);
      if (src[i] === ',') {
        i++;
        continue;
      }
      // End of the record: a line end or the end of the text.
      if (src[i] === '\r') i++;
      if (src[i] === '\n') {
        i++;
        line++;
      }
      break;
    }
    out.push({ line: start, fields });
  }
  return out;
}

/** The users of a token file's text by token; throws with `source` and the line on a malformed file. */
export function parseTokenFile(text: string, source: string): Map<string, UserInfo> {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new Error(`--token-auth-file ${source}: ${(err as Error).message}`);
  }
  const tokens = new Map<string, UserInfo>();
  for (const { line, fields } of records) {
    if (fields.length < 3) {
      throw new Error(`--token-auth-file ${source}: line ${line}: must have at least 3 columns (token, user name, user uid), found ${fields.length}`);
    }
    const [token, username, uid, groups] = fields as [string, string, string, string | undefined];
    if (token === '') continue; // established: an empty token is skipped (with a warning there)
    const user: UserInfo = { username, ...(uid ? { uid } : {}), groups: groups === undefined ? [] : groups.split(',') };
    tokens.set(token, user);
  }
  return tokens;
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  readonly name = 'token-file';
  private readonly tokens: Map<string, UserInfo>;

  constructor(text: string, source: string) {
    this.tokens = parseTokenFile(text, source);
  }

  get size(): number {
    return this.tokens.size;
  }

  authenticateToken(token: string): Authenticated | null {
    const user = this.tokens.get(token);
    if (!user) return null;
    return { user: { ...user, groups: [...user.groups] } };
  }
}
