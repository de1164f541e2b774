#!/usr/bin/env node
// Writes proto/**/generated.proto from the field-number tables (src/api/kinds/proto/).
// Usage: npm run gen:proto   (a test fails when the committed files are not current)
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { generateProtoFiles, wireModel } from '../dist/src/codec/protobuf/index.js';

const root = new URL('..', import.meta.url).pathname;
for (const file of generateProtoFiles(wireModel())) {
  const out = join(root, 'proto', file.path);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, file.text);
  console.log(`wrote proto/${file.path}`);
}
