/**
 * The `extension-apiserver-authentication` ConfigMap in `svc-system`: how this server
 * authenticates clients, published for the servers that delegate to it (extension API servers,
 * the components' secure ports) so they trust the same client certificates and proxy. Written at
 * start, as established, with these keys:
 *
 * - `client-ca-file`: the --client-ca-file bundle (when set);
 * - `requestheader-client-ca-file`, and the JSON string lists `requestheader-username-headers`,
 *   `requestheader-group-headers`, `requestheader-extra-headers-prefix`,
 *   `requestheader-allowed-names` (when --requestheader-client-ca-file is set).
 *
 * A server with neither leaves no ConfigMap behind, and empties one an earlier start left, so a
 * CA taken out of the flags is no longer published as trusted. A failed write is retried in the
 * background (the store may still be coming up) and never stops the server.
 */
import type { Logger } from 'pino';
import type { ResourceDefinition, SvcObject } from '../../api/types.js';
import { prepareForCreate, prepareForUpdate, validateOrThrow } from '../object-rules.js';
import type { ResourceStore } from '../resource-store.js';
import type { AuthenticationConfig } from './config.js';

export const EXTENSION_AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';
export const EXTENSION_AUTHENTICATION_NAMESPACE = 'svc-system';
const RETRY_MS = 10_000;

/** The ConfigMap's data for `config` (empty: nothing to publish). */
export function extensionAuthenticationData(config: AuthenticationConfig): Record<string, string> {
  const data: Record<string, string> = {};
  if (config.x509) data['client-ca-file'] = config.x509.clientCA;
  const rh = config.requestHeader;
  if (rh) {
    data['requestheader-username-headers'] = JSON.stringify(rh.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(rh.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(rh.extraHeaderPrefixes);
    data['requestheader-client-ca-file'] = rh.clientCA;
    data['requestheader-allowed-names'] = JSON.stringify(rh.allowedNames);
  }
  return data;
}

async function write(def: ResourceDefinition, store: ResourceStore, data: Record<string, string>, now: number): Promise<void> {
  const existing = await store.getForUpdate(EXTENSION_AUTHENTICATION_NAMESPACE, EXTENSION_AUTHENTICATION_CONFIGMAP);
  if (!existing) {
    if (Object.keys(data).length === 0) return;
    const obj: SvcObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: EXTENSION_AUTHENTICATION_CONFIGMAP, namespace: EXTENSION_AUTHENTICATION_NAMESPACE }, data };
    prepareForCreate(def, obj, now);
    validateOrThrow(def, obj);
    await store.create(obj, false);
    return;
  }
  const next = store.draft(existing);
  next['data'] = data;
  prepareForUpdate(def, next, existing.object);
  validateOrThrow(def, next, existing.object);
  const { value, unchanged } = store.encode(next, existing);
  if (!unchanged) await store.replace(next, value, existing.revision, false);
}

/** Writes the ConfigMap now; on failure keeps trying every 10 s in the background. Returns a stop function. */
export async function publishExtensionAuthentication(
  config: AuthenticationConfig,
  configMaps: { def: ResourceDefinition; store: ResourceStore },
  now: () => number,
  logger: Logger,
): Promise<() => void> {
  const data = extensionAuthenticationData(config);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const attempt = async (): Promise<void> => {
    try {
      await write(configMaps.def, configMaps.store, data, now());
    } catch (err) {
      logger.warn({ err }, `writing ${EXTENSION_AUTHENTICATION_NAMESPACE}/${EXTENSION_AUTHENTICATION_CONFIGMAP} failed; retrying in ${RETRY_MS / 1000}s`);
      if (stopped) return;
      timer = setTimeout(() => void attempt(), RETRY_MS);
      timer.unref();
    }
  };
  await attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
