// Runs the mirror controller against an API server: node dist/docs/examples/run-mirror.js <svcconfig>
// A client from the svcconfig file, a shared informer factory, and definition.start(host);
// Ctrl-C (SIGINT) or SIGTERM stops it once in-flight reconciles are done.
import { connect, createInformerFactory } from 'svc';
import { mirrorController } from './mirror-controller.js';

const svcconfig = process.argv[2];
if (!svcconfig) {
  console.error('usage: node dist/docs/examples/run-mirror.js <svcconfig file>');
  process.exit(2);
}
const { client, close } = connect({ svcconfig });
const informers = createInformerFactory(client);
const running = mirrorController.start({ client, informers });

// However it ends (stopped, or caches never synced), close up and exit with a code that says which.
void running.finished.then(async (end) => {
  informers.stop();
  await close();
  process.exit(end === 'stopped' ? 0 : 1);
});
process.once('SIGINT', () => void running.stop());
process.once('SIGTERM', () => void running.stop());
