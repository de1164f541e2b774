// A ConfigMap "mirror", written with defineController: every ConfigMap labelled `mirror=true` is
// copied into every other namespace, new namespaces included. Copies carry the label
// `mirror.svc.io/source=<namespace>.<name>`; they follow the source's data and go away when the
// source is deleted or loses its label. Every reconcile reads the caches, never GETs.
import { defineController, done, isConflict, isForbidden, isNotFound, resources, TerminalError, type IndexedCache } from 'svc';
import type { ConfigMap } from 'svc/kinds';

export const MIRROR_LABEL = 'mirror';
export const SOURCE_LABEL = 'mirror.svc.io/source';

const isSource = (cm: ConfigMap | undefined): cm is ConfigMap => cm?.metadata.labels?.[MIRROR_LABEL] === 'true';
/** `<namespace>.<name>`: a namespace name has no dots, so the first dot splits it again. */
const sourceId = (namespace: string, name: string) => `${namespace}.${name}`;
const sourceKeyOf = (id: string) => id.replace('.', '/');
/** Keys of every source ConfigMap in the cache (a new namespace needs all of them). */
const allSources = (cache: IndexedCache<ConfigMap>) => cache.list().filter(isSource).map((cm) => `${cm.metadata.namespace}/${cm.metadata.name}`);
const sameData = (a: ConfigMap, b: ConfigMap) => JSON.stringify(a.data ?? {}) === JSON.stringify(b.data ?? {});

export const mirrorController = defineController({
  name: 'configmap-mirror',
  watches: resources.configmaps,
  triggers: [
    // A copy changed or was deleted: look at its source again.
    { resource: resources.configmaps, keysFor: (cm) => (cm.metadata.labels?.[SOURCE_LABEL] ? [sourceKeyOf(cm.metadata.labels[SOURCE_LABEL])] : []) },
    // A namespace came (or went): every source has a copy to make.
    { resource: resources.namespaces, keysFor: (_ns, configmaps) => allSources(configmaps) },
  ],
  concurrency: 2,
  // The copies are ConfigMaps it writes without owning them (no ownerReference across namespaces).
  permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update', 'delete'] }],
  async reconcile(key, { object, namespace, name, cache, cacheOf, client, recorder, logger }) {
    const id = sourceId(namespace!, name);

    if (!isSource(object)) {
      // Deleted or unlabelled (or never a source): its copies go.
      const copies = cache.list().filter((cm) => cm.metadata.labels?.[SOURCE_LABEL] === id);
      for (const copy of copies) await deleteIfThere(copy);
      if (copies.length) logger.info({ removed: copies.length }, 'removed copies');
      if (object && copies.length) await recorder.event(object, 'Normal', 'Unmirrored', `removed ${copies.length} copies`);
      return done();
    }

    if (id.length > 63) {
      // A label value holds 63 characters at most: say so once, do not retry.
      await recorder.event(object, 'Warning', 'NameTooLong', `"${id}" does not fit the ${SOURCE_LABEL} label (63 characters)`);
      throw new TerminalError(`${key}: "${id}" is too long for a label value`);
    }
    const targets = cacheOf(resources.namespaces)
      .list()
      .filter((ns) => ns.metadata.name !== namespace && !ns.metadata.deletionTimestamp)
      .map((ns) => ns.metadata.name!);
    let written = 0;
    for (const target of targets) {
      const existing = cache.get(`${target}/${name}`);
      const wanted: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: target, labels: { [SOURCE_LABEL]: id }, ...(existing ? { resourceVersion: existing.metadata.resourceVersion } : {}) },
        data: object.data ?? {},
      };
      if (existing && existing.metadata.labels?.[SOURCE_LABEL] !== id) {
        // Someone else's ConfigMap of that name: never overwrite it.
        await recorder.event(object, 'Warning', 'NameTaken', `${target}/${name} exists and is not a copy of ${key}`);
        continue;
      }
      if (existing && sameData(existing, wanted)) continue;
      try {
        if (existing) await client.update(resources.configmaps, target, wanted);
        else await client.create(resources.configmaps, target, wanted);
        written++;
      } catch (e) {
        // The cache was behind (409) or the namespace is going (403/404): the watch events that
        // follow queue this key again.
        if (isConflict(e) || isForbidden(e) || isNotFound(e)) continue;
        throw e;
      }
    }
    if (written) {
      logger.info({ written }, 'mirrored');
      await recorder.event(object, 'Normal', 'Mirrored', `wrote ${written} copies`);
    }
    return done();

    async function deleteIfThere(copy: ConfigMap) {
      try {
        await client.delete(resources.configmaps, copy.metadata.namespace!, copy.metadata.name!, { preconditions: { uid: copy.metadata.uid! } });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
    }
  },
});

/** `svc run docs/examples/mirror-controller.js` runs the default export. */
export default mirrorController;
