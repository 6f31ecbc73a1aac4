// The import rules of docs/architecture.md, checked by `pnpm lint`. In a2a-express:
// - the task model (model/: the record, events, fold, sizes, id rules) is the bottom: it imports
//   nothing else of a2a-express, so the core and the stores both stand on it;
// - the stores (store/) import the model, never the core; the core imports of store/ only the
//   contract it is written against (store/task-store.ts), never a store;
// - the core (core/, store/, push/, and model/ beneath them) imports no protocol version and no
//   transport, neither Express nor any version's wire types: from a2a-types, only its model entry
//   point (`a2a-types/model`); nor the edge, nor the contract between versions and transports (protocol/);
// - a version (versions/<v>/) imports the core and its own files, never another version or a transport;
// - a transport (transports/) imports the core only, never a version;
// - Express only in its adapter (router.ts) and what serves an Express app: the edge (edge/), the
//   bindings and the core are served by node:http and fetch too;
// - nowhere an import cycle, type-only imports counted.
// Only the composition files at the top of src/ (router, agent-core, options, index, ...) join them,
// and they reach the versions through their list (versions/index.ts), never one version's folder.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'model-is-the-bottom',
      severity: 'error',
      comment:
        'The task model (the record, events and how they fold, sizes, the id rules) is what the core, the stores, push delivery and the versions all speak: it imports none of them, nor anything else of a2a-express.',
      from: { path: '(^|/)a2a-express/src/model/' },
      to: { path: '(^|/)a2a-express/src/', pathNot: '(^|/)a2a-express/src/model/' },
    },
    {
      name: 'store-imports-no-core',
      severity: 'error',
      comment:
        'A store keeps records and events of the model (model/) and knows nothing of the core that writes them: a store written once serves any core, and the two never import each other.',
      from: { path: '(^|/)a2a-express/src/store/' },
      to: { path: '(^|/)a2a-express/src/core/' },
    },
    {
      name: 'core-uses-the-store-contract',
      severity: 'error',
      comment:
        'The core is written against the TaskStore contract (store/task-store.ts), never a store: which one holds the tasks (in memory, Redis, PostgreSQL, an app’s own) is the composition’s choice.',
      from: { path: '(^|/)a2a-express/src/core/' },
      to: { path: '(^|/)a2a-express/src/store/', pathNot: '(^|/)a2a-express/src/store/task-store\\.ts$' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle ties its files into one: none anywhere, type imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-imports-no-version',
      severity: 'error',
      comment:
        'The core, the stores and push delivery speak the neutral model; a version plugs into them, never the other way, and how a call travels (the edge, the bindings, the contract that names routes, verbs and statuses: protocol/) is above them.',
      from: { path: '(^|/)a2a-express/src/(core|store|push)/' },
      to: { path: '(^|/)a2a-express/src/(versions|transports|protocol|edge)/' },
    },
    {
      name: 'core-knows-no-express',
      severity: 'error',
      comment:
        'The core, the stores, push delivery and the model beneath them serve every binding (JSON-RPC and HTTP+JSON over Express, gRPC, a test): a call reaches them as a call context with plain headers, never as an Express request.',
      from: { path: '(^|/)a2a-express/src/(model|core|store|push)/' },
      to: { path: ['^express$', '(^|/)node_modules/express/'] },
    },
    {
      name: 'core-speaks-the-model',
      severity: 'error',
      comment:
        "The core, the stores, push delivery and the model itself speak the kit's model: from a2a-types they import its model entry point (a2a-types/model), never a version's wire types (the root is 0.1.0's, then a2a-types/v0.3 and a2a-types/v1.0).",
      from: { path: '(^|/)a2a-express/src/(model|core|store|push)/' },
      to: {
        path: ['^a2a-types(/v0\\.3|/v1\\.0)?$', '(^|/)a2a-types/(dist|src)/(index|types|validators|v03/|v10/)'],
      },
    },
    {
      name: 'core-imports-no-composition',
      severity: 'error',
      comment: 'The files at the top of src/ assemble the layers; nothing below may reach back up to them.',
      from: { path: '(^|/)a2a-express/src/(core|store|push|protocol|versions|transports)/' },
      to: { path: '(^|/)a2a-express/src/[^/]+\\.ts$', pathNot: '(^|/)a2a-express/src/(redis|env)\\.ts$' },
    },
    {
      name: 'version-imports-no-other-version',
      severity: 'error',
      comment: 'Each version is one folder: it never reaches into another.',
      from: { path: '(^|/)a2a-express/src/versions/([^/]+)/' },
      to: { path: '(^|/)a2a-express/src/versions/([^/]+)/', pathNot: '(^|/)a2a-express/src/versions/$2/' },
    },
    {
      name: 'version-imports-no-transport',
      severity: 'error',
      comment: 'A version says what its wire holds; how it travels is the transports’ business.',
      from: { path: '(^|/)a2a-express/src/versions/' },
      to: { path: '(^|/)a2a-express/src/transports/' },
    },
    {
      name: 'versions-through-the-list',
      severity: 'error',
      comment:
        'A version is one folder and one line in versions/index.ts: the composition files iterate that list and name no version, so none reaches into a version’s folder.',
      from: { path: '(^|/)a2a-express/src/[^/]+\\.ts$' },
      to: { path: '(^|/)a2a-express/src/versions/[^/]+/' },
    },
    {
      name: 'telemetry-is-a-leaf',
      severity: 'error',
      comment: 'Traces, metrics and health are reported to from every layer: they import none of them.',
      from: { path: '(^|/)a2a-express/src/telemetry/' },
      // But the exchange a request span is made from, an interface with nothing below it.
      to: { path: '(^|/)a2a-express/src/', pathNot: '(^|/)a2a-express/src/(telemetry/|edge/(exchange|runtime)\\.ts$)' },
    },
    {
      name: 'express-only-in-its-adapter',
      severity: 'error',
      comment:
        'Express is one adapter of the edge (router.ts), with what serves an Express app (serveAgent, the inspector, the testing helpers): the edge, the bindings and the core serve node:http and fetch as well, so none of them imports it.',
      from: { path: '(^|/)a2a-express/src/', pathNot: '(^|/)a2a-express/src/(router|serve|inspector|testing)\\.ts$' },
      to: { path: ['^express$', '(^|/)node_modules/express/'] },
    },
    {
      name: 'transport-imports-no-version',
      severity: 'error',
      comment: 'A transport is written once and takes any version’s method table.',
      from: { path: '(^|/)a2a-express/src/transports/' },
      to: { path: '(^|/)a2a-express/src/versions/' },
    },
  ],
  options: {
    doNotFollow: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.mjs', '.json'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
    },
  },
};
