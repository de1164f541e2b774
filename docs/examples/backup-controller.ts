// A ConfigMap backup, written with defineController and the helpers of svc/runtime: every ConfigMap
// labelled `replicate=true` has a copy `<namespace>.<name>` in the `backups` namespace, kept in
// step with it by server-side apply (one write, no read: the copy holds exactly what this
// controller owns). A copy outlives its source: it is a backup. A failure is recorded as an Event;
// success is not (each Event is one more write against the client's rate limit).
import { isNotFound, resources, defineController, done } from 'svc';

export const BACKUP_NAMESPACE = 'backups';
export const FIELD_MANAGER = 'configmap-backup';

export const backupController = defineController({
  name: 'configmap-backup',
  watches: resources.configmaps,
  selector: { labelSelector: 'replicate=true' },
  concurrency: 8,
  // Server-side apply of the copies: a patch that creates them the first time.
  permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch'] }],
  async reconcile(_key, { object, namespace, name, client, recorder }) {
    if (!object) return done(); // source gone: its backup stays
    try {
      await client.apply(
        resources.configmaps,
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `${namespace}.${name}`, namespace: BACKUP_NAMESPACE, labels: { 'backup.svc.io/source-namespace': namespace ?? '' } },
          data: { ...(object.data ?? {}) },
        },
        { fieldManager: FIELD_MANAGER, force: true },
      );
    } catch (e) {
      if (isNotFound(e)) void recorder.event(object, 'Warning', 'BackupFailed', `namespace ${BACKUP_NAMESPACE} does not exist`);
      throw e;
    }
    return done();
  },
});
