// The mirror controller (docs/examples/mirror-controller.ts) against the real apiserver process
// over HTTPS, with the project's own client and shared informers.
import { suite } from 'uvu';
import { startApiServer, type ApiServerProcess } from '../helpers/apiserver.js';
import { mirrorScenario } from '../helpers/mirror-scenario.js';
import { realClient } from '../helpers/real-client.js';

const https = suite('mirror controller over HTTPS');
let server: ApiServerProcess;
const conns: Array<{ close(): Promise<void> }> = [];

mirrorScenario(https, {
  async setUp() {
    server = await startApiServer();
    const controller = realClient(server);
    const user = realClient(server);
    conns.push(controller, user);
    return { controller: controller.client, user: user.client };
  },
  async tearDown() {
    for (const c of conns) await c.close();
    await server?.stop();
    server?.cleanup();
  },
});

https.run();
