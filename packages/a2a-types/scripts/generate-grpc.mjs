#!/usr/bin/env node
// Generates the protobuf-es code of A2A 1.0's gRPC binding, at build time: buf compiles
// proto/lf/a2a/v1/a2a.proto (A2A 1.0's proto, as the specification publishes it) together with
// the Google APIs it imports and the google.rpc status and error details that gRPC errors carry
// (all from the google-proto-files package), and protoc-gen-es writes TypeScript to
// src/v10/grpc/gen/. Nothing generated is committed: the root build runs this before tsc.
// A file whose text did not change is not written again, so tsc's incremental build keeps its work;
// and when none of the inputs changed (the protos, the generators' versions, this script), buf is
// not run at all: it took some 3 s of every build, and `pnpm a2a` builds before each command.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';

const require = createRequire(import.meta.url);
const packageRoot = join(import.meta.dirname, '..');
const out = join(packageRoot, 'src/v10/grpc/gen');

/** The protos from google-proto-files that ours import, or that a gRPC error's details are. */
const GOOGLE_PROTOS = [
  'google/api/annotations.proto',
  'google/api/client.proto',
  'google/api/field_behavior.proto',
  'google/api/http.proto',
  'google/api/launch_stage.proto',
  'google/rpc/status.proto',
  'google/rpc/error_details.proto',
];

const googleProtos = dirname(require.resolve('google-proto-files/package.json'));
const buf = require.resolve('@bufbuild/buf/bin/buf');
const protocGenEs = require.resolve('@bufbuild/protoc-gen-es/bin/protoc-gen-es');

/** Where the fingerprint of the inputs that made out/ is kept (out/ is not committed either). */
const stampFile = join(out, '.inputs.sha256');
const fingerprint = inputsFingerprint();
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === fingerprint) process.exit(0);

const staging = mkdtempSync(join(tmpdir(), 'a2a-proto-'));
try {
  const inputs = join(staging, 'proto');
  cpSync(join(packageRoot, 'proto'), inputs, { recursive: true });
  for (const file of GOOGLE_PROTOS) {
    mkdirSync(dirname(join(inputs, file)), { recursive: true });
    cpSync(join(googleProtos, file), join(inputs, file));
  }
  const generated = join(staging, 'gen');
  writeFileSync(join(inputs, 'buf.yaml'), 'version: v2\n');
  const template = JSON.stringify({
    version: 'v2',
    plugins: [{ local: protocGenEs, out: generated, opt: ['target=ts', 'import_extension=js'], include_imports: true }],
  });
  execFileSync(buf, ['generate', inputs, '--template', template], { cwd: inputs, stdio: ['ignore', 'inherit', 'inherit'] });
  sync(generated, out);
  writeFileSync(stampFile, fingerprint);
} finally {
  rmSync(staging, { recursive: true, force: true });
}

/** A hash of everything the generated code depends on: ours and Google's protos, the tools, this script. */
function inputsFingerprint() {
  const hash = createHash('sha256');
  const add = (label, text) => hash.update(`${label}\0${text}\0`);
  const protoRoot = join(packageRoot, 'proto');
  for (const file of filesUnder(protoRoot).sort()) add(relative(protoRoot, file), readFileSync(file));
  for (const file of GOOGLE_PROTOS) add(file, readFileSync(join(googleProtos, file)));
  for (const tool of ['@bufbuild/buf', '@bufbuild/protoc-gen-es']) {
    add(tool, JSON.parse(readFileSync(require.resolve(`${tool}/package.json`), 'utf8')).version);
  }
  add('script', readFileSync(import.meta.filename));
  return hash.digest('hex');
}

/** Makes `target` hold exactly what `source` holds, writing only the files whose text changed. */
function sync(source, target) {
  const wanted = new Set(filesUnder(source).map((file) => relative(source, file)));
  for (const file of existsSync(target) ? filesUnder(target) : []) {
    if (!wanted.has(relative(target, file))) rmSync(file);
  }
  for (const name of wanted) {
    const text = readFileSync(join(source, name), 'utf8');
    const to = join(target, name);
    if (existsSync(to) && readFileSync(to, 'utf8') === text) continue;
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
