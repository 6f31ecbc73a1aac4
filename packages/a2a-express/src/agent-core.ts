// An agent without a transport: the options resolved, the store, the engine, push
// notifications, the replica duties, and the JSON-RPC dispatch over them. The Express router is
// one transport on top of it (router.ts); a test, or another binding, can call `dispatch`
// directly.
import type { Logger } from 'pino';
import { A2AError, ErrorCode } from 'a2a-types';
import { createDispatcher, type Dispatch } from './transports/json-rpc.js';
import { createMethodRunner, type MethodRunner } from './transports/method-runner.js';
import type { ProtocolVersion, VersionEndpoint } from './core/protocol-version.js';
import type { TaskHandler } from './core/handler.js';
import { routerLogger } from './logging.js';
import { resolveOptions, type A2ARouterOptions, type ResolvedOptions } from './options.js';
import { PushNotifier } from './push/push-notifier.js';
import { InMemoryTaskStore } from './store/in-memory.js';
import { startReplicaDuties } from './store/replica-duties.js';
import { isSharedTaskStore, type TaskStore } from './store/task-store.js';
import { TaskEngine } from './core/task-engine.js';
import { TaskService } from './core/task-service.js';
import { AgentOperations } from './core/agent-operations.js';
import { endpoint01, protocol01 } from './versions/v0_1/index.js';
import { endpoint03, endpointUrl03, protocol03 } from './versions/v0_3/index.js';
import { endpoint10, protocol10 } from './versions/v1_0/index.js';

/** What a drain did. */
export interface DrainReport {
  /** Turns that finished by themselves within the deadline. */
  finished: number;
  /** Turns still running at the deadline, failed with {@link SHUTDOWN_MESSAGE}. */
  stopped: number;
}

/** The status message of a turn that a shutdown stopped before it finished. */
export const SHUTDOWN_MESSAGE =
  'The agent shut down before this task finished; to retry, send the message again as a new task (a new task id).';

export interface AgentCore {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly store: TaskStore;
  /** Present when push notifications are on. */
  readonly push: PushNotifier | undefined;
  /** A2A 0.1.0 JSON-RPC (the first of `endpoints`). */
  readonly dispatch: Dispatch;
  /** The operations every version and binding calls: for a binding of its own, or a test, with no transport. */
  readonly operations: AgentOperations;
  /** Every version served, each with its JSON-RPC dispatch over the same tasks: what the router mounts. */
  readonly endpoints: readonly ServedEndpoint[];
  /** Lets the running turns finish until `deadlineMs`, then fails the rest; see `A2ARouter.drain`. */
  drain(deadlineMs: number): Promise<DrainReport>;
  /** Aborts the running handlers and releases what the core made itself. */
  close(): Promise<void>;
}

/** A version's endpoint, and the dispatch that serves it. */
export interface ServedEndpoint extends VersionEndpoint {
  /** Runs a call of one of the version's methods, whatever binding carries it. */
  readonly runner: MethodRunner;
  /** The version's JSON-RPC. */
  readonly dispatch: Dispatch;
}

/** Every version's push format, by the version a webhook is set over. */
const PUSH_BODIES = Object.fromEntries(
  [protocol01, protocol03, protocol10].map((version) => [version.name, { ...version.pushDelivery, body: version.pushBody }]),
);

/** Builds an agent from its handler and the router's options. Throws TypeError for a bad option. */
export function createAgentCore(handler: TaskHandler, options: A2ARouterOptions): AgentCore {
  const resolved = resolveOptions(options);
  const logger = routerLogger(resolved.logger);
  const push = resolved.pushNotifications
    ? new PushNotifier(options.pushNotifications === true ? {} : options.pushNotifications || {}, logger, PUSH_BODIES, resolved.metrics)
    : undefined;
  const store = options.store ?? new InMemoryTaskStore();
  // The store's warnings (early evictions) go to the router's log unless it has a logger of its own.
  if (store instanceof InMemoryTaskStore) store.useLogger(logger);
  const stopStoreMetrics = resolved.metrics && store.useMetrics?.(resolved.metrics);
  const engine = new TaskEngine(store, handler, logger, resolved, push && ((result) => push.notify(result)), resolved.metrics);
  const stopReplicaDuties = isSharedTaskStore(store) ? startReplicaDuties(engine, store, logger) : undefined;
  const service = new TaskService(engine, store, push, {
    sendWaitMs: resolved.sendWaitMs,
    maxResponseBytes: resolved.maxResponseBytes,
    maxStreamsPerTask: resolved.maxStreamsPerTask,
    maxStreamsPerPrincipal: resolved.maxStreamsPerPrincipal,
  });
  const operations = new AgentOperations(service, {
    streaming: resolved.streaming,
    pushNotifications: resolved.pushNotifications,
    authorize: resolved.auth?.authorize,
  });
  // One line a version: where it is served, from its own options.
  const versions: VersionEndpoint[] = [endpoint01(resolved.protocol03 ? protocol01With03 : protocol01)];
  const { protocol03: options03, protocol10: options10 } = resolved;
  if (options03) versions.push(endpoint03(options03.path, resolved.auth, options03.card));
  if (options10) {
    const others = options03 ? [{ protocolVersion: '0.3', url: (mountUrl: string) => endpointUrl03(mountUrl, options03.path) }] : [];
    versions.push(endpoint10(options10.path, resolved.auth, options10.card, others, resolved.extendedCard));
  }
  const endpoints = versions.map((endpoint) => {
    const runner = createMethodRunner({
      version: endpoint.version,
      operations,
      // Each call's log line says the version it came over.
      logger: logger.child({ protocol: endpoint.version.name }),
      metrics: resolved.metrics,
    });
    return { ...endpoint, runner, dispatch: createDispatcher({ runner, version: endpoint.version, maxBatchSize: resolved.maxBatchSize }) };
  });

  return {
    options: resolved,
    logger,
    store,
    push,
    dispatch: endpoints[0]!.dispatch,
    operations,
    endpoints,
    async drain(deadlineMs) {
      resolved.metrics?.drainStarted();
      const running = engine.runningTaskIds().length;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      try {
        await engine.allEnded(deadline);
        const stopped = await engine.stopAll(SHUTDOWN_MESSAGE);
        await push?.flushed(deadline);
        const report = { finished: running - stopped, stopped };
        logger.info(report, 'drained');
        return report;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      engine.abortAll();
      push?.close();
      await stopReplicaDuties?.();
      stopStoreMetrics?.();
      if (!options.store) await store.close();
    },
  };
}

/**
 * 0.1.0 beside 0.3: a 0.3 method sent to the 0.1.0 endpoint gets a -32601 that says where 0.3 is
 * served, instead of a bare "method not found".
 */
const protocol01With03: ProtocolVersion = {
  ...protocol01,
  methodNotFound(method) {
    if (Object.hasOwn(protocol01.methods, method) || !Object.hasOwn(protocol03.methods, method)) return A2AError.methodNotFound(method);
    return new A2AError(ErrorCode.MethodNotFound, undefined, {
      method,
      reason: `${method} is an A2A 0.3 method; this endpoint speaks A2A 0.1.0. The 0.3 endpoint is the url of /.well-known/agent-card.json`,
    });
  },
};
