// docs/client.md's in-process example: the API server started inside this process and a client
// calling its request pipeline directly (no socket), as the all-in-one mode wires it.
// Run: node dist/docs/examples/in-process-client.js --data-dir <empty folder> [--secure-port 6444]
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { firstValueFrom, take, toArray } from 'rxjs';
import { startApiServer } from '../../src/apiserver/index.js';
import { buildApiServerConfig, createApiServerProgram, resolveApiServerOptions } from '../../src/cli/apiserver-options.js';
import { connectInProcess } from '../../src/cli/in-process-client.js';
import { explicitlySetFlags } from '../../src/cli/option-table.js';
import { ApiError, resources } from '../../src/client/index.js';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'secure-port': { type: 'string' } } });
const dataDir = values['data-dir'] ?? 'data-in-process';

// The apiserver's own flags; its HTTPS listener still serves other clients on --secure-port.
const program = createApiServerProgram();
program.parse([`--secure-port=${values['secure-port'] ?? '6444'}`, '--bind-address=127.0.0.1', `--data-dir=${dataDir}`, `--cert-dir=${join(dataDir, 'certs')}`], { from: 'user' });
const options = resolveApiServerOptions(program.opts(), explicitlySetFlags(program));
const server = await startApiServer(await buildApiServerConfig(options, pino({ level: 'warn' })));

// A client as the controller manager: same ApiClient as over HTTPS.
const { client, close } = connectInProcess(server, { user: { username: 'system:svc-controller-manager', groups: ['system:authenticated'] } });

const events = firstValueFrom(client.watch(resources.configmaps, { namespace: 'default', labelSelector: 'demo=in-process' }).pipe(take(2), toArray()));
const sent = { metadata: { name: 'demo', labels: { demo: 'in-process' } }, data: { greeting: 'hello' } };
const created = await client.create(resources.configmaps, 'default', sent);
sent.data.greeting = 'changed by the caller after the call';
created.data = { greeting: 'changed in the returned copy' };
const stored = await client.get(resources.configmaps, 'default', 'demo');
console.log(`stored greeting: ${(stored['data'] as Record<string, string>)['greeting']}`);
try {
  await client.create(resources.configmaps, 'default', { metadata: { name: 'Not Valid' } });
} catch (err) {
  if (err instanceof ApiError) console.log(`invalid object: ${err.code} ${err.reason}`);
}
await client.delete(resources.configmaps, 'default', 'demo');
console.log(`watch saw: ${(await events).map((e) => e.type).join(', ')}`);

await close();
await server.shutdown();
