/**
 * `svc up` secure by default: what it changes in the API server's options before starting, and the
 * credentials it makes.
 *
 * - Listens on loopback (127.0.0.1) unless --bind-address is given (the `apiserver` daemon keeps
 *   the established 0.0.0.0: it is meant to be reached).
 * - Keeps its certificates in `<data-dir>/certs` unless --cert-dir is given, root or not (the
 *   `apiserver` daemon's default /var/run/svc is for a system service, not a folder of one's own).
 * - A cluster CA there (`ca.crt`, `ca.key` 0600, made once and reused), an admin client
 *   certificate from it (CN `svc-admin`, O `system:masters`; `admin.crt`/`admin.key`, reissued
 *   when close to its end), which the written admin.svcconfig carries instead of a token.
 * - Client-certificate authentication with that CA, anonymous on (as established: discovery,
 *   version and health stay readable, the rest is up to authorization), and the authorization
 *   modes of UP_AUTHORIZATION_MODES unless --authorization-mode is given.
 * - `--insecure-allow-all`: today's demo behaviour, named so nobody mistakes it: AlwaysAllow and no
 *   client authentication, with a warning in the log and in the printed block.
 *
 * The in-process components (controller manager, scheduler, simulated nodes) are not
 * authenticated here: their transport carries their identity (src/cli/in-process-client.ts).
 */
import { join } from 'node:path';
import type { AuthenticationConfig, AuthorizationMode } from '../apiserver/auth/config.js';
import type { ApiServerOptions } from './apiserver-options.js';
import { OptionsError } from './common-options.js';
import { ensureClientCertificate, ensureClusterCA, type CertificateAuthority, type KeyPair } from './pki.js';

/**
 * The authorization modes `svc up` runs with by default: the established secure default. Every
 * component runs as its own identity under them (scheduler, each built-in controller's service
 * account, each simulated node, each --controller-module controller's service account).
 */
export const UP_AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['Node', 'RBAC'];

/** The admin user of the written client configuration. */
export const UP_ADMIN = { user: 'svc-admin', groups: ['system:masters'] } as const;

export const INSECURE_ALLOW_ALL_FLAG = '--insecure-allow-all';

export const INSECURE_WARNING =
  '--insecure-allow-all: every request is allowed and no client is authenticated; anyone who can reach the port can read and change everything (for demos on a private machine only)';

export interface UpSecurity {
  insecure: boolean;
  /** The cluster CA (client certificates); absent with --insecure-allow-all. */
  ca?: CertificateAuthority;
  /** The admin client certificate written into admin.svcconfig. */
  admin: KeyPair;
}

/**
 * `options` with svc up's defaults applied (bind address, cert folder, authorization modes);
 * `explicit` is the set of flags given on the command line.
 */
export function applyUpDefaults(options: ApiServerOptions, explicit: ReadonlySet<string>, insecure: boolean): ApiServerOptions {
  if (insecure && explicit.has('--authorization-mode')) {
    throw new OptionsError(`${INSECURE_ALLOW_ALL_FLAG} and --authorization-mode cannot be combined: ${INSECURE_ALLOW_ALL_FLAG} means --authorization-mode=AlwaysAllow with no client authentication`);
  }
  const common = { ...options.common, tls: { ...options.common.tls } };
  if (!explicit.has('--bind-address')) common.bindAddress = '127.0.0.1';
  if (!explicit.has('--cert-dir')) common.tls.certDir = join(options.dataDir, 'certs');
  const modes: AuthorizationMode[] = explicit.has('--authorization-mode') ? [...options.authorization.modes] : insecure ? ['AlwaysAllow'] : [...UP_AUTHORIZATION_MODES];
  return { ...options, common, certDirIsDefault: false, authorization: { ...options.authorization, modes } };
}

/**
 * `authentication` with client certificates of the cluster CA accepted (after any --client-ca-file
 * bundle of the operator's, so both authorities verify); unchanged with --insecure-allow-all.
 */
export function withClusterClientCA(authentication: AuthenticationConfig, security: UpSecurity): AuthenticationConfig {
  if (!security.ca) return authentication;
  const given = authentication.x509?.clientCA;
  return { ...authentication, x509: { clientCA: given ? `${given.trimEnd()}\n${security.ca.certPem}` : security.ca.certPem } };
}

/** The cluster CA and the admin certificate in svc up's certificate folder (made on first start). */
export async function prepareUpCredentials(certDir: string, insecure: boolean): Promise<UpSecurity> {
  const ca = await ensureClusterCA(certDir);
  const admin = await ensureClientCertificate(ca, certDir, 'admin', { user: UP_ADMIN.user, groups: [...UP_ADMIN.groups] });
  return insecure ? { insecure, admin } : { insecure, ca, admin };
}
