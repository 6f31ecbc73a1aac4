// Plans a new agent project as a set of files (nothing is written until every check passed),
// then writes it. The agent's code is a sample agent's own source — the echo or the currency
// agent of the kit's repository, copied into this package when it is packed — with the
// sample's identity (card name, log name, port, Redis prefix) swapped for the new agent's.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultGrpcPortFor, defaultPortFor, titleOf } from './names.js';

export const TEMPLATES = ['echo', 'currency'] as const;
export type TemplateName = (typeof TEMPLATES)[number];

export interface ProjectOptions {
  /** The agent's name: package name, log name, default folder (checked by `agentNameProblem`). */
  name: string;
  template: TemplateName;
  /** Default port of the agent; default from the name (`defaultPortFor`). */
  port?: number;
  /** The port its image serves gRPC on (`A2A_GRPC_PORT`); default from the name (`defaultGrpcPortFor`). */
  grpcPort?: number;
  /** Redis key prefix shared by the agent's replicas; default `a2a:<name>:`. */
  redisPrefix?: string;
  /**
   * `standalone` (the default): a project of its own that depends on the published kit.
   * `workspace`: an app under `apps/` of the kit's own monorepo, on the workspace's packages.
   */
  layout?: 'standalone' | 'workspace';
  /** A folder of the kit's packed tarballs to depend on (`file:`), instead of registry versions. */
  kitTarballs?: string;
}

/** Where this package's files are: `dist/..`. */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The versions a new project starts from; the kit's own tests check they match what it uses. */
export const THIRD_PARTY_VERSIONS = {
  express: '^5.1.0',
  pino: '^10.1.0',
  ioredis: '^5.4.0',
  // PostgreSQL, which the agent keeps its tasks in when A2A_STORE=postgres asks for it.
  pg: '^8.23.1',
  typescript: '~5.9.3',
  jest: '^30.2.0',
  'ts-jest': '^29.4.5',
  supertest: '^7.1.4',
  '@types/express': '^5.0.6',
  '@types/jest': '^30.0.0',
  '@types/node': '^20.19.0',
  '@types/supertest': '^6.0.3',
  // The OpenTelemetry SDK, which serveAgent starts when OTEL_* asks for traces.
  '@opentelemetry/context-async-hooks': '^3.1.1',
  '@opentelemetry/core': '^3.1.1',
  '@opentelemetry/exporter-trace-otlp-http': '^0.301.0',
  '@opentelemetry/instrumentation': '^0.300.0',
  '@opentelemetry/instrumentation-undici': '^0.34.0',
  '@opentelemetry/resources': '^3.1.1',
  '@opentelemetry/sdk-trace': '^3.1.0',
  // gRPC, which serveAgent serves beside the app when A2A_GRPC_PORT asks for it.
  '@grpc/grpc-js': '^1.14.0',
  '@grpc/reflection': '^1.0.4',
  'grpc-health-check': '^2.1.0',
  // The AI SDK and the providers the currency agent's LLM settings name (its llm.ts), loaded
  // only when an LLM is configured; only the currency template depends on them.
  ai: '^7.0.173',
  '@ai-sdk/anthropic': '^4.0.105',
  '@ai-sdk/google': '^4.0.121',
  '@ai-sdk/openai': '^4.0.118',
  '@ai-sdk/openai-compatible': '^3.0.92',
} as const;

/**
 * The kit packages a new agent depends on: the currency template's LLM settings and model choice
 * are a2a-ai's (`a2a-ai/llm-config`, `languageModelOf`), shared with the host agent.
 */
function kitPackagesOf(template: TemplateName): string[] {
  return template === 'currency' ? ['a2a-express', 'a2a-types', 'a2a-ai'] : ['a2a-express', 'a2a-types'];
}

/** This package's version: a new project depends on the kit of the same version. */
export function kitVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The folder holding a template's agent sources: inside the packed package, or, in the kit's
 * repository, the sample app itself (so that a new agent always starts from the current sample).
 */
export function templateSourceDir(template: TemplateName): string {
  const packed = join(packageRoot, 'templates', template, 'src');
  if (existsSync(packed)) return packed;
  const sample = join(packageRoot, '..', '..', 'apps', `${template}-agent`, 'src');
  if (existsSync(join(sample, 'server.ts'))) return sample;
  throw new Error(`create-a2a-agent: the ${template} template's sources are missing (looked in ${packed})`);
}

/** The sample's identity line in its server.ts, replaced by the new agent's. */
const IDENTITY_LINE = /^const agent = \{ name: '[^']*', port: \d+, redisPrefix: '[^']*' \} as const;$/m;
/** The card's name in the sample's agent.ts: the only `name:` at the card's own indentation. */
const CARD_NAME_LINE = /^ {2}name: '[^']*',$/m;

function replaceOnce(text: string, pattern: RegExp, replacement: string, where: string): string {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags}g`)) ?? [];
  if (matches.length !== 1) throw new Error(`create-a2a-agent: expected one ${pattern} in ${where}, found ${matches.length}`);
  return text.replace(pattern, () => replacement);
}

/** Fills `{{name}}`-style placeholders; a placeholder left unfilled is a bug in a template. */
function fill(template: string, values: Record<string, string | number>, where: string): string {
  const filled = template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
  const left = /\{\{\w+\}\}/.exec(filled);
  if (left) throw new Error(`create-a2a-agent: ${where} has no value for ${left[0]}`);
  return filled;
}

function templateFile(path: string, values: Record<string, string | number>): string {
  return fill(readFileSync(join(packageRoot, 'templates', path), 'utf8'), values, path);
}

/** The dependency specs of the kit's packages: registry versions, or tarballs from `kitTarballs`. */
function kitDependencies(options: ProjectOptions): Record<string, string> {
  const KIT_PACKAGES = kitPackagesOf(options.template);
  if (options.layout === 'workspace') return Object.fromEntries(KIT_PACKAGES.map((name) => [name, 'workspace:*']));
  if (!options.kitTarballs) return Object.fromEntries(KIT_PACKAGES.map((name) => [name, `^${kitVersion()}`]));
  const folder = resolve(options.kitTarballs);
  const files = existsSync(folder) ? readdirSync(folder) : [];
  // a2a-ai's own kit dependencies come from the tarballs too: from the registry they would be
  // whatever it holds under those names, if anything.
  const fromTarballs = KIT_PACKAGES.includes('a2a-ai') ? [...KIT_PACKAGES, 'a2a-client', 'a2a-push-receiver'] : KIT_PACKAGES;
  return Object.fromEntries(
    fromTarballs.map((name) => {
      const tarball = files.find((file) => new RegExp(`^${name}-\\d[^/]*\\.tgz$`).test(file));
      if (!tarball)
        throw new Error(`--kit: no ${name}-<version>.tgz in ${folder} (make them with \`pnpm run pack\` in the kit's repository)`);
      return [name, `file:${join(folder, tarball)}`];
    }),
  );
}

/** Every file of the new project, by its path inside the project. Reads templates; writes nothing. */
export function planProject(options: ProjectOptions): Map<string, string> {
  const { name, template } = options;
  const layout = options.layout ?? 'standalone';
  const values = {
    name,
    title: titleOf(name),
    template,
    port: options.port ?? defaultPortFor(name),
    grpcPort: options.grpcPort ?? defaultGrpcPortFor(name),
    redisPrefix: options.redisPrefix ?? `a2a:${name}:`,
  };
  const files = new Map<string, string>();

  const sources = templateSourceDir(template);
  for (const file of readdirSync(sources)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    let text = readFileSync(join(sources, file), 'utf8');
    if (file === 'server.ts') {
      const identity = `const agent = { name: '${values.name}', port: ${values.port}, redisPrefix: '${values.redisPrefix}' } as const;`;
      text = replaceOnce(text, IDENTITY_LINE, identity, `${template}/server.ts`);
    }
    if (file === 'agent.ts') text = replaceOnce(text, CARD_NAME_LINE, `  name: '${values.title}',`, `${template}/agent.ts`);
    files.set(`src/${file}`, text);
  }
  files.set('test/agent.test.ts', templateFile(`${template}/test/agent.test.ts.template`, values));

  const dependencies = {
    ...kitDependencies(options),
    express: THIRD_PARTY_VERSIONS.express,
    ioredis: THIRD_PARTY_VERSIONS.ioredis,
    pg: THIRD_PARTY_VERSIONS.pg,
    pino: THIRD_PARTY_VERSIONS.pino,
    ...Object.fromEntries(
      Object.entries(THIRD_PARTY_VERSIONS).filter(
        ([name]) => name.startsWith('@opentelemetry/') || name.startsWith('@grpc/') || name.startsWith('grpc-'),
      ),
    ),
    ...(template === 'currency'
      ? Object.fromEntries(Object.entries(THIRD_PARTY_VERSIONS).filter(([name]) => name === 'ai' || name.startsWith('@ai-sdk/')))
      : {}),
  };
  const sorted = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
  // The fields both layouts' package.json start with, in this order.
  const manifestHead = {
    name,
    version: '0.1.0',
    private: true,
    description: `An A2A 0.1.0 agent, started from the kit's ${template} agent`,
    type: 'module',
    main: './dist/server.js',
  };
  if (layout === 'workspace') {
    files.set(
      'package.json',
      json({
        ...manifestHead,
        scripts: { start: 'node dist/server.js' },
        dependencies: sorted(dependencies),
        files: ['dist'],
      }),
    );
    files.set(
      'tsconfig.json',
      json({
        extends: '../../tsconfig.base.json',
        compilerOptions: { rootDir: 'src', outDir: 'dist' },
        include: ['src'],
        references: [
          { path: '../../packages/a2a-types' },
          { path: '../../packages/a2a-express' },
          ...(template === 'currency' ? [{ path: '../../packages/a2a-ai' }] : []),
        ],
      }),
    );
    files.set('Dockerfile', templateFile('workspace/Dockerfile.template', values));
    files.set('README.md', templateFile('workspace/README.md.template', values));
    return files;
  }

  files.set(
    'package.json',
    json({
      ...manifestHead,
      scripts: {
        build: 'tsc -p tsconfig.build.json',
        prestart: 'npm run build',
        start: 'node dist/server.js',
        // jest runs the TypeScript tests as native ES modules, as the kit is ESM.
        test: 'node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js',
      },
      engines: { node: '^20.19.0 || >=22.12.0' },
      dependencies: sorted(dependencies),
      devDependencies: sorted({
        '@types/express': THIRD_PARTY_VERSIONS['@types/express'],
        '@types/jest': THIRD_PARTY_VERSIONS['@types/jest'],
        '@types/node': THIRD_PARTY_VERSIONS['@types/node'],
        '@types/supertest': THIRD_PARTY_VERSIONS['@types/supertest'],
        jest: THIRD_PARTY_VERSIONS.jest,
        supertest: THIRD_PARTY_VERSIONS.supertest,
        'ts-jest': THIRD_PARTY_VERSIONS['ts-jest'],
        typescript: THIRD_PARTY_VERSIONS.typescript,
      }),
    }),
  );
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'jest.config.js', 'Dockerfile', 'README.md', '.gitignore', '.dockerignore']) {
    // npm leaves out files named .gitignore from a package, so they travel as `gitignore`.
    files.set(file, templateFile(`standalone/${file.replace(/^\./, '')}.template`, values));
  }
  return files;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Why the project cannot be written to `target`, or undefined: it must be absent or empty. */
export function targetProblem(target: string): string | undefined {
  if (!existsSync(target)) return undefined;
  try {
    if (readdirSync(target).length > 0)
      return `${target} already exists and is not empty; choose another name or folder (nothing was written)`;
  } catch {
    return `${target} exists and is not a folder (nothing was written)`;
  }
  return undefined;
}

/** Writes the planned files under `target` (absent or empty: see `targetProblem`). */
export function writeProject(target: string, files: Map<string, string>): void {
  const problem = targetProblem(target);
  if (problem) throw new Error(problem);
  for (const [path, text] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), text);
  }
}
