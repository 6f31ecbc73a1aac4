#!/usr/bin/env node
// Generates the protobuf-es code of A2A's gRPC bindings, at build time: buf compiles each
// version's proto, as its specification publishes it, together with the Google APIs it imports
// (from the google-proto-files package), and protoc-gen-es writes TypeScript to that version's
// own folder, with the google.rpc status and error details its gRPC errors carry:
// proto/lf/a2a/v1/a2a.proto (1.0) to src/v10/grpc/gen/, proto/a2a/v1/a2a.proto (0.3) to src/v03/grpc/gen/.
// Each folder holds only what its proto needs, so neither version's code loads the other's.
// Nothing generated is committed: the root build runs this before tsc.
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

/** Each version's proto files (and the Google ones it wants generated beside them), and where its code goes. */
const OUTPUTS = [
  {
    out: join(packageRoot, 'src/v10/grpc/gen'),
    paths: ['lf/a2a/v1/a2a.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'],
  },
  { out: join(packageRoot, 'src/v03/grpc/gen'), paths: ['a2a/v1/a2a.proto', 'google/rpc/status.proto', 'google/rpc/error_details.proto'] },
];

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

/** Where the fingerprint of the inputs that made each output is kept (the outputs are not committed either). */
const stampFile = (out) => join(out, '.inputs.sha256');
const fingerprint = inputsFingerprint();
if (OUTPUTS.every(({ out }) => existsSync(stampFile(out)) && readFileSync(stampFile(out), 'utf8') === fingerprint)) process.exit(0);

const staging = mkdtempSync(join(tmpdir(), 'a2a-proto-'));
try {
  const inputs = join(staging, 'proto');
  cpSync(join(packageRoot, 'proto'), inputs, { recursive: true });
  for (const file of GOOGLE_PROTOS) {
    mkdirSync(dirname(join(inputs, file)), { recursive: true });
    cpSync(join(googleProtos, file), join(inputs, file));
  }
  writeFileSync(join(inputs, 'buf.yaml'), 'version: v2\n');
  for (const [index, { out, paths }] of OUTPUTS.entries()) {
    const generated = join(staging, `gen-${index}`);
    const template = JSON.stringify({
      version: 'v2',
      plugins: [{ local: protocGenEs, out: generated, opt: ['target=ts', 'import_extension=js'], include_imports: true }],
    });
    const only = paths.flatMap((path) => ['--path', path]);
    execFileSync(buf, ['generate', inputs, '--template', template, ...only], { cwd: inputs, stdio: ['ignore', 'inherit', 'inherit'] });
    sync(generated, out);
    writeFileSync(stampFile(out), fingerprint);
  }
} finally {
  rmSync(staging, { recursive: true, force: true });
}

/** A hash of everything the generated code depends on: every proto under proto/ (both versions'), Google's, the tools, this script. */
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
