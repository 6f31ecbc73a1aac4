// What an agent loads for what it does not use. The gRPC message types (protobuf-es and the
// generated A2A file) are for serveGrpc and for signing cards: loaded into an agent that does
// neither, they cost every stream's events about 10 per cent more CPU in the bench
// (BENCHMARKS.md, "The rest of 1.0"). The built package is run in a child process, with a
// module hook noting every module it resolves.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Writes each resolved module's URL to the file it is given, as it is resolved. */
const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, resolved.url + '\\n');
  return resolved;
}`;

/** The modules the built package resolves while `body` runs (an ES module's text, with `a2aRouter` imported). */
async function modulesLoadedBy(body: string): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'a2a-modules-'));
  const file = join(dir, 'modules.txt');
  const script = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { file: ${JSON.stringify(file)} } });
const { a2aRouter } = await import('./dist/index.js');
${body}`;
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, timeout: 20_000 }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const isProtobuf = (url: string) => url.includes('@bufbuild/protobuf') || url.endsWith('_pb.js');

describe('what an agent loads', () => {
  test('a router that does not sign cards loads no gRPC message types; one that signs loads them for its first card', async () => {
    const card = JSON.stringify({ name: 'Echo', version: '1.0.0' });
    const plain = await modulesLoadedBy(`
const router = a2aRouter(async function* () {}, { card: ${card} });
`);
    expect(plain.some((url) => url.endsWith('/dist/index.js'))).toBe(true);
    expect(plain.filter(isProtobuf)).toEqual([]);

    // A signing router names the URL it is given in its cards (any will do here).
    const signedCard = JSON.stringify({ name: 'Echo', version: '1.0.0', url: 'http://127.0.0.1/' });
    const signing = await modulesLoadedBy(`
import('node:crypto').then(async ({ generateKeyPairSync }) => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const express = (await import('express')).default;
  const app = express().use(a2aRouter(async function* () {}, { card: ${signedCard}, cardSigning: { privateKey, kid: 'k1' } }));
  const server = app.listen(0, '127.0.0.1', async () => {
    const response = await fetch('http://127.0.0.1:' + server.address().port + '/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } });
    const signed = await response.json();
    server.close();
    if (!signed.signatures) throw new Error('the card is not signed');
  });
});
`);
    expect(signing.some(isProtobuf)).toBe(true);
  });
});
