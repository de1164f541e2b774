// docs/simulated-nodes.md as written: its profile parses into the nodes it describes, and its
// `svc nodes fault` / `recover` lines run against a real apiserver with a real `svc nodes` fleet,
// each doing what the page says.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node, Pod, PodMetrics } from '../../src/api/generated/kinds.js';
import { kubeconfigFor, kubectl } from '../helpers/kubectl.js';
import { pod } from '../helpers/objects.js';
import { resources } from '../../src/client/index.js';
import { nodeShapes, parseNodeProfile } from '../../src/nodes/index.js';
import { ROOT } from '../helpers/apiserver.js';
import { eventually, writeSvcconfig } from '../helpers/client.js';
import { startDocsWorkspace } from '../helpers/doc-examples.js';
import { realClient } from '../helpers/real-client.js';
import { startSvc, SVC_BIN } from '../helpers/svc-process.js';
import { execFileSync } from 'node:child_process';

const PAGE = readFileSync(join(ROOT, 'docs', 'simulated-nodes.md'), 'utf8');

test('the profile on the page gives the groups it describes', () => {
  const yaml = /```yaml\n([\s\S]*?)```/.exec(PAGE)?.[1];
  assert.ok(yaml, 'the page has a profile');
  const shapes = nodeShapes(parseNodeProfile(yaml!));
  assert.equal(shapes.map((s) => s.name), ['big-0', 'big-1', 'big-2', 'big-3', 'big-4', 'big-5', 'gpu-0', 'gpu-1']);
  assert.is(shapes[0]!.capacity['cpu'], '16');
  assert.is(shapes[7]!.capacity['example.com/gpu'], '4');
  assert.equal(shapes[7]!.taints, [{ key: 'gpu', value: 'true', effect: 'NoSchedule' }]);
  assert.is(shapes[7]!.podUsage, 0.5);
});

test('the fault and recover lines on the page run and do what it says', async () => {
  const ws = await startDocsWorkspace('nodes');
  const api = realClient(ws.server);
  // The page's svcconfig.yaml, in the folder its commands run from (its CA path is relative to it).
  writeFileSync(join(ws.cwd, 'svcconfig.yaml'), readFileSync(writeSvcconfig(ws.server), 'utf8').replace('certificate-authority: apiserver.crt', 'certificate-authority: data/certs/apiserver.crt'));
  const fleet = startSvc(['nodes', `--svcconfig=${join(ws.cwd, 'svcconfig.yaml')}`, '--count=2', '--node-lease-renew-interval=300ms']);
  try {
    const ready = async () => (await api.client.get<Node>(resources.nodes, '', 'sim-node-1').catch(() => undefined))?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
    await eventually(async () => (await ready()) === 'True', 20_000, 'sim-node-1 Ready');
    const block = /## Faults[\s\S]*?```sh\n([\s\S]*?)```/.exec(PAGE)?.[1];
    const lines = (block ?? '').split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l.startsWith('svc nodes'));
    assert.is(lines.length, 4, 'the page shows four commands');
    const expected = ['faults memory-pressure,not-ready', 'faults memory-pressure,not-ready,stop-heartbeats', 'faults none', 'faults none'];
    for (const [i, line] of lines.entries()) {
      const args = line.split(/\s+/).slice(1);
      const out = execFileSync(process.execPath, [SVC_BIN, ...args], { cwd: ws.cwd, encoding: 'utf8' });
      assert.match(out, `sim-node-1: ${expected[i]}`, line);
      if (i === 0) await eventually(async () => (await ready()) === 'False', 5_000, 'NotReady after the first line');
    }
    await eventually(async () => (await ready()) === 'True', 5_000, 'Ready again after recover');

    // "Resource usage": the kubectl lines, against a running pod named web.
    await api.client.create(resources.pods, 'default', pod('web', { nodeName: 'sim-node-0', requests: { cpu: '500m', memory: '256Mi' } }));
    await eventually(async () => (await api.client.get<Pod>(resources.pods, 'default', 'web')).status?.phase === 'Running', 10_000, 'web Running');
    const usage = /## Resource usage[\s\S]*?```sh\n([\s\S]*?)```/.exec(PAGE)?.[1] ?? '';
    const kubeLines = usage.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('kubectl '));
    assert.is(kubeLines.length, 2, 'the usage block shows two kubectl lines');
    const config = kubeconfigFor({ url: ws.server.url, caFile: ws.server.caFile });
    assert.is((await kubectl(config, kubeLines[0]!.split(/\s+/).slice(1))).code, 0, kubeLines[0]);
    let raw = '';
    await eventually(async () => {
      const r = await kubectl(config, kubeLines[1]!.split(/\s+/).slice(1));
      raw = r.stdout;
      return r.code === 0;
    }, 10_000, 'PodMetrics of web');
    const metrics = JSON.parse(raw) as PodMetrics;
    assert.equal(metrics.containers, [{ name: 'c', usage: { cpu: '750m', memory: '307200Ki' } }]);
    assert.is(await fleet.stop('SIGTERM'), 0, fleet.output());
  } finally {
    await fleet.stop('SIGKILL');
    await api.close();
    await ws.stop();
  }
});

test.run();
