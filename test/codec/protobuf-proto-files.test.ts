import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateProtoFiles, wireModel } from '../../src/codec/protobuf/index.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

test('the committed proto/ files are what `npm run gen:proto` generates from the tables', () => {
  for (const f of generateProtoFiles(wireModel())) {
    const path = join(ROOT, 'proto', f.path);
    assert.ok(existsSync(path), `proto/${f.path} is missing: run npm run gen:proto`);
    assert.ok(readFileSync(path, 'utf8') === f.text, `proto/${f.path} is stale: run npm run gen:proto`);
  }
});

test.run();
