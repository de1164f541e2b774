/**
 * The API server's token authentication cache: the bearer-token methods (token file, service
 * accounts, bootstrap tokens, OIDC, webhook) as one union, wrapped so a token checked a moment
 * ago is not checked again, as the established server wraps its token authenticators
 * (tokencache: success TTL 10 s, failure TTL 0, i.e. failures are never cached, and no flag
 * changes either).
 *
 * - Key: SHA-256 of a secret drawn at random per process, the audiences asked for and the token
 *   (the established cache uses an HMAC for the same end): the cache holds no token, and a memory
 *   dump without the secret does not let anyone test guesses offline. The key never leaves the
 *   process and is not a MAC anyone verifies, so a one-shot hash over secret + data does as well
 *   as an HMAC here, at a third of its cost per request (profiled: the HMAC object was as costly
 *   as the whole client-certificate check). The audiences are part of the key: a token valid
 *   for one audience list is not thereby valid for another.
 * - What is cached: the method's whole answer: a user with the audiences granted, or "not a
 *   token of any method" (null), or an AuthenticationFailure. A success (a user) lives
 *   `successTtlMs`; null and failures live `failureTtlMs` (0: not at all). Errors that are not
 *   AuthenticationFailures (a store that cannot answer) are never cached.
 * - Concurrent checks of the same key share one check (the established singleflight): 32 clients
 *   presenting one token at once cost one JWT verification and one service-account lookup.
 * - Revocation, as established: a token accepted a moment ago keeps being accepted until its entry
 *   expires: a deleted service account, a deleted bound Pod or Secret, a deleted bootstrap token, a
 *   token file line removed (file changes need a restart anyway) keep working for at most
 *   `successTtlMs` (10 s) after the deletion. A token refused is refused again at once and
 *   re-checked each time (failure TTL 0), so a newly created account works at once.
 * - Bounded: at most `maxEntries` entries; the oldest go first.
 *
 * The webhook token method keeps its own cache (--authentication-token-webhook-cache-ttl, which
 * also caches denials); this one sits in front of every method and does not replace it.
 */
import { hash, randomBytes } from 'node:crypto';
import { AuthenticationFailure, type Authenticated, type TokenAuthenticator } from './authentication.js';

export interface TokenCacheOptions {
  /** How long an accepted token's user is remembered; the established default is 10 s. */
  successTtlMs: number;
  /** How long a refused or unrecognised token is remembered; the established default is 0 (never). */
  failureTtlMs: number;
  /** Entries kept at most (oldest dropped first). */
  maxEntries?: number;
  /** The clock (tests). */
  now?: () => number;
}

/** The established defaults (kube-apiserver's TokenSuccessCacheTTL and TokenFailureCacheTTL). */
export const DEFAULT_TOKEN_CACHE: Readonly<TokenCacheOptions> = { successTtlMs: 10_000, failureTtlMs: 0 };

type Answer = { ok: true; found: Authenticated } | { ok: false; found: null } | { ok: false; failure: AuthenticationFailure };

const DEFAULT_MAX_ENTRIES = 4096;

export class TokenCache implements TokenAuthenticator {
  readonly name: string;
  private readonly secret = randomBytes(32).toString('base64');
  private readonly entries = new Map<string, { answer: Answer; expires: number }>();
  private readonly pending = new Map<string, Promise<Answer>>();
  private readonly now: () => number;
  private readonly max: number;
  /** Checks answered from the cache and checks that ran the methods (metrics, tests). */
  hits = 0;
  misses = 0;

  constructor(
    private readonly inner: TokenAuthenticator,
    private readonly opts: TokenCacheOptions = DEFAULT_TOKEN_CACHE,
  ) {
    this.name = inner.name;
    this.now = opts.now ?? Date.now;
    this.max = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  }

  async authenticateToken(token: string, audiences?: readonly string[]): Promise<Authenticated | null> {
    const key = this.keyOf(token, audiences);
    const cached = this.lookup(key);
    let answer: Answer;
    if (cached) {
      this.hits++;
      answer = cached;
    } else {
      let running = this.pending.get(key);
      if (!running) {
        this.misses++;
        running = this.check(key, token, audiences).finally(() => this.pending.delete(key));
        this.pending.set(key, running);
      }
      answer = await running;
    }
    if (answer.ok) return answer.found;
    if ('failure' in answer) throw answer.failure;
    return null;
  }

  /** Entries held now (tests). */
  get size(): number {
    return this.entries.size;
  }

  private async check(key: string, token: string, audiences: readonly string[] | undefined): Promise<Answer> {
    let answer: Answer;
    try {
      const found = await this.inner.authenticateToken(token, audiences);
      answer = found ? { ok: true, found } : { ok: false, found: null };
    } catch (err) {
      // A store or a remote that could not answer is not a verdict on the token: never cached.
      if (!(err instanceof AuthenticationFailure)) throw err;
      answer = { ok: false, failure: err };
    }
    const ttl = answer.ok ? this.opts.successTtlMs : this.opts.failureTtlMs;
    if (ttl > 0) {
      this.entries.delete(key);
      this.entries.set(key, { answer, expires: this.now() + ttl });
      while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
    }
    return answer;
  }

  private lookup(key: string): Answer | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.answer;
  }

  /** SHA-256 over the secret, the audiences (length-prefixed, so `a,b` and `a` + `,b` differ) and the token. */
  private keyOf(token: string, audiences: readonly string[] | undefined): string {
    let aud = '-';
    if (audiences !== undefined) {
      aud = '';
      for (const a of audiences) aud += `${Buffer.byteLength(a)}:${a}`;
    }
    return hash('sha256', `${this.secret}\0${aud}\0${token}`, 'base64');
  }
}
