#!/usr/bin/env node
// Generates the protobuf-es code of the ITK instruction (proto/instruction.proto) into
// src/gen/, at build time (the root build runs it before tsc; nothing generated is committed).
// buf runs only when the proto, the generators' versions or this script changed: the root build
// runs before every `pnpm a2a` command, and buf costs a few seconds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const appRoot = join(import.meta.dirname, '..');
const proto = join(appRoot, 'proto');
const out = join(appRoot, 'src/gen');
const stampFile = join(out, '.inputs.sha256');
const tools = ['@bufbuild/buf', '@bufbuild/protoc-gen-es'];

const hash = createHash('sha256');
hash.update(readFileSync(join(proto, 'instruction.proto')));
for (const tool of tools) hash.update(JSON.parse(readFileSync(require.resolve(`${tool}/package.json`), 'utf8')).version);
hash.update(readFileSync(import.meta.filename));
const fingerprint = hash.digest('hex');
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === fingerprint) process.exit(0);

const staging = mkdtempSync(join(tmpdir(), 'itk-proto-'));
try {
  const template = JSON.stringify({
    version: 'v2',
    plugins: [
      { local: require.resolve('@bufbuild/protoc-gen-es/bin/protoc-gen-es'), out: staging, opt: ['target=ts', 'import_extension=js'] },
    ],
  });
  execFileSync(require.resolve('@bufbuild/buf/bin/buf'), ['generate', proto, '--template', template], {
    cwd: appRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const generated = readFileSync(join(staging, 'instruction_pb.ts'), 'utf8');
  mkdirSync(out, { recursive: true });
  const target = join(out, 'instruction_pb.ts');
  // An unchanged file is not written again, so tsc's incremental build keeps its work.
  if (!existsSync(target) || readFileSync(target, 'utf8') !== generated) writeFileSync(target, generated);
  writeFileSync(stampFile, fingerprint);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
