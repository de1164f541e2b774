// docs/client.md's example runs as documented against the real server (kept honest by this test).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT, startApiServer } from '../helpers/apiserver.js';
import { writeSvcconfig } from '../helpers/client.js';

test('the client quickstart prints what docs/client.md shows', async () => {
  const server = await startApiServer();
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'dist/docs/examples/client-quickstart.js'), '--svcconfig', writeSvcconfig(server)], {
      cwd: ROOT,
    });
    assert.equal(stdout.trim().split('\n').map((l) => l.replace(/resourceVersion \d+/, 'resourceVersion N')), [
      'created quickstart at resourceVersion N',
      'patched: greeting=hi',
      'informer synced: quickstart',
      'watch saw: MODIFIED, DELETED',
      'informer saw DELETED quickstart; cache size now 0',
    ]);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test.run();
