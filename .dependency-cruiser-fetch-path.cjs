// The fetch handler's path, checked by `pnpm lint` beside the import rules (.dependency-cruiser.cjs):
// a2a-express/fetch loads wherever Web APIs do (Cloudflare Workers, a browser, Deno, Bun), so no
// module it loads may import a Node builtin (`node:crypto`, or `crypto` without its prefix) or a
// package that needs Node. The Redis and PostgreSQL stores, gRPC, serveAgent, the Express router
// and the node:http listener are Node's subpaths, off it. a2a-express reaches a2a-types by its
// package name, which resolves to its build (not followed here), so a2a-types is held to the same
// as a whole: its model, errors, validators and card signing are all on the path.
//
// "Loads" is the graph as compiled: `import type` is erased and loads nothing, so this cruise reads
// the JavaScript tsc emits (tsPreCompilationDeps: false), whereas the import rules count type
// imports too. Dynamic imports are followed: a bundler for a Worker follows them as well. Node's
// push delivery asks the runtime for node:http where it has it, with process.getBuiltinModule
// (push/node-delivery.ts): not an import, and not counted (detectProcessBuiltinModuleCalls is off).
//
// The client's main entry (a2a-client's src/index.ts) is held to the same: a web page bundles it.
// gRPC, HTTPS with a client certificate (tls), the push receiver, the checker, the inspector and the
// command line are its Node subpaths.
const { builtinModules } = require('node:module');

const builtins = builtinModules.filter((name) => !name.startsWith('_'));

/** Packages that load only on Node (or what pretends to be it): their own code imports Node's builtins. */
const NODE_ONLY_PACKAGES = [
  'express',
  'prom-client',
  'ioredis',
  'pg',
  '@grpc/grpc-js',
  '@grpc/reflection',
  '@grpc/proto-loader',
  'grpc-health-check',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/instrumentation',
  '@opentelemetry/instrumentation-undici',
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-http',
  '@hono/node-server',
  // a2a-client/tls: HTTPS with a client certificate, for Node.
  'undici',
  // The MCP SDK (`a2a mcp`): its servers are stdio and Express, and only the command line loads it.
  '@modelcontextprotocol/sdk',
];

/**
 * The workspace's own packages that need Node. A workspace package resolves to its build, which
 * is not followed (as a2a-types is not): each is named here, or held to the rules as a whole.
 */
const NODE_ONLY_WORKSPACE_PACKAGES = ['a2a-push-receiver'];

/** What a module on the path may not import: Node's builtins, with or without `node:`, and Node-only packages. */
const NODE_ONLY = [
  `^(node:)?(${builtins.join('|')})$`,
  '^node:',
  `node_modules/(${NODE_ONLY_PACKAGES.join('|')})/`,
  `(^|/)(packages|node_modules)/(${NODE_ONLY_WORKSPACE_PACKAGES.join('|')})/`,
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-node-on-the-fetch-path',
      severity: 'error',
      comment:
        'a2a-express/fetch runs wherever Web APIs do: nothing it loads may import a Node builtin or a package that needs Node. Use the Web globals (crypto.randomUUID, crypto.subtle, performance, TextEncoder, fetch) and jose; leave what needs Node to its Node-only subpath.',
      from: { path: '(^|/)a2a-express/src/fetch\\.ts$' },
      to: {
        reachable: true,
        path: NODE_ONLY,
      },
    },
    {
      name: 'no-node-on-the-client-path',
      severity: 'error',
      comment:
        'a2a-client’s main entry runs in a web page: nothing it loads may import a Node builtin or a package that needs Node. Use the Web globals (fetch, AbortSignal, performance, TextDecoder); leave what needs Node to a subpath of its own (a2a-client/grpc, a2a-client/push-receiver).',
      from: { path: '(^|/)a2a-client/src/index\\.ts$' },
      to: {
        reachable: true,
        path: NODE_ONLY,
      },
    },
    {
      name: 'no-node-in-a2a-types',
      severity: 'error',
      comment:
        'a2a-types is on the fetch handler’s path (the model, the errors, the validators, the canonical card forms): none of its modules may import a Node builtin or a package that needs Node.',
      from: { path: '(^|/)a2a-types/src/' },
      to: { path: NODE_ONLY },
    },
  ],
  options: {
    // The packages' code is followed, a2a-types' (its dist/, as a2a-express resolves it) included;
    // other packages' is not: a Node-only one is caught at the door.
    doNotFollow: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
    },
  },
};
