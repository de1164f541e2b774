/**
 * Bootstrap tokens (--enable-bootstrap-token-auth): short-lived tokens a new node uses to join,
 * kept as Secrets, as established:
 *
 * - the token is `<id>.<secret>`, id `[a-z0-9]{6}`, secret `[a-z0-9]{16}`;
 * - its Secret is `bootstrap-token-<id>` in `svc-system`, of type `bootstrap.svc.io/token`, with
 *   `token-id` and `token-secret` equal to the token's halves (the secret compared in constant
 *   time), `usage-bootstrap-authentication: "true"` and, optionally, `expiration` (RFC 3339; a
 *   token past it, or with one that does not parse, is refused) and `auth-extra-groups`
 *   (comma-separated, each `system:bootstrappers:...`);
 * - the user is `system:bootstrap:<id>` in `system:bootstrappers` and the extra groups.
 *
 * A token of the right shape that no valid Secret matches is not recognised (`null`), as the
 * established method answers, so the chain's 401 follows; only malformed extra groups in a matching
 * Secret are a failure of this method.
 */
import { timingSafeEqual } from 'node:crypto';
import type { SvcObject } from '../../api/types.js';
import { type Authenticated, AuthenticationFailure, type TokenAuthenticator } from './authentication.js';

import {
  BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE, BOOTSTRAP_USER_PREFIX, BOOTSTRAPPERS_GROUP, bootstrapSecretData as dataOf,
} from '../../api/bootstrap-token-format.js';

export { BOOTSTRAP_TOKEN_NAMESPACE, BOOTSTRAP_TOKEN_SECRET_PREFIX, BOOTSTRAP_TOKEN_SECRET_TYPE, BOOTSTRAP_USER_PREFIX, BOOTSTRAPPERS_GROUP } from '../../api/bootstrap-token-format.js';

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

/** Reads a Secret of `svc-system` (the server's store, through its watch cache). */
export type SecretLookup = (name: string) => Promise<SvcObject | undefined>;

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = 'bootstrap-token';
  constructor(
    private readonly secrets: SecretLookup,
    private readonly now: () => number = Date.now,
    private readonly onRefused: (secret: string, why: string) => void = () => {},
  ) {}

  async authenticateToken(token: string): Promise<Authenticated | null> {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const [, id, secretPart] = m as unknown as [string, string, string];
    const name = `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
    const secret = await this.secrets(name);
    const refuse = (why: string): null => {
      this.onRefused(name, why);
      return null;
    };
    if (!secret) return refuse('no such secret');
    if (secret.metadata.deletionTimestamp) return refuse('the secret is being deleted');
    if (secret['type'] !== BOOTSTRAP_TOKEN_SECRET_TYPE) return refuse(`the secret is not of type ${BOOTSTRAP_TOKEN_SECRET_TYPE}`);
    const data = dataOf(secret);
    if (!sameSecret(data['token-secret'] ?? '', secretPart)) return refuse('token-secret does not match');
    if (data['token-id'] !== id) return refuse('token-id does not match');
    const expiration = data['expiration'];
    if (expiration !== undefined) {
      const at = Date.parse(expiration);
      if (!Number.isFinite(at) || !/^\d{4}-\d\d-\d\dT/.test(expiration)) return refuse(`expiration ${JSON.stringify(expiration)} is not an RFC 3339 time`);
      if (at <= this.now()) return refuse(`expired at ${expiration}`);
    }
    if (data['usage-bootstrap-authentication'] !== 'true') return refuse('usage-bootstrap-authentication is not "true"');
    const groups = [BOOTSTRAPPERS_GROUP];
    for (const g of (data['auth-extra-groups'] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      if (!EXTRA_GROUP.test(g)) throw new AuthenticationFailure(this.name, `bootstrap secret ${name}: auth-extra-groups ${JSON.stringify(g)} must match ${EXTRA_GROUP.source}`);
      if (!groups.includes(g)) groups.push(g);
    }
    return { user: { username: `${BOOTSTRAP_USER_PREFIX}${id}`, groups } };
  }
}

/** Constant-time comparison, so the time taken does not tell how much of a guess was right. */
function sameSecret(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
