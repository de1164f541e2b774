// docs/client.md's in-process example runs as documented (kept honest by this test).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, ROOT } from '../helpers/apiserver.js';

test('the in-process example prints what docs/client.md shows', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-inproc-example-'));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(ROOT, 'dist/docs/examples/in-process-client.js'), '--data-dir', dataDir, '--secure-port', String(await freePort())],
      { cwd: ROOT },
    );
    assert.equal(stdout.trim().split('\n'), ['stored greeting: hello', 'invalid object: 422 Invalid', 'watch saw: ADDED, DELETED']);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
