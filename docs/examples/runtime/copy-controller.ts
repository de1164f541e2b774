// A controller written with defineController: every ConfigMap labelled `copy=yes` gets a copy
// named `<name>-copy`, owned by it (a controller ownerReference). Deleting or changing the copy
// queues the original again (it is `owns`), so the copy comes back.
import { resources, ApiError, defineController, done, TerminalError, type SvcObject } from 'svc';

export const copyController = defineController({
  name: 'configmap-copy',
  watches: resources.configmaps,
  selector: { labelSelector: 'copy=yes' },
  owns: [resources.configmaps],
  concurrency: 2,
  async reconcile(key, { object, namespace, name, cacheOf, client, recorder, logger }) {
    if (!object) return done(); // deleted: the copy goes with it (garbage collection by owner)
    if (name.endsWith('-copy')) throw new TerminalError(`${key}: a copy cannot itself be copied`);
    const wanted: SvcObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: `${name}-copy`,
        namespace: namespace!,
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: object.metadata.uid!, controller: true }],
      },
      data: object['data'] ?? {},
    };
    const existing = cacheOf(resources.configmaps).get(`${namespace}/${name}-copy`);
    if (existing && JSON.stringify(existing['data'] ?? {}) === JSON.stringify(wanted['data'])) return done();
    try {
      if (existing) await client.update(resources.configmaps, namespace!, { ...wanted, metadata: { ...wanted.metadata, resourceVersion: existing.metadata.resourceVersion } });
      else await client.create(resources.configmaps, namespace!, wanted);
    } catch (e) {
      // The cache was behind (409): the watch event that brings it up to date queues us again.
      if (e instanceof ApiError && e.code === 409) return done();
      throw e;
    }
    logger.info('copied');
    await recorder.event(object, 'Normal', 'Copied', `copied to ${name}-copy`);
    return done();
  },
});
