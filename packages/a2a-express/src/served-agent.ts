// What every adapter of an agent hands back besides its handler (the Express router, the node:http
// listener, the fetch handler): its store, where each version is, its metrics and health, and
// the drain and close of a graceful shutdown.
import type { AgentCore, DrainReport, ServedEndpoint } from './agent-core.js';
import type { TaskStore } from './store/task-store.js';
import type { A2AMetrics } from './telemetry/metrics.js';
import { healthEndpoints, type HealthEndpoints } from './telemetry/health.js';
import { VERSIONS, type VersionPaths } from './versions/index.js';

/** Where a version is served. */
export interface ServedVersionPath {
  /** The protocol version, by the kit's name for it (`'0.1.0'`, `'0.3'`, `'1.0'`). */
  readonly protocol: string;
  /** Its endpoint, relative to the router's mount (`'/'`, `'/v0.3'`, `'/v1'`). */
  readonly path: string;
}

/** An agent being served, whatever serves it. */
export interface ServedAgent extends VersionPaths {
  /** The task store in use (the one given in the options, or the router's in-memory one). */
  readonly store: TaskStore;
  /** What this replica does (option `role`): `all`, `front-end` or `worker` (docs/replicas.md). */
  readonly role: 'all' | 'front-end' | 'worker';
  /**
   * Each version served, oldest first: its protocol version and where its endpoint is, relative to
   * the mount. serveAgent's listening line names each endpoint's URL from these.
   */
  readonly endpoints: readonly ServedVersionPath[];
  /**
   * The agent's Prometheus metrics (option `metrics`), undefined when off. Mount
   * `router.metrics.handler` where Prometheus scrapes: `app.get('/metrics', router.metrics.handler)`.
   */
  readonly metrics: A2AMetrics | undefined;
  /**
   * Liveness and readiness for an orchestrator or a load balancer: `app.get('/livez', router.health.live)`,
   * `app.get('/readyz', router.health.ready)`. Not ready while draining or while the task store
   * cannot be reached.
   */
  readonly health: HealthEndpoints;
  /**
   * Aborts the handlers running in this process and, for a store the router made itself,
   * releases it. Open streams end when the HTTP server closes. With a shared store, the tasks
   * whose handlers were aborted are failed by another replica once their lease runs out.
   */
  close(): Promise<void>;
  /**
   * Ends this process's share of the work, for a graceful shutdown (`serveAgent` calls it on
   * SIGTERM): new calls get HTTP 503 with -32011; the turns running here get up to `deadlineMs`
   * to finish, their streams and webhooks receiving every event; the turns still running then are
   * failed with a message that says the agent shut down (their final event). With
   * `onInterrupted: 'resume'` on a shared store they are handed over instead: each handler is
   * aborted, its turn let go with a `working` event that says so, and another replica goes on
   * with it at once; the streams open here end after that event, for their clients to resubscribe
   * elsewhere with `Last-Event-ID` (docs/replicas.md, "Hand-over on deploy"). Resolves once their
   * push notifications are out, or the deadline passed. Call `close()` after it.
   */
  drain(options?: { deadlineMs?: number }): Promise<DrainReport>;
}

/** The core behind each handle, for what serves its agent beside it (`serveGrpc`). */
const CORES = new WeakMap<object, AgentCore>();

/**
 * The agent's handle: `target` (the adapter's handler) with the handle's members and `extra`
 * added, known to `agentCoreOf`.
 */
export function servedAgentOf<T extends object, E extends object>(core: AgentCore, target: T, extra: E): T & ServedAgent & E;
export function servedAgentOf(core: AgentCore): ServedAgent;
export function servedAgentOf(core: AgentCore, target: object = {}, extra: object = {}): ServedAgent {
  const handle = Object.assign(target, handleOf(core), extra);
  CORES.set(handle, core);
  return handle;
}

/** The core of an agent's handle (a router, a listener, a fetch handler, `a2aAgent`'s); a TypeError for anything else. */
export function agentCoreOf(agent: ServedAgent): AgentCore {
  const core = CORES.get(agent);
  if (!core) throw new TypeError('expected an agent made by a2aAgent(), a2aRouter(), a2aNodeHandler() or a2aFetchHandler()');
  return core;
}

function handleOf(core: AgentCore): ServedAgent {
  return {
    store: core.store,
    role: core.options.role,
    endpoints: core.endpoints.map((endpoint) => ({ protocol: endpoint.version.name, path: endpoint.path })),
    ...versionPaths(core.endpoints),
    metrics: core.options.metrics,
    health: healthEndpoints({
      logger: core.logger,
      isDraining: () => core.draining,
      pingStore: core.store.ping && (() => core.store.ping!()),
      ...(core.checkWork && { checkWork: core.checkWork }),
    }),
    drain({ deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<DrainReport> {
      return core.drain(deadlineMs);
    },
    close: () => core.close(),
  };
}

/** `router.protocol03Path` and the others: where each version is served, undefined when it is not. */
function versionPaths(endpoints: readonly ServedEndpoint[]): VersionPaths {
  const paths: Record<string, string | undefined> = {};
  for (const { protocol, shownAs } of VERSIONS) {
    if (shownAs) paths[shownAs.routerPath] = endpoints.find((endpoint) => endpoint.version.name === protocol.name)?.path;
  }
  return paths as unknown as VersionPaths;
}
