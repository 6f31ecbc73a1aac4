#!/usr/bin/env node
// `npm create a2a-agent@latest my-agent`: writes a new A2A agent project. Every input is checked
// before anything is written, so a refused run leaves the disk as it was.
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { agentNameProblem, defaultGrpcPortFor, defaultPortFor, portProblem, redisPrefixProblem, titleOf } from './names.js';
import { planProject, targetProblem, TEMPLATES, writeProject, type TemplateName } from './scaffold.js';

const USAGE = `create-a2a-agent — start a new A2A 0.1.0 agent on a2a-express

Usage: npm create a2a-agent@latest <folder> [-- options]
       create-a2a-agent <folder> [options]

The folder's last part is the agent's name (lower-case letters, digits, hyphens): its package
name, its name in the logs and, as "My Agent", on its card.

Options:
  --template echo|currency   the agent to start from (default echo): echo is the smallest real
                             agent; currency calls an outside service, with an offline fallback
  --port <n>                 its default port (default: one derived from the name, 41300–41999)
  --grpc-port <n>            the port its image serves gRPC on (default: derived, 50100–50799)
  --redis-prefix <prefix>    Redis key prefix of its replicas (default a2a:<name>:)
  --kit <folder>             depend on the kit's tarballs in that folder (from \`pnpm run pack\`
                             in the kit's repository) instead of the registry
  --workspace                in the kit's own repository: write apps/<name>, on the workspace's
                             packages
  -h, --help                 this help
`;

class UsageError extends Error {}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        template: { type: 'string', default: 'echo' },
        port: { type: 'string' },
        'grpc-port': { type: 'string' },
        'redis-prefix': { type: 'string' },
        kit: { type: 'string' },
        workspace: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function main(argv: string[]): number {
  const { values, positionals } = parseCommandLine(argv);
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'name the folder of the new agent, e.g. `create-a2a-agent my-agent`'
        : `one folder at a time, got ${positionals.join(' ')}`,
    );
  const template = values.template as TemplateName;
  if (!TEMPLATES.includes(template)) throw new UsageError(`--template must be one of ${TEMPLATES.join(', ')}, got "${values.template}"`);

  // In the workspace the argument is the app's name, a folder of apps/ and nothing else: a path
  // (`../x`, `a/b`) would write outside it.
  if (values.workspace && /[\\/]|^\.\.?$/.test(positionals[0]!)) {
    throw new UsageError(`--workspace takes the new app's name (a folder of apps/), not a path: got "${positionals[0]}"`);
  }
  const target = values.workspace ? join(workspaceRoot(), 'apps', positionals[0]!) : resolve(positionals[0]!);
  const name = basename(target);
  const problems = [
    agentNameProblem(name),
    values.port === undefined ? undefined : portProblem(values.port),
    values['grpc-port'] === undefined ? undefined : portProblem(values['grpc-port'], '--grpc-port'),
    values['redis-prefix'] === undefined ? undefined : redisPrefixProblem(values['redis-prefix']),
    targetProblem(target),
  ].filter((p): p is string => p !== undefined);
  if (problems.length > 0) {
    for (const problem of problems) process.stderr.write(`create-a2a-agent: ${problem}\n`);
    return 1;
  }

  const port = values.port === undefined ? defaultPortFor(name) : Number(values.port);
  const grpcPort = values['grpc-port'] === undefined ? defaultGrpcPortFor(name) : Number(values['grpc-port']);
  const redisPrefix = values['redis-prefix'] ?? `a2a:${name}:`;
  const files = planProject({
    name,
    template,
    port,
    grpcPort,
    redisPrefix,
    layout: values.workspace ? 'workspace' : 'standalone',
    ...(values.kit ? { kitTarballs: values.kit } : {}),
  });
  writeProject(target, files);

  const where = relative(process.cwd(), target) || '.';
  const next = values.workspace
    ? [
        'npx --yes pnpm@10 install',
        `npx --yes pnpm@10 run build && npx --yes pnpm@10 --filter ${name} start`,
        `npx --yes pnpm@10 jest apps/${name}`,
      ]
    : [`cd ${where}`, 'npm install', 'npm test', 'npm start'];
  process.stdout.write(
    `Created ${titleOf(name)} in ${where} from the ${template} template: port ${port} (gRPC ${grpcPort} in its image), logs as "${name}", Redis prefix ${redisPrefix}.\n` +
      `Its handler is in src/agent.ts. Next:\n${next.map((line) => `  ${line}\n`).join('')}`,
  );
  return 0;
}

/** The kit repository around the current folder: the nearest folder with pnpm-workspace.yaml and apps/. */
function workspaceRoot(): string {
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml')) && existsSync(join(dir, 'apps'))) return dir;
    if (dirname(dir) === dir)
      throw new UsageError("--workspace is for the kit's own repository: no pnpm-workspace.yaml with apps/ above this folder");
  }
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`create-a2a-agent: ${error.message}\n(create-a2a-agent --help lists the options)\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`create-a2a-agent: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
