// An agent without a transport: the options resolved, the store, the engine, push
// notifications, the replica duties, the operations every binding calls, and each version served
// with its method runner and JSON-RPC dispatch. The Express router is one transport on top of it
// (router.ts); a test, or another binding, calls `operations` (or a version's `dispatch`) directly.
import type { CardSigner } from './core/card-signer.js';
import type { Logger } from 'pino';
import { createDispatcher, type Dispatch } from './transports/json-rpc.js';
import { createMethodRunner, type MethodRunner } from './transports/method-runner.js';
import { CallEntry } from './transports/call-entry.js';
import type { ListedInterface, ProtocolVersion, VersionEndpoint } from './protocol/version.js';
import type { AgentCard } from 'a2a-types/model';
import { prepareCard } from './core/agent-card.js';
import { cardAuthentication } from './core/auth.js';
import type { TaskHandler } from './core/handler.js';
import { routerLogger } from './logging.js';
import { resolveOptions, type A2ARouterOptions, type ResolvedOptions } from './options.js';
import { PushNotifier } from './push/push-notifier.js';
import { ClaimsInProcess } from './store/idempotency-claims.js';
import { InMemoryTaskStore } from './store/in-memory.js';
import { startReplicaDuties } from './store/replica-duties.js';
import { hasTurnQueue, isSharedTaskStore, type TaskStore } from './store/task-store.js';
import { startTurnWorker } from './store/turn-workers.js';
import { TaskEngine } from './core/task-engine.js';
import { TaskService, type IdempotencySettings } from './core/task-service.js';
import { AgentOperations } from './core/agent-operations.js';
import { carriedBy } from './core/method.js';
import { VERSIONS } from './versions/index.js';

/** What a drain did. */
export interface DrainReport {
  /** Turns that finished by themselves within the deadline. */
  finished: number;
  /** Turns still running at the deadline, failed with {@link SHUTDOWN_MESSAGE}. */
  stopped: number;
  /**
   * Turns still running at the deadline that were handed over to the other replicas instead
   * (`onInterrupted: 'resume'` on a shared store; docs/replicas.md, "Hand-over on deploy").
   * Absent when the drain fails them (without resume, or on a store of one process).
   */
  handedOver?: number;
}

/**
 * Longest a drain that hands turns over waits for a stream here to be given its turn's hand-over
 * event (a shared store's notice of it may come after the write) before it ends the stream anyway.
 */
const STREAM_CATCH_UP_MS = 1_000;

/** The status message of a turn that a shutdown stopped before it finished. */
export const SHUTDOWN_MESSAGE =
  'The agent shut down before this task finished; to retry, send the message again as a new task (a new task id).';

export interface AgentCore {
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  readonly store: TaskStore;
  /** Present when push notifications are on. */
  readonly push: PushNotifier | undefined;
  /** The JSON-RPC of the oldest version served (the first of `endpoints`). */
  readonly dispatch: Dispatch;
  /** The operations every version and binding calls: for a binding of its own, or a test, with no transport. */
  readonly operations: AgentOperations;
  /** Every version served, each with its JSON-RPC dispatch over the same tasks: what the router mounts. */
  readonly endpoints: readonly ServedEndpoint[];
  /**
   * Lists an interface served outside the router (the gRPC server's) on the cards, beside the
   * router's own, as it is at the URL a card is served from; the function it returns takes it
   * off again.
   */
  listInterface(listed: (mountUrl: string) => ListedInterface): () => void;
  /**
   * The agent's card as served where the router is mounted (`mountUrl`; without one, the card's
   * own `url`, or a stand-in): what each version's card is made from.
   */
  agentCard(mountUrl?: string): AgentCard;
  /**
   * Lets the running turns finish until `deadlineMs`, then fails the rest, or with resume on a
   * shared store hands them over to the other replicas and ends this process's streams for their
   * clients to resubscribe; see `A2ARouter.drain`. From its start, every binding refuses new
   * calls (`draining`).
   */
  drain(deadlineMs: number): Promise<DrainReport>;
  /** Whether a drain has begun: the agent takes no new calls. */
  readonly draining: boolean;
  /**
   * Why the agent cannot get its work done though its store answers (a front end with no live
   * worker), for its readiness; undefined when it can. Absent for role `all`.
   */
  readonly checkWork: (() => Promise<string | undefined>) | undefined;
  /** Aborts the running handlers and releases what the core made itself. */
  close(): Promise<void>;
}

/** A version's endpoint, and the dispatch that serves it. */
export interface ServedEndpoint extends VersionEndpoint {
  /** Runs a call of one of the version's methods, whatever binding carries it. */
  readonly runner: MethodRunner;
  /** The way into the version's calls (draining, credentials, version), and how a refusal is accounted for. */
  readonly entry: CallEntry;
  /** The version's JSON-RPC. */
  readonly dispatch: Dispatch;
}

/**
 * Every version's push format, by the version a webhook is set over: served or not, a webhook a
 * client set over a version keeps getting that version's body.
 */
const PUSH_BODIES = Object.fromEntries(
  VERSIONS.map(({ protocol }) => [protocol.name, { ...protocol.pushDelivery, body: protocol.pushBody }]),
);

/**
 * Builds an agent from its handler and the router's options. `who` names the function the user
 * called (`a2aRouter`, `a2aFetchHandler`, ...), for the TypeError of a missing handler or card;
 * a bad option is a TypeError too.
 */
export function createAgentCore(handler: TaskHandler, options: A2ARouterOptions, who = 'a2aRouter'): AgentCore {
  if (typeof handler !== 'function') throw new TypeError(`${who}: the handler must be a function`);
  if (!options || typeof options.card !== 'object') throw new TypeError(`${who}: options.card is required`);
  const resolved = resolveOptions(options);
  // Checked before anything is started, so that a bad card leaves nothing running.
  const agentCard = prepareCard(options.card, {
    streaming: resolved.streaming,
    pushNotifications: resolved.pushNotifications !== undefined,
    authentication: resolved.auth && cardAuthentication(resolved.auth),
  });
  const store = options.store ?? new InMemoryTaskStore();
  // Checked before anything is started too: a front end or a worker hands turns over through the store.
  if (resolved.role !== 'all' && !hasTurnQueue(store)) {
    const which = store instanceof InMemoryTaskStore ? 'the in-memory task store' : 'this task store';
    throw new TypeError(
      `${who}: role '${resolved.role}' needs a task store that replicas share, with a turn queue (RedisTaskStore, PostgresTaskStore); ${which} serves role 'all' only`,
    );
  }
  const logger = routerLogger(resolved.logger);
  const push = resolved.pushNotifications && new PushNotifier(resolved.pushNotifications, logger, PUSH_BODIES, resolved.metrics);
  // The store's warnings (early evictions) go to the router's log unless it has a logger of its own.
  if (store instanceof InMemoryTaskStore) store.useLogger(logger);
  const stopStoreMetrics = resolved.metrics && store.useMetrics?.(resolved.metrics);
  const shared = isSharedTaskStore(store);
  const engine = new TaskEngine(store, handler, logger, resolved, push && ((result) => push.notify(result)), resolved.metrics, shared);
  const stopReplicaDuties = shared ? startReplicaDuties(engine, store, logger) : undefined;
  const queue = resolved.role !== 'all' && hasTurnQueue(store) ? store : undefined;
  const worker =
    queue && resolved.role === 'worker'
      ? startTurnWorker(engine, queue, { maxConcurrentTurns: resolved.maxConcurrentTurns, logger })
      : undefined;
  const stopQueueMetrics =
    queue &&
    resolved.metrics?.watchTurnQueue({
      figures: () => queue.queueFigures(),
      liveWorkers: () => queue.liveWorkers(),
      ...(worker && { running: () => worker.running() }),
    });
  // A front end is not ready while nothing would run what it queues.
  const checkWork =
    queue && resolved.role === 'front-end'
      ? async (): Promise<string | undefined> => {
          if ((await queue.liveWorkers()) > 0) return undefined;
          const { depth, oldestAgeMs } = await queue.queueFigures();
          const waiting = depth === 0 ? 'none waits yet' : `${depth} wait, the oldest for ${Math.round(oldestAgeMs / 1000)} s`;
          return `no worker is alive to run turns (role front-end: turns wait in the task store's queue until a worker with A2A_ROLE=worker starts; ${waiting})`;
        }
      : undefined;
  const service = new TaskService(
    engine,
    store,
    push,
    {
      sendWaitMs: resolved.sendWaitMs,
      maxResponseBytes: resolved.maxResponseBytes,
      maxStreamsPerTask: resolved.maxStreamsPerTask,
      maxStreamsPerPrincipal: resolved.maxStreamsPerPrincipal,
    },
    idempotencyOf(store, resolved.idempotencyWindowMs, resolved.retriesByMessageId),
  );
  const operations = new AgentOperations(service, {
    streaming: resolved.streaming,
    pushNotifications: push !== undefined,
    authorize: resolved.auth?.authorize,
    requiredExtensions: resolved.extensions.filter((extension) => extension.required === true).map((extension) => extension.uri),
    tenants: resolved.tenants,
  });
  const listedElsewhere = new Set<(mountUrl: string) => ListedInterface>();
  let draining = false;
  const endpoints = servedEndpoints(resolved, listedElsewhere).map((endpoint) => {
    const runner = createMethodRunner({
      version: endpoint.version,
      operations,
      // Each call's log line says the version it came over.
      logger: logger.child({ protocol: endpoint.version.name }),
      metrics: resolved.metrics,
    });
    const entry = new CallEntry({
      runner,
      auth: resolved.auth,
      refusesVersion: endpoint.refusesVersion,
      isDraining: () => draining,
    });
    return {
      ...endpoint,
      runner,
      entry,
      dispatch: createDispatcher({ runner, version: endpoint.version, maxBatchSize: resolved.maxBatchSize }),
    };
  });

  return {
    options: resolved,
    logger,
    store,
    push,
    dispatch: endpoints[0]!.dispatch,
    operations,
    endpoints,
    agentCard,
    listInterface(listed) {
      listedElsewhere.add(listed);
      return () => listedElsewhere.delete(listed);
    },
    get draining() {
      return draining;
    },
    checkWork,
    async drain(deadlineMs) {
      draining = true;
      // A worker takes no more turns from the queue: other workers will.
      await worker?.stop();
      resolved.metrics?.drainStarted();
      const running = engine.runningTaskIds().length;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      try {
        await engine.allEnded(deadline);
        let stopped = 0;
        let handedOver = 0;
        if (engine.handsOverOnDrain) {
          const handed = await engine.handOverAll();
          handedOver = handed.size;
          // Each handed-over turn's streams here end after its hand-over event, and their clients
          // resubscribe on another replica; so do those of turns running elsewhere, at once.
          await service.endStreamsForReconnect(handed, STREAM_CATCH_UP_MS);
        } else {
          stopped = await engine.stopAll(SHUTDOWN_MESSAGE);
        }
        await push?.flushed(deadline);
        const report: DrainReport = { finished: running - stopped - handedOver, stopped };
        if (engine.handsOverOnDrain) report.handedOver = handedOver;
        logger.info(report, 'drained');
        return report;
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      await worker?.stop();
      stopQueueMetrics?.();
      engine.abortAll();
      push?.close();
      await stopReplicaDuties?.();
      stopStoreMetrics?.();
      if (!options.store) await store.close();
    },
  };
}

/**
 * Each version served, where its endpoint is: its card lists the other versions' interfaces (and
 * those served outside the router: gRPC), and a method it lacks that another version has gets a
 * -32601 that says where that version is.
 */
function servedEndpoints(
  { versions, auth, extensions, tenants, cardSigner }: ResolvedOptions,
  listedElsewhere: ReadonlySet<(mountUrl: string) => ListedInterface>,
): VersionEndpoint[] {
  const endpoints = versions.map((version) =>
    version.endpoint({
      auth,
      extensions,
      listedTenants: tenants?.listed ?? [],
      otherInterfaces: (mountUrl) => [
        ...versions.filter((other) => other !== version).flatMap((other) => other.listedInterfaces?.(mountUrl) ?? []),
        ...[...listedElsewhere].map((listed) => listed(mountUrl)),
      ],
    }),
  );
  return endpoints.map((endpoint) => ({
    ...endpoint,
    version: pointingElsewhere(endpoint.version, endpoints),
    ...(endpoint.extendedCard && cardSigner && { extendedCard: signedExtendedCard(endpoint, cardSigner) }),
  }));
}

/** The endpoint's extended card, signed as its public card is (spec 1.0 8.4). */
function signedExtendedCard(endpoint: VersionEndpoint, signer: CardSigner): NonNullable<VersionEndpoint['extendedCard']> {
  const extendedCard = endpoint.extendedCard!;
  return async (agentCard, principal) => signer.sign(await extendedCard(agentCard, principal), endpoint.version.name);
}

/** `version`, whose -32601 names the other version served that has the method, if one does. */
function pointingElsewhere(version: ProtocolVersion, endpoints: readonly VersionEndpoint[]): ProtocolVersion {
  const { methodNotFound } = version;
  if (!methodNotFound) return version;
  return {
    ...version,
    methodNotFound(method) {
      // A method a binding alone carries (0.3's `tasks/list`, HTTP+JSON's) is not one a JSON-RPC caller finds elsewhere.
      const servedBy = endpoints.find(
        (other) =>
          other.version !== version && Object.hasOwn(other.version.methods, method) && carriedBy(other.version.methods[method]!, 'jsonrpc'),
      );
      return methodNotFound(method, servedBy?.version);
    },
  };
}

/**
 * Where sends claim their idempotency keys: the store, or for a store of the app's that keeps none,
 * this process (a retry that reaches another replica is not recognized then: docs/idempotency.md).
 */
function idempotencyOf(store: TaskStore, windowMs: number, byMessageId: boolean): IdempotencySettings {
  if (store.claimIdempotencyKey) return { windowMs, byMessageId, claim: (key, claim, ms) => store.claimIdempotencyKey!(key, claim, ms) };
  const claims = new ClaimsInProcess(IN_PROCESS_CLAIMS);
  return { windowMs, byMessageId, claim: async (key, claim, ms) => claims.claim(key, claim, ms) };
}

/** Most keys the router keeps itself for a store without claims: the in-memory store's default. */
const IN_PROCESS_CLAIMS = 20_000;
