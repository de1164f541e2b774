/**
 * Serving certificates from the TLS flags (spec "TLS options (all four)").
 *
 * - --tls-cert-file + --tls-private-key-file: read as given (both or neither).
 * - neither: a self-signed CA and a serving certificate (ECDSA P-256, one year) are generated into
 *   --cert-dir as `<component>.crt` (serving cert followed by the CA cert) and `<component>.key`
 *   on first start, and read back unchanged on later starts.
 * - --tls-min-version VersionTLS12 / VersionTLS13 -> node's 'TLSv1.2' / 'TLSv1.3'. VersionTLS10 and
 *   VersionTLS11 are refused at start, naming why: TLS 1.0 and 1.1 are insecure, and the TLS library
 *   here (OpenSSL 3 at its default security level) cannot negotiate them, so accepting the value
 *   would promise clients a protocol the server never speaks.
 * - --tls-cipher-suites: the established (Go) IANA-style names mapped to OpenSSL names. TLS 1.3
 *   suites cannot be switched off in Go; to match, node's default TLS 1.3 suites are always kept in
 *   the `ciphers` string unless TLS 1.3 names are listed explicitly. The suites the established
 *   library lists as insecure (RC4, 3DES, CBC with SHA-256 MACs) are refused by name (the
 *   established server only warns; RC4 and 3DES could not be negotiated here anyway). RSA
 *   key-exchange suites need an RSA certificate (the generated one is ECDSA).
 * - --tls-sni-cert-key: names from explicit patterns, else the cert's CN and SANs. Precedence:
 *   explicit names beat extracted names for the same name; exact names beat wildcards on lookup.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import type { ServingCertificates } from '../apiserver/config.js';
import type { NamedCertKey } from './flag-types.js';
import { createCertificateAuthority, issueServingCertificate } from './pki.js';

export type { ServingCertificates };

/** A TLS configuration problem; the message names the flag. */
export class TlsConfigError extends Error {}

const TLS_VERSIONS = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
} as const;

/** The versions refused as insecure. */
const INSECURE_TLS_VERSIONS = new Set(['VersionTLS10', 'VersionTLS11']);

/**
 * The cipher suites the established TLS library lists as insecure (its InsecureCipherSuites):
 * refused, with the reason.
 */
export const INSECURE_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4 is broken',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'RC4 is broken',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'RC4 is broken',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: '3DES is open to Sweet32 attacks',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: '3DES is open to Sweet32 attacks',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'CBC with SHA-256 is open to Lucky13 timing attacks',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'CBC with SHA-256 is open to Lucky13 timing attacks',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'CBC with SHA-256 is open to Lucky13 timing attacks',
};

/** VersionTLS12 / VersionTLS13 -> node's minVersion; empty -> undefined; TLS 1.0/1.1 refused. */
export function mapTlsMinVersion(v: string | undefined): ServingCertificates['minVersion'] {
  if (!v) return undefined;
  if (INSECURE_TLS_VERSIONS.has(v)) {
    throw new TlsConfigError(
      `invalid value ${JSON.stringify(v)} for --tls-min-version: TLS 1.0 and 1.1 are insecure and this server's TLS library does not negotiate them; use VersionTLS12 (the default) or VersionTLS13`,
    );
  }
  const mapped = (TLS_VERSIONS as Record<string, ServingCertificates['minVersion']>)[v];
  if (!mapped) {
    throw new TlsConfigError(`invalid value ${JSON.stringify(v)} for --tls-min-version: expected one of ${Object.keys(TLS_VERSIONS).join(', ')}`);
  }
  return mapped;
}

/** Established cipher-suite names -> OpenSSL names. */
export const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
};

const TLS13_SUITES = ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'];

/** --tls-cipher-suites -> OpenSSL cipher string; [] -> undefined (node's defaults). */
export function mapCipherSuites(names: string[]): string | undefined {
  if (names.length === 0) return undefined;
  const out: string[] = [];
  for (const n of names) {
    const o = CIPHER_SUITES[n];
    if (!o) {
      throw new TlsConfigError(
        `invalid value ${JSON.stringify(n)} for --tls-cipher-suites: unknown cipher suite; e.g. --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`,
      );
    }
    const insecure = INSECURE_CIPHER_SUITES[n];
    if (insecure) {
      throw new TlsConfigError(
        `invalid value ${JSON.stringify(n)} for --tls-cipher-suites: insecure cipher suite (${insecure}); choose AEAD suites, e.g. --tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`,
      );
    }
    if (!out.includes(o)) out.push(o);
  }
  if (!out.some((o) => TLS13_SUITES.includes(o))) out.unshift(...TLS13_SUITES);
  return out.join(':');
}

export interface ServingCertificateOptions {
  certFile?: string;
  keyFile?: string;
  /** Where a generated self-signed pair is kept; '' keeps it in memory only. */
  certDir: string;
  sniCertKeys: NamedCertKey[];
  /** --tls-min-version value, e.g. 'VersionTLS12'. */
  minVersion?: string;
  cipherSuites?: string[];
  /** SANs for a generated certificate: IPs and DNS names (127.0.0.1, ::1, localhost, hostname ...). */
  hosts: string[];
  /** File base name of the generated pair: `<component>.crt` / `<component>.key`. */
  component: string;
}

/** Reads or generates the serving certificate and SNI certificates described by the TLS flags. */
export async function loadServingCertificates(o: ServingCertificateOptions): Promise<ServingCertificates> {
  const minVersion = mapTlsMinVersion(o.minVersion);
  const ciphers = mapCipherSuites(o.cipherSuites ?? []);
  let cert: string;
  let key: string;
  if (o.certFile || o.keyFile) {
    if (!o.certFile || !o.keyFile) {
      throw new TlsConfigError('--tls-cert-file and --tls-private-key-file must be given together');
    }
    cert = await readPem(o.certFile, '--tls-cert-file');
    key = await readPem(o.keyFile, '--tls-private-key-file');
    checkPair(cert, key, `--tls-cert-file ${o.certFile} and --tls-private-key-file ${o.keyFile}`);
  } else if (o.certDir === '') {
    // No --cert-dir (the default of the daemons other than the API server): keep it in memory.
    ({ cert, key } = await generateSelfSignedPair(o.hosts));
  } else {
    ({ cert, key } = await ensureSelfSignedCertificate(o.certDir, o.component, o.hosts));
  }
  const sni = await loadSniCertificates(o.sniCertKeys);
  const out: ServingCertificates = { cert, key, sni };
  if (minVersion) out.minVersion = minVersion;
  if (ciphers) {
    out.ciphers = ciphers;
    try {
      createSecureContext({ ciphers });
    } catch (e) {
      throw new TlsConfigError(`--tls-cipher-suites: none of the listed suites is available here (${(e as Error).message})`);
    }
  }
  if (sni.length) {
    out.sniCallback = createSniCallback(out);
    out.sniCallbackWithClientCA = (clientCA) => createSniCallback(out, clientCA);
  }
  return out;
}

async function readPem(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new TlsConfigError(`${flag}: cannot read ${path}: ${(e as Error).message}`);
  }
}

function checkPair(cert: string, key: string, what: string): void {
  try {
    createSecureContext({ cert, key });
  } catch (e) {
    throw new TlsConfigError(`${what} do not form a usable certificate and key: ${(e as Error).message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// self-signed generation

/**
 * Returns `<certDir>/<component>.crt|.key`, generating a CA and serving pair first when either
 * file is missing. Existing files are returned byte for byte.
 */
export async function ensureSelfSignedCertificate(
  certDir: string,
  component: string,
  hosts: string[],
): Promise<{ cert: string; key: string; certPath: string; keyPath: string }> {
  const certPath = join(certDir, `${component}.crt`);
  const keyPath = join(certDir, `${component}.key`);
  if (existsSync(certPath) && existsSync(keyPath)) {
    const cert = await readFile(certPath, 'utf8');
    const key = await readFile(keyPath, 'utf8');
    checkPair(cert, key, `${certPath} and ${keyPath}`);
    return { cert, key, certPath, keyPath };
  }
  const { cert, key } = await generateSelfSignedPair(hosts);
  try {
    await mkdir(certDir, { recursive: true, mode: 0o755 });
    await writeFile(keyPath, key, { mode: 0o600 });
    await writeFile(certPath, cert, { mode: 0o644 });
  } catch (e) {
    throw new TlsConfigError(
      `--cert-dir ${certDir}: cannot write the self-signed certificate (${(e as Error).message}); pass a writable --cert-dir or --tls-cert-file and --tls-private-key-file`,
    );
  }
  return { cert, key, certPath, keyPath };
}

/** A CA plus a serving certificate for `hosts`; `cert` holds the serving cert then the CA cert. */
export async function generateSelfSignedPair(hosts: string[], now: Date = new Date()): Promise<{ cert: string; key: string; caCert: string }> {
  const first = hosts.find((h) => h !== '') ?? 'localhost';
  const ca = await createCertificateAuthority(`${first}-ca@${Math.floor(now.getTime() / 1000)}`, now);
  const serving = await issueServingCertificate(ca, hosts, now);
  return { cert: serving.cert, key: serving.key, caCert: ca.certPem };
}

// ---------------------------------------------------------------------------------------------
// SNI

/** Names a certificate answers for: its CommonName (when host-like) and DNS/IP SANs. */
export function certificateNames(certPem: string): string[] {
  const c = new X509Certificate(certPem);
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(c.subject)?.[1];
  if (cn && /^(\*\.)?[A-Za-z0-9.-]+$/.test(cn)) names.push(cn);
  for (const part of (c.subjectAltName ?? '').split(/,\s*/)) {
    const m = /^(DNS|IP Address):(.+)$/.exec(part.trim());
    if (m && !names.includes(m[2] as string)) names.push(m[2] as string);
  }
  return names;
}

async function loadSniCertificates(pairs: NamedCertKey[]): Promise<ServingCertificates['sni']> {
  // name -> index of the pair that owns it; explicit names are applied after extracted ones.
  const owner = new Map<string, number>();
  const loaded: { cert: string; key: string }[] = [];
  const explicit: [string, number][] = [];
  for (const [i, p] of pairs.entries()) {
    const cert = await readPem(p.certFile, '--tls-sni-cert-key');
    const key = await readPem(p.keyFile, '--tls-sni-cert-key');
    checkPair(cert, key, `--tls-sni-cert-key ${p.certFile},${p.keyFile}`);
    loaded.push({ cert, key });
    if (p.names.length > 0) {
      for (const n of p.names) explicit.push([n.toLowerCase(), i]);
    } else {
      for (const n of certificateNames(cert)) if (!owner.has(n.toLowerCase())) owner.set(n.toLowerCase(), i);
    }
  }
  for (const [n, i] of explicit) owner.set(n, i);
  return loaded
    .map((l, i) => ({ names: [...owner].filter(([, j]) => j === i).map(([n]) => n), cert: l.cert, key: l.key }))
    .filter((e) => e.names.length > 0);
}

/** The SNI entry for `servername`: an exact name first, then a `*.` wildcard for its parent. */
export function selectSniCertificate(
  sni: ServingCertificates['sni'],
  servername: string,
): ServingCertificates['sni'][number] | undefined {
  const host = servername.toLowerCase();
  const exact = sni.find((e) => e.names.includes(host));
  if (exact) return exact;
  const dot = host.indexOf('.');
  if (dot < 0) return undefined;
  const wildcard = `*${host.slice(dot)}`;
  return sni.find((e) => e.names.includes(wildcard));
}

/**
 * A node `SNICallback` choosing among `tls.sni`, falling back to the default certificate; with
 * `clientCA`, every context asks for client certificates from those authorities.
 */
export function createSniCallback(
  tls: ServingCertificates,
  clientCA?: string,
): (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void {
  const contexts = new Map<number, SecureContext>();
  const base = { minVersion: tls.minVersion, ciphers: tls.ciphers, ...(clientCA ? { ca: clientCA } : {}) };
  const fallback = createSecureContext({ ...base, cert: tls.cert, key: tls.key });
  return (servername, cb) => {
    const entry = selectSniCertificate(tls.sni, servername);
    if (!entry) return cb(null, fallback);
    const i = tls.sni.indexOf(entry);
    let ctx = contexts.get(i);
    if (!ctx) {
      ctx = createSecureContext({ ...base, cert: entry.cert, key: entry.key });
      contexts.set(i, ctx);
    }
    cb(null, ctx);
  };
}
