import { startApiServer } from './helpers/apiserver.js';
import { startTestScheduler } from './helpers/scheduler.js';
import { node, pod } from './helpers/objects.js';
const server = await startApiServer();
try {
  const s = await startTestScheduler(server);
  await s.nodes.create('', node('n1', { allocatable: { cpu: '1', memory: '1Gi', pods: '10' } }));
  await s.pods.create('default', pod(`p0`, { requests: { cpu: '400m' } }));
  await new Promise((r) => setTimeout(r, 2000));
  const sch = s.running.scheduler;
  console.log(sch.queue.lengths(), sch.counters, JSON.stringify(sch.explanations.get('default/p0')));
  console.log(JSON.stringify(s.running.actor.getSnapshot().value), s.running.actor.getSnapshot().context.lastResult, s.running.actor.getSnapshot().context.cycles);
  await s.stop();
} finally {
  await server.stop();
  server.cleanup();
}
