#!/usr/bin/env node
// Writes src/api/generated/kinds.ts (the built-in kinds' TypeScript types) from their schemas.
// Usage: npm run gen:types   (test/api/generated-types.test.ts fails when the file is not current)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { builtinResources } from '../dist/src/api/registry.js';
import { generateKindTypes } from '../dist/src/api/type-generator.js';

const root = new URL('..', import.meta.url).pathname;
writeFileSync(join(root, 'src/api/generated/kinds.ts'), generateKindTypes(builtinResources()));
console.log('wrote src/api/generated/kinds.ts');
