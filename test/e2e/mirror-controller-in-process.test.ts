// The mirror controller (docs/examples/mirror-controller.ts) with the API server started in this
// process and both the controller and the test calling its request pipeline in-process (no socket):
// the same scenario as over HTTPS (test/e2e/mirror-controller.test.ts).
import { suite } from 'uvu';
import { connectInProcess, type InProcessConnection } from '../../src/cli/in-process-client.js';
import { startInProcessApiServer, type InProcessApiServer } from '../helpers/in-process-apiserver.js';
import { mirrorScenario } from '../helpers/mirror-scenario.js';

const inProcess = suite('mirror controller in-process');
let api: InProcessApiServer;
const conns: InProcessConnection[] = [];

mirrorScenario(inProcess, {
  async setUp() {
    api = await startInProcessApiServer();
    const controller = connectInProcess(api.server, { user: { username: 'system:svc-controller-manager', groups: ['system:authenticated'] } });
    const user = connectInProcess(api.server);
    conns.push(controller, user);
    return { controller: controller.client, user: user.client };
  },
  async tearDown() {
    for (const c of conns) await c.close();
    await api?.stop();
  },
});

inProcess.run();
