/**
 * The client configuration file (`--svcconfig`): YAML in the established kubeconfig shape
 * (`clusters`, `users`, `contexts`, `current-context`), and `--master` overriding the server.
 *
 * Read from a cluster: `server`, `certificate-authority` / `certificate-authority-data`,
 * `insecure-skip-tls-verify`, `tls-server-name`. From a user: `client-certificate` / `-data`,
 * `client-key` / `-data`, `token`, `token-file`. Relative file paths are relative to the file's
 * folder (as the established tools resolve them); `-data` fields are base64 PEM and win over the
 * file fields. The token file is read when the configuration is loaded (a missing one is an error
 * then) and again by the transport once the token is a minute old (FileTokenSource).
 *
 * Which setting wins: `--master` > the context's cluster `server`. With only `--master`, the
 * client trusts the system CAs and sends no credentials.
 *
 * Every error is a `ClientConfigError` naming the file and the missing or malformed piece.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';

/** What a transport needs to reach and authenticate to one API server. */
export interface ClientConfig {
  /** Base URL, e.g. `https://127.0.0.1:6443` (no trailing slash). */
  server: string;
  tls: {
    /** PEM CA bundle to trust instead of the system CAs. */
    ca?: string;
    /** PEM client certificate and key (both or neither). */
    cert?: string;
    key?: string;
    /** Skip server certificate verification (`insecure-skip-tls-verify`). Default false. */
    insecureSkipVerify: boolean;
    /** SNI and the name the certificate is checked against, when not the server's host. */
    serverName?: string;
  };
  /** Bearer token sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Absolute path of `token-file` (when the token came from one): re-read once a minute. */
  tokenFile?: string;
  /** Where this came from (the file and context, or `--master`), for messages. */
  source: string;
}

export interface LoadClientConfigOptions {
  /** Path of the configuration file (`--svcconfig`). */
  svcconfig?: string;
  /** API server address (`--master`); overrides the file's server. */
  master?: string;
  /** Context to use instead of `current-context`. */
  context?: string;
}

export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}

type Entry = Record<string, unknown>;

/** Loads the configuration `--svcconfig` and `--master` describe. */
export function loadClientConfig(opts: LoadClientConfigOptions): ClientConfig {
  if (opts.svcconfig) {
    const cfg = parseSvcconfigFile(opts.svcconfig, opts.context);
    if (opts.master) return { ...cfg, server: normaliseServer(opts.master, '--master'), source: `${cfg.source}, server from --master` };
    return cfg;
  }
  if (opts.master) return { server: normaliseServer(opts.master, '--master'), tls: { insecureSkipVerify: false }, source: '--master' };
  throw new ClientConfigError('no API server given: pass --svcconfig (a client configuration file) or --master (the server address)');
}

/** Parses one configuration file, using `context` or the file's `current-context`. */
/**
 * A PEM a client-configuration entry gives as `<field>-data` (base64) or as a path `<field>`
 * (relative to `base`, the file's folder); undefined when neither is set. `fail` throws with a
 * message naming `owner` when the file cannot be read.
 */
export function readConfigPem(entry: Record<string, unknown>, field: string, base: string, owner: string, fail: (message: string) => never): string | undefined {
  const data = entry[`${field}-data`];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64').toString('utf8');
  const path = entry[field];
  if (typeof path !== 'string' || !path) return undefined;
  const full = isAbsolute(path) ? path : resolve(base, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (err) {
    return fail(`${owner}: cannot read ${field} ${full}: ${(err as Error).message}`);
  }
}

export function parseSvcconfigFile(file: string, context?: string): ClientConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ClientConfigError(`svcconfig ${file}: cannot read the file: ${(err as Error).message}`);
  }
  return parseSvcconfig(text, file, context);
}

/** Parses configuration text; `file` names it in errors and anchors relative paths. */
export function parseSvcconfig(text: string, file: string, context?: string): ClientConfig {
  const fail = (what: string): never => {
    throw new ClientConfigError(`svcconfig ${file}: ${what}`);
  };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return fail(`not valid YAML: ${(err as Error).message}`);
  }
  if (!isEntry(doc)) return fail('expected a mapping with clusters, users and contexts');

  const contextName = context ?? str(doc['current-context']);
  if (!contextName) return fail('no current-context set and no context chosen');
  const ctx = named(doc, 'contexts', 'context', contextName, fail);
  const clusterName = str(ctx['cluster']) ?? fail(`context "${contextName}" names no cluster`);
  const cluster = named(doc, 'clusters', 'cluster', clusterName, fail);
  const userName = str(ctx['user']);
  const user = userName ? named(doc, 'users', 'user', userName, fail) : {};

  const base = dirname(resolve(file));
  const readPem = (entry: Entry, field: string, owner: string): string | undefined => readConfigPem(entry, field, base, owner, fail);

  const clusterOwner = `cluster "${clusterName}"`;
  const userOwner = `user "${userName ?? ''}"`;
  const server = normaliseServer(str(cluster['server']) ?? fail(`${clusterOwner} has no server`), `svcconfig ${file}: ${clusterOwner} server`);
  const insecure = cluster['insecure-skip-tls-verify'] === true;
  const ca = readPem(cluster, 'certificate-authority', clusterOwner);
  if (insecure && ca) fail(`${clusterOwner}: certificate-authority and insecure-skip-tls-verify are mutually exclusive`);
  const cert = readPem(user, 'client-certificate', userOwner);
  const key = readPem(user, 'client-key', userOwner);
  if (cert && !key) fail(`${userOwner} has client-certificate but no client-key`);
  if (key && !cert) fail(`${userOwner} has client-key but no client-certificate`);
  let token = str(user['token']);
  const tokenFile = str(user['token-file']);
  let tokenPath: string | undefined;
  if (!token && tokenFile) {
    const full = isAbsolute(tokenFile) ? tokenFile : resolve(base, tokenFile);
    tokenPath = full;
    try {
      token = readFileSync(full, 'utf8').trim();
    } catch (err) {
      fail(`${userOwner}: cannot read token-file ${full}: ${(err as Error).message}`);
    }
  }

  const tls: ClientConfig['tls'] = { insecureSkipVerify: insecure };
  if (ca) tls.ca = ca;
  if (cert && key) Object.assign(tls, { cert, key });
  const serverName = str(cluster['tls-server-name']);
  if (serverName) tls.serverName = serverName;
  const out: ClientConfig = { server, tls, source: `${file} (context "${contextName}")` };
  if (token) out.token = token;
  if (token && tokenPath) out.tokenFile = tokenPath;
  return out;
}

function isEntry(v: unknown): v is Entry {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Finds `{name, <inner>: {...}}` in the list `doc[list]`. */
function named(doc: Entry, list: string, inner: string, name: string, fail: (what: string) => never): Entry {
  const items = doc[list];
  if (items !== undefined && items !== null && !Array.isArray(items)) fail(`${list} must be a list`);
  const hit = ((items as unknown[] | undefined) ?? []).find((i) => isEntry(i) && i['name'] === name);
  if (!hit || !isEntry(hit)) return fail(`${inner} "${name}" not found in ${list}`);
  const body = hit[inner];
  if (!isEntry(body)) return fail(`${inner} "${name}" has no ${inner} mapping`);
  return body;
}

/** `https://host:port` without a trailing slash; a bare `host:port` means https. */
function normaliseServer(server: string, what: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ClientConfigError(`${what}: ${JSON.stringify(server)} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ClientConfigError(`${what}: ${JSON.stringify(server)} must be http or https`);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
