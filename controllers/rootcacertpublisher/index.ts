/**
 * The root-ca-cert-publisher controller: every active namespace has a ConfigMap `svc-root-ca.crt`
 * whose `ca.crt` is the cluster's root CA (the controller manager's --root-ca-file, else the CA of
 * its own client configuration), so pods can verify the API server: the projected volume the
 * ServiceAccount admission plugin injects mounts it (src/apiserver/admission/service-account.ts).
 *
 * - Watches: Namespaces. Triggers: ConfigMaps named `svc-root-ca.crt` (a changed or deleted one
 *   queues its namespace, which gets it back as it should be).
 * - Writes: creates the ConfigMap; when its data is not exactly `{ca.crt: <root CA>}`, replaces the
 *   data (an update with the ConfigMap's resourceVersion, so a concurrent change makes it retry).
 *   The description annotation of the established controller is set too.
 * - Guarantees: nothing is written in a namespace being deleted; other ConfigMaps are not touched.
 * - No timers, no events.
 */
import type { ConfigMap, Namespace } from '../../src/api/generated/kinds.js';
import { resources } from '../../src/client/typed.js';
import { ApiError } from '../../src/client/types.js';
import { defineController, type ControllerDefinition } from '../../src/runtime/define-controller.js';
import { done } from '../../src/runtime/outcome.js';

export const ROOT_CA_CONFIGMAP = 'svc-root-ca.crt';
export const ROOT_CA_KEY = 'ca.crt';
export const DESCRIPTION_ANNOTATION = 'svc.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the svc-apiserver when using internal endpoints such as the internal service IP or svc.default.svc. No other usage is guaranteed across distributions of svc clusters.';

export interface RootCACertPublisherOptions {
  /** The PEM bundle to publish. */
  rootCA: string;
  concurrency: number;
}

const sameData = (data: Record<string, string> | undefined, want: Record<string, string>): boolean => {
  const keys = Object.keys(data ?? {});
  return keys.length === Object.keys(want).length && keys.every((k) => data?.[k] === want[k]);
};

export function rootCACertPublisherController(o: RootCACertPublisherOptions): ControllerDefinition<Namespace> {
  const want = { [ROOT_CA_KEY]: o.rootCA };
  return defineController<Namespace>({
    name: 'root-ca-cert-publisher',
    watches: resources.namespaces,
    concurrency: o.concurrency,
    triggers: [
      {
        resource: resources.configmaps,
        keysFor: (cm) => (cm.metadata.name === ROOT_CA_CONFIGMAP && cm.metadata.namespace ? [cm.metadata.namespace] : []),
      },
    ],
    // Beyond reading what it watches: it writes the one ConfigMap of each namespace.
    permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update'] }],
    async reconcile(key, ctx) {
      const ns = ctx.object;
      if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return done();
      const cm = ctx.cacheOf<ConfigMap>(resources.configmaps).get(`${key}/${ROOT_CA_CONFIGMAP}`);
      try {
        if (!cm) {
          await ctx.client.create<ConfigMap>(resources.configmaps, key, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: ROOT_CA_CONFIGMAP, namespace: key, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
            data: { ...want },
          });
          return done();
        }
        if (sameData(cm.data, want) && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION]) return done();
        await ctx.client.update<ConfigMap>(resources.configmaps, key, {
          ...cm,
          metadata: { ...cm.metadata, annotations: { ...cm.metadata.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
          data: { ...want },
        });
      } catch (e) {
        // 409 on create: the cache is behind (the trigger queues the namespace again); the
        // namespace going away (403 terminating, 404): nothing to publish. A conflicting update retries.
        if (e instanceof ApiError && (e.code === 403 || e.code === 404 || (e.code === 409 && !cm))) return done();
        throw e;
      }
      return done();
    },
  });
}
