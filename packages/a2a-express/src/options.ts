import { pino, type Logger } from 'pino';
import type { AgentCardInput } from './core/agent-card.js';
import type { AuthOptions } from './core/auth.js';
import { checkedExtensions, type AgentExtensionOption } from './core/extensions.js';
import { checkedTenants, type ServedTenants } from './core/tenants.js';
import { CardSigner, type CardSigningOptions } from './core/card-signer.js';
import type { ConfiguredVersion } from './protocol/version.js';
import type { PushNotificationOptions } from './push/push-notifier.js';
import type { StreamEventIds } from './transports/sse.js';
import type { A2AMetrics } from './telemetry/metrics.js';
import type { TaskStore } from './store/task-store.js';
import { VERSIONS, type VersionOptions } from './versions/index.js';
import { corsPolicyOf, type CorsOptions, type CorsPolicy } from './edge/cors.js';

export type { AgentCardInput, AgentExtensionOption, CardSigningOptions, CorsOptions };

/** The `inspector` option (the page itself is served by inspector.ts, in the Express router only). */
export interface InspectorOptions {
  /** Where the page is, below the router. Default `/inspector`. */
  path?: string;
}

/**
 * Options of {@link a2aRouter}. Only `card` is required. Each protocol version served reads
 * options of its own too: see {@link VersionOptions}.
 */
export interface A2ARouterOptions extends VersionOptions {
  /** The agent card served at `GET /.well-known/agent.json`; checked when the router is made. */
  card: AgentCardInput;
  /** Where tasks are kept. Default: a new `InMemoryTaskStore()` with its default bounds. */
  store?: TaskStore;
  /** Largest request body: bytes, or a string such as `'10mb'`. Default `'10mb'`. */
  bodyLimit?: number | string;
  /** Deepest nesting of objects and arrays accepted in a request. Default 100. */
  maxJsonDepth?: number;
  /**
   * How long a blocking send (1.0's `SendMessage`, 0.3's `message/send`, 0.1.0's `tasks/send`)
   * waits for the turn to end before answering with the task as it stands (`working`); the
   * handler keeps running. Milliseconds, default 30,000. `'unbounded'` waits as 1.0 §3.2.2 says,
   * until the task ends or is interrupted (input or auth required), however long that takes; the
   * wait still ends when the client goes away.
   */
  sendWaitMs?: number | 'unbounded';
  /**
   * How long a send's Idempotency-Key, or a new task's `messageId`, answers a retry with the turn
   * its first try started rather than starting another (docs/idempotency.md). Milliseconds,
   * default one hour: the stores' default `retentionMs`, since a retry's answer is its task, and
   * a key that outlives its task runs the message again.
   */
  idempotencyWindowMs?: number;
  /**
   * Whether a new task's `messageId` alone marks a retry (spec 1.0 3.3.1: agents MAY detect
   * duplicate messages by it). Default true. False leaves retries to the Idempotency-Key header:
   * for clients that give different sends one message id and expect a task each, as the official
   * conformance kit does (docs/idempotency.md). A follow-up already in its task's history is
   * still answered as a retry either way.
   */
  retriesByMessageId?: boolean;
  /**
   * Extensions the agent declares (`capabilities.extensions` of its 0.3 and 1.0 cards, spec 1.0
   * 4.6): each with its `uri`, and optionally a `description`, `required` and `params`. A handler
   * reads those a call asks for in `ctx.extensions.requested` and names those it used with
   * `ctx.extensions.activate(uri)`. A 0.3 or 1.0 call that does not ask for a `required` one is
   * refused (1.0: `ExtensionSupportRequiredError`, -32008; 0.3: -32000). Default none.
   */
  extensions?: readonly AgentExtensionOption[];
  /**
   * The tenants the agent serves besides the default one (spec 1.0: `tenant` on every request,
   * `AgentInterface.tenant`, HTTP+JSON's `/{tenant}/…` paths; docs/tenants.md): a list of names,
   * or a function that says yes to those served (asked only of tenants of at most 256 characters:
   * a longer one is refused on every store). Each tenant's tasks and push configs are its own:
   * another tenant's are not found, whoever asks. A call naming a tenant not served is refused
   * (-32602). 0.3 and 0.1.0 have no tenants: they reach the default tenant. Default: the
   * default tenant only.
   */
  tenants?: readonly string[] | ((tenant: string) => boolean);
  /**
   * List each tenant of `tenants` (a list) in the 1.0 card, with every 1.0 interface again, its
   * `tenant` set. Default false: a client that picks one interface per binding from a card (the
   * SDK 1.x takes the last one listed) would otherwise land in a tenant.
   */
  listTenantsInCard?: boolean;
  /**
   * Sign every 1.0 and 0.3 card the router serves (spec 1.0 8.4), the extended card too: a
   * private key with its `kid` (and `alg`), or `{ keys: [...], jku? }` to sign with several (key
   * rotation: each signs). The public keys are served at `/.well-known/jwks.json`; `jku` names
   * another place in each signature's header. Needs `card.url`: a signed card names the URL the
   * operator gave, never one built from the request's `Host`. docs/signed-cards.md. Default: unsigned.
   */
  cardSigning?: CardSigningOptions;
  /** Serve `tasks/sendSubscribe` and `tasks/resubscribe`. Default true. */
  streaming?: boolean;
  /**
   * Serve push notifications (`tasks/pushNotification/*`, `pushNotification` on sends, signed
   * webhooks, `GET /.well-known/jwks.json`): `true` for the defaults, or options. Default off.
   */
  pushNotifications?: boolean | PushNotificationOptions;
  /**
   * Authentication (strategies such as `bearerJwt`, `apiKey`, `customAuth`) and an optional
   * authorization hook. The card's `authentication` is filled from the strategies. Default:
   * none, every request is served (and the agent logs that it runs open).
   */
  auth?: AuthOptions;
  /** Interval of SSE keep-alive comments, milliseconds. Default 15,000. */
  heartbeatMs?: number;
  /**
   * Bytes one stream (SSE or gRPC) holds for a client that does not read, its first event
   * included, before it is cut: at once for events queued behind a full connection, at the
   * second heartbeat for what was already handed to it. Default 4 MiB.
   */
  maxStreamQueueBytes?: number;
  /**
   * Most streams (`SubscribeToTask`, streamed sends, resubscriptions; every version) open on one
   * task at once in this process; one more gets -32011 (HTTP+JSON: 503). Each stream holds a
   * connection, and so a file descriptor. Default 50.
   */
  maxStreamsPerTask?: number;
  /**
   * Most streams one principal holds open at once in this process, over all its tasks; without
   * authentication, one client address (`req.ip`: set Express's `trust proxy` behind a proxy,
   * or every client is the proxy; over gRPC the peer's address without its port). SSE and gRPC
   * streams count together. One more gets -32011 (HTTP+JSON: 503). A stream that closes
   * frees its place, so a client coming back with `Last-Event-ID` after its connection dropped
   * gets its replay. Default 500.
   */
  maxStreamsPerPrincipal?: number;
  /**
   * Which SSE streams carry an `id:` per event (what `Last-Event-ID` resumes from).
   * `'when-asked'` (default): streams whose request says `Prefer: sse-event-ids` or carries
   * `Last-Event-ID`; the others are plain `data:` blocks, which the protocol's reference
   * clients need. `'always'`: every stream, for deployments whose clients all parse SSE as the
   * HTML standard says (the reference JS client does not, and then sees no event at all).
   */
  streamEventIds?: StreamEventIds;
  /**
   * Most characters of one JSON-RPC response or SSE event the router sends. Answers are bounded
   * by `maxTaskBytes` already (a task's answer is at most about twice what it holds); one that
   * still comes out larger, or cannot be serialized at all, is replaced by -32603 with a reason
   * (on a stream, as its last event). Default 4 × `maxTaskBytes` (64 MiB), at most 256 MiB.
   */
  maxResponseBytes?: number;
  /** Most requests in one JSON-RPC batch. Default 20. */
  maxBatchSize?: number;
  /** Most parts in one message a client sends; more → -32602. Default 1,000. */
  maxPartsPerMessage?: number;
  /**
   * Most bytes one task keeps, its history and artifacts together (an estimate from the length of
   * their strings). A message that would take a task past it gets -32602; an agent whose output
   * would, fails the task with a message that says so. Default 16 MiB (more than one request of
   * the default `bodyLimit`).
   */
  maxTaskBytes?: number;
  /**
   * What becomes of a turn whose process was lost (killed, out of memory, a node gone: its lease
   * ran out), on a store replicas share (Redis, PostgreSQL; docs/replicas.md). `'fail'` (default):
   * the replica that finds it fails the task, saying so. `'resume'`: that replica runs the turn's
   * handler again, with `ctx.resumed` (the attempt, and the turn's last checkpoint); one process
   * at a time runs a turn, and the writes of an earlier attempt are refused. The in-memory store
   * has no other process to resume on: this changes nothing there. Env: `A2A_ON_INTERRUPTED`.
   * With `'resume'`, a drain also hands the turns still running at its deadline over to another
   * replica rather than fail them (docs/replicas.md, "Hand-over on deploy").
   */
  onInterrupted?: 'fail' | 'resume';
  /**
   * With `onInterrupted: 'resume'`, most runs of one turn: a turn whose process is lost this many
   * times is failed, with a status message that says so, rather than run again. Hand-overs by a
   * draining replica do not count. Default 3.
   */
  maxAttempts?: number;
  /** Most bytes of JSON in one checkpoint (an update's `checkpoint`); a larger one fails the turn as an invalid update. Default 65,536. */
  maxCheckpointBytes?: number;
  /**
   * What this replica does, on a store replicas share that has a turn queue (Redis, PostgreSQL;
   * docs/replicas.md, "Front ends and workers"). `'all'` (default): it takes calls and runs the
   * turns they start, as always. `'front-end'`: it takes calls, and queues their turns in the store
   * for a worker; it runs no handler; its readiness says not ready while no worker is alive.
   * `'worker'`: it runs the handlers of queued turns, `maxConcurrentTurns` at a time, and is meant
   * to take no calls (serve it without the router: `a2aAgent`, or an app that mounts only its
   * health and metrics). The in-memory store serves `'all'` only: another role is refused at start
   * with a TypeError. Env: `A2A_ROLE`.
   */
  role?: 'all' | 'front-end' | 'worker';
  /**
   * With `role: 'worker'`, most turns whose handlers run in this process at once; the others wait
   * in the queue for this worker or another. Default 32. Env: `A2A_MAX_CONCURRENT_TURNS`.
   */
  maxConcurrentTurns?: number;
  /**
   * Refuse (-32005, on every version) a client's part whose media type the card's input modes do
   * not list: `defaultInputModes` (default `["text/plain"]`) and every skill's `inputModes`. A text
   * part is `text/plain`, a data part `application/json`, a file part its `mimeType`
   * (`application/octet-stream` without one). Modes may be wildcards (`image/*`, `*\/*`); `"text"`
   * stands for `text/plain`. Default true; false lets every part through to the handler.
   */
  enforceInputModes?: boolean;
  /** Logger; the router logs through a child of it. Default: `pino()` at level `info`. */
  logger?: Logger;
  /**
   * Prometheus metrics: calls, durations, streams, turns, the store, push deliveries, Redis
   * commands, drains (docs/observability.md lists them). `true` collects them in a registry of the
   * router's own; or give the metrics made with `a2aMetrics({ registry, prefix })`. Serve them with
   * `router.metrics.handler`. Default off.
   */
  metrics?: boolean | A2AMetrics;
  /**
   * The A2A inspector (the page of `a2a inspect`, from the a2a-client package) at `/inspector`
   * below the router, opened on this agent: its cards, a chat, task timelines, the raw exchanges,
   * push notifications. `true`, or `{ path }`. For development only: whoever reaches it can call
   * the agent. Default off.
   */
  inspector?: boolean | InspectorOptions;
  /**
   * Cross-origin calls from pages on other origins (a browser client, a hosted inspector, a card
   * registry): `{ origins: ['https://app.example.com'] }`, `'*'`, or a function; see
   * {@link CorsOptions}. Preflights are answered on the cards, the JSON-RPC endpoints and the
   * HTTP+JSON binding, and the headers clients read are exposed. Default off: no page on another
   * origin can read the agent's answers.
   */
  cors?: CorsOptions;
}

/** The options with every default applied. */
export interface ResolvedOptions {
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  /** Infinity for `'unbounded'`. */
  readonly sendWaitMs: number;
  readonly idempotencyWindowMs: number;
  readonly retriesByMessageId: boolean;
  readonly streaming: boolean;
  readonly extensions: readonly AgentExtensionOption[];
  /** The tenants served besides the default one; undefined: none. */
  readonly tenants: ServedTenants | undefined;
  /** Undefined when cards are not signed. */
  readonly cardSigner: CardSigner | undefined;
  /** Undefined when push notifications are off. */
  readonly pushNotifications: PushNotificationOptions | undefined;
  readonly heartbeatMs: number;
  readonly maxStreamQueueBytes: number;
  readonly maxStreamsPerTask: number;
  readonly maxStreamsPerPrincipal: number;
  readonly maxResponseBytes: number;
  readonly streamEventIds: StreamEventIds;
  readonly maxBatchSize: number;
  readonly maxPartsPerMessage: number;
  readonly maxTaskBytes: number;
  readonly onInterrupted: 'fail' | 'resume';
  readonly maxAttempts: number;
  readonly maxCheckpointBytes: number;
  readonly role: 'all' | 'front-end' | 'worker';
  readonly maxConcurrentTurns: number;
  /** The media types a client's parts may have; undefined when `enforceInputModes` is off. */
  readonly acceptedInputModes: readonly string[] | undefined;
  readonly logger: Logger;
  readonly auth: AuthOptions | undefined;
  /** The versions served, oldest first, each with its options read. */
  readonly versions: readonly ConfiguredVersion[];
  /** Undefined when metrics are off. */
  readonly metrics: A2AMetrics | undefined;
  /** Undefined when CORS is off. */
  readonly cors: CorsPolicy | undefined;
}

/** Well within V8's longest string (2^29 - 24 characters), which one answer must fit in. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function resolveOptions(options: A2ARouterOptions): ResolvedOptions {
  const versions = servedVersions(options);
  const maxTaskBytes = positiveInteger(options.maxTaskBytes ?? 16 * 1024 * 1024, 'maxTaskBytes');
  return {
    bodyLimit: options.bodyLimit ?? '10mb',
    maxJsonDepth: positiveInteger(options.maxJsonDepth ?? 100, 'maxJsonDepth'),
    sendWaitMs: options.sendWaitMs === 'unbounded' ? Number.POSITIVE_INFINITY : positiveInteger(options.sendWaitMs ?? 30_000, 'sendWaitMs'),
    idempotencyWindowMs: positiveInteger(options.idempotencyWindowMs ?? 60 * 60 * 1000, 'idempotencyWindowMs'),
    retriesByMessageId: options.retriesByMessageId ?? true,
    extensions: checkedExtensions(options.extensions),
    tenants: checkedTenants(options.tenants, options.listTenantsInCard === true),
    cardSigner: options.cardSigning && new CardSigner(options.cardSigning, options.card.url),
    streaming: options.streaming ?? true,
    pushNotifications: pushNotificationsOf(options.pushNotifications),
    heartbeatMs: positiveInteger(options.heartbeatMs ?? 15_000, 'heartbeatMs'),
    maxStreamQueueBytes: positiveInteger(options.maxStreamQueueBytes ?? 4 * 1024 * 1024, 'maxStreamQueueBytes'),
    maxStreamsPerTask: positiveInteger(options.maxStreamsPerTask ?? 50, 'maxStreamsPerTask'),
    maxStreamsPerPrincipal: positiveInteger(options.maxStreamsPerPrincipal ?? 500, 'maxStreamsPerPrincipal'),
    streamEventIds: oneOf(options.streamEventIds ?? 'when-asked', ['when-asked', 'always'], 'streamEventIds'),
    maxBatchSize: positiveInteger(options.maxBatchSize ?? 20, 'maxBatchSize'),
    maxPartsPerMessage: positiveInteger(options.maxPartsPerMessage ?? 1_000, 'maxPartsPerMessage'),
    maxTaskBytes,
    onInterrupted: oneOf(options.onInterrupted ?? 'fail', ['fail', 'resume'], 'onInterrupted'),
    maxAttempts: positiveInteger(options.maxAttempts ?? 3, 'maxAttempts'),
    maxCheckpointBytes: positiveInteger(options.maxCheckpointBytes ?? 64 * 1024, 'maxCheckpointBytes'),
    role: oneOf(options.role ?? 'all', ['all', 'front-end', 'worker'], 'role'),
    maxConcurrentTurns: positiveInteger(options.maxConcurrentTurns ?? 32, 'maxConcurrentTurns'),
    maxResponseBytes: atMost(
      positiveInteger(options.maxResponseBytes ?? Math.min(4 * maxTaskBytes, MAX_RESPONSE_BYTES), 'maxResponseBytes'),
      MAX_RESPONSE_BYTES,
      'maxResponseBytes',
    ),
    acceptedInputModes: options.enforceInputModes === false ? undefined : inputModesOf(options.card, versions),
    logger: options.logger ?? pino({ level: 'info' }),
    auth: checkedAuth(options.auth),
    versions,
    metrics: metricsOf(options.metrics),
    cors: corsPolicyOf(options.cors),
  };
}

/**
 * The versions the options serve, each with its options read; throws a TypeError when two are
 * served at one path.
 */
function servedVersions(options: A2ARouterOptions): ConfiguredVersion[] {
  const served: { name: string; version: ConfiguredVersion }[] = [];
  for (const { protocol, configure } of VERSIONS) {
    const version = configure(options);
    if (!version) continue;
    const clash = served.find((other) => other.version.path === version.path);
    if (clash) {
      throw new TypeError(
        `a2aRouter: A2A ${clash.name} and A2A ${protocol.name} are both served at ${version.path}; each version needs its own path`,
      );
    }
    served.push({ name: protocol.name, version });
  }
  return served.map(({ version }) => version);
}

/**
 * Every input mode a card of the agent lists: the card's default ones (`text/plain` when it names
 * none) and each skill's, and those each version's card fields add, so that no client is refused
 * a mode its card lists.
 */
function inputModesOf(card: AgentCardInput, versions: readonly ConfiguredVersion[]): readonly string[] {
  const modes = new Set<string>(card.defaultInputModes ?? ['text/plain']);
  for (const skill of card.skills ?? []) for (const mode of skill.inputModes ?? []) modes.add(mode);
  for (const version of versions) for (const mode of version.inputModes) modes.add(mode);
  return [...modes];
}

function pushNotificationsOf(option: boolean | PushNotificationOptions | undefined): PushNotificationOptions | undefined {
  if (option === undefined || option === false) return undefined;
  return typeof option === 'object' && option !== null ? option : {};
}

function metricsOf(option: boolean | A2AMetrics | undefined): A2AMetrics | undefined {
  if (option === undefined || option === false) return undefined;
  // Node's entries made them already (withMetricsMade): prom-client, which they are made with, needs Node.
  if (option === true)
    throw new TypeError(
      "a2aFetchHandler: options.metrics: true needs prom-client, which needs Node; give the metrics made with a2aMetrics() (from 'a2a-express')",
    );
  if (
    option === null ||
    typeof option !== 'object' ||
    (option as unknown as Record<symbol, unknown>)[Symbol.for('a2a-express.metrics')] !== true
  )
    throw new TypeError('a2aRouter: options.metrics must be true, false or the metrics made with a2aMetrics()');
  return option;
}

function checkedAuth(auth: AuthOptions | undefined): AuthOptions | undefined {
  if (auth === undefined) return undefined;
  if (!Array.isArray(auth.strategies) || auth.strategies.length === 0) {
    throw new TypeError('a2aRouter: options.auth.strategies needs at least one strategy');
  }
  return auth;
}

function oneOf<T extends string>(value: T, allowed: readonly T[], name: string): T {
  if (!allowed.includes(value)) {
    throw new TypeError(
      `a2aRouter: options.${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function atMost(value: number, limit: number, name: string): number {
  if (value > limit) throw new TypeError(`a2aRouter: options.${name} must be at most ${limit}, got ${value}`);
  return value;
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`a2aRouter: options.${name} must be a positive integer, got ${String(value)}`);
  }
  return value;
}
