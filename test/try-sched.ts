import { startApiServer } from './helpers/apiserver.js';
import { startTestScheduler } from './helpers/scheduler.js';
import { node, pod } from './helpers/objects.js';
const server = await startApiServer();
try {
  const s = await startTestScheduler(server);
  await s.nodes.create('', node('n1', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
  await s.nodes.create('', node('n2', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' }, taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }));
  const t0 = Date.now();
  for (let i = 0; i < 3; i++) await s.pods.create('default', pod(`p${i}`, { requests: { cpu: '400m' } }));
  for (let i = 0; i < 2; i++) console.log(`p${i}`, await s.boundNode('default', `p${i}`));
  console.log('ms', Date.now() - t0);
  await new Promise((r) => setTimeout(r, 1500));
  console.log(JSON.stringify(s.running.scheduler.explanations.get('default/p2'), null, 0).slice(0, 1500));
  const p = await s.pods.get('default', 'p2');
  console.log(JSON.stringify(p.status));
  await s.nodes.create('', node('n3', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
  console.log('p2', await s.boundNode('default', 'p2'));
  // preemption
  await s.pods.create('default', pod('vip', { requests: { cpu: '900m' }, priority: 1000 }));
  await new Promise((r) => setTimeout(r, 2500));
  const vip = await s.pods.get('default', 'vip');
  console.log('vip', JSON.stringify(vip.status), vip.spec?.nodeName);
  console.log(JSON.stringify(s.running.scheduler.explanations.get('default/vip'), null, 0).slice(0, 800));
  await s.stop();
} finally {
  await server.stop();
  server.cleanup();
}
