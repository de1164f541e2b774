// DenyEscalatingExec and DenyExecOnPrivileged on CONNECT of pods/exec and pods/attach
// (src/apiserver/admission/deny-escalating-exec.ts, deny-exec-on-privileged.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SvcObject } from '../../../src/api/types.js';
import { denyEscalatingExec } from '../../../src/apiserver/admission/deny-escalating-exec.js';
import { denyExecOnPrivileged } from '../../../src/apiserver/admission/deny-exec-on-privileged.js';
import { admit, podAttrs, refusal } from './plugin-harness.js';

const pods: Record<string, Record<string, unknown>> = {
  plain: { containers: [{ name: 'c', image: 'x' }] },
  net: { hostNetwork: true, containers: [{ name: 'c', image: 'x' }] },
  pid: { hostPID: true, containers: [{ name: 'c', image: 'x' }] },
  ipc: { hostIPC: true, containers: [{ name: 'c', image: 'x' }] },
  priv: { initContainers: [{ name: 'i', image: 'x', securityContext: { privileged: true } }], containers: [{ name: 'c', image: 'x' }] },
};
const read = async (_ns: string, name: string): Promise<SvcObject | undefined> => (pods[name] ? { metadata: { name, namespace: 'ns' }, spec: pods[name] } : undefined);
const connect = (name: string, subresource = 'exec') => podAttrs({}, { operation: 'CONNECT', name, subresource, object: { kind: 'PodExecOptions', apiVersion: 'v1', metadata: {} } });

test('DenyEscalatingExec refuses host namespaces and privileged containers, in the established order', async () => {
  const plugin = denyEscalatingExec(read);
  await admit(plugin, connect('plain'));
  const expected: Record<string, string> = {
    net: 'cannot exec into or attach to a container using host network',
    pid: 'cannot exec into or attach to a container using host pid',
    ipc: 'cannot exec into or attach to a container using host ipc',
    priv: 'cannot exec into or attach to a privileged container',
  };
  for (const [name, why] of Object.entries(expected)) {
    for (const sub of ['exec', 'attach']) {
      const err = await refusal(admit(plugin, connect(name, sub)));
      assert.is(err.code, 403);
      assert.is(err.message, `pods "${name}" is forbidden: ${why}`);
    }
  }
  assert.is((await refusal(admit(plugin, connect('absent')))).message, 'pods "absent" is forbidden: pods "absent" not found');
  assert.not.ok(plugin.handles(connect('net', 'portforward')));
  assert.not.ok(plugin.handles(podAttrs({})));
});

test('DenyExecOnPrivileged only refuses privileged containers', async () => {
  const plugin = denyExecOnPrivileged(read);
  for (const name of ['plain', 'net', 'pid', 'ipc']) await admit(plugin, connect(name));
  assert.is((await refusal(admit(plugin, connect('priv', 'attach')))).message, 'pods "priv" is forbidden: cannot exec into or attach to a privileged container');
});

test.run();
