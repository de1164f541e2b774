/**
 * DefaultBinder (bind): POSTs a Binding to `pods/<name>/binding`, which sets `spec.nodeName` and
 * the PodScheduled condition in one write. A 409/404 (the pod changed or is gone) is an error:
 * the scheduler forgets the assumption and re-queues or drops the pod.
 */
import { resources } from '../../../client/typed.js';
import type { BindPlugin, FrameworkHandle, Plugin } from '../../framework/interfaces.js';
import { pluginError, success } from '../../framework/status.js';

export const name = 'DefaultBinder';

export function factory(_args: Readonly<Record<string, unknown>>, handle: FrameworkHandle): Plugin {
  const plugin: BindPlugin = {
    name,
    async bind(_state, pod, nodeName) {
      const meta = pod.pod.metadata;
      const binding = {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name: meta.name ?? '', namespace: meta.namespace ?? '', uid: meta.uid ?? '' },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      };
      try {
        await handle.client.subresource(resources.pods, meta.namespace ?? '', meta.name ?? '', 'binding', 'POST', binding);
        return success();
      } catch (err) {
        return pluginError(`binding ${meta.namespace}/${meta.name} to ${nodeName}: ${(err as Error).message}`);
      }
    },
  };
  return plugin;
}
