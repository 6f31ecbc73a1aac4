import { pino, type Logger } from 'pino';
import type { AuthOptions } from './core/auth.js';
import type { PushNotificationOptions } from './push/push-notifier.js';
import type { StreamEventIds } from './transports/sse.js';
import type { InspectorOptions } from './inspector.js';
import { A2AMetrics } from './telemetry/metrics.js';
import type { TaskStore } from './store/task-store.js';
import type { AgentCardInput } from './versions/v0_1/index.js';
import type { AgentCard03Input } from './versions/v0_3/index.js';
import type { AgentCard10Input, ExtendedCardOption } from './versions/v1_0/index.js';

export type { AgentCardInput };

/** Options of {@link a2aRouter}. Only `card` is required. */
export interface A2ARouterOptions {
  /** The agent card served at `GET /.well-known/agent.json`; checked when the router is made. */
  card: AgentCardInput;
  /** Where tasks are kept. Default: a new `InMemoryTaskStore()` with its default bounds. */
  store?: TaskStore;
  /** Largest request body: bytes, or a string such as `'10mb'`. Default `'10mb'`. */
  bodyLimit?: number | string;
  /** Deepest nesting of objects and arrays accepted in a request. Default 100. */
  maxJsonDepth?: number;
  /**
   * How long `tasks/send` waits for the turn to end before answering with the task as it
   * stands (`working`); the handler keeps running. Milliseconds, default 30,000.
   */
  sendWaitMs?: number;
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
  /** Bytes queued for one stream whose client does not read, before it is cut. Default 4 MiB. */
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
   * or every client is the proxy). One more gets -32011 (HTTP+JSON: 503). A stream that closes
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
   * Serve A2A 0.3 beside 0.1.0, from the same handler and the same tasks: its JSON-RPC methods
   * (`message/send`, `message/stream`, ...) at `path` and its card at
   * `GET /.well-known/agent-card.json`. Default on; `false` serves 0.1.0 only.
   */
  protocol03?: boolean | Protocol03Options;
  /**
   * Serve A2A 1.0 beside 0.1.0 (and 0.3), from the same handler and the same tasks: its JSON-RPC
   * methods (`SendMessage`, `SendStreamingMessage`, ...) at `path`, its card at
   * `${path}/.well-known/agent-card.json` and, to a client that asks for 1.0 (`A2A-Version`), at
   * `GET /.well-known/agent-card.json`. Default on; `false` leaves 1.0 out.
   */
  protocol10?: boolean | Protocol10Options;
  /**
   * A fuller card for authenticated callers (A2A 1.0 `GetExtendedAgentCard`, `GET
   * /extendedAgentCard`): fields to add to, or replace in, the 1.0 card (more skills, say), or a
   * function of the caller that gives them. The public card then says
   * `capabilities.extendedAgentCard: true`. Needs `auth`: the extended card is for callers who
   * authenticated (spec 1.0 3.1.11).
   */
  extendedCard?: ExtendedCardOption;
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
}

/** Options of the A2A 1.0 bindings. */
export interface Protocol10Options {
  /** Where the 1.0 interface is, relative to the router's mount. Default `'/v1'`. */
  path?: string;
  /** Fields to add to, or replace in, the 1.0 card the router makes from `card` (e.g. `iconUrl`). */
  card?: AgentCard10Input;
}

/** Options of the A2A 0.3 binding. */
export interface Protocol03Options {
  /**
   * Where the 0.3 JSON-RPC endpoint is, relative to the router's mount. Default `'/v0.3'`. It
   * cannot share `/` with 0.1.0: `tasks/get`, `tasks/cancel` and `tasks/resubscribe` have the same
   * names in both versions and different answers.
   */
  path?: string;
  /** Fields to add to, or replace in, the 0.3 card the router makes from `card` (e.g. `iconUrl`). */
  card?: AgentCard03Input;
}

/** The options with every default applied. */
export interface ResolvedOptions {
  readonly bodyLimit: number | string;
  readonly maxJsonDepth: number;
  readonly sendWaitMs: number;
  readonly streaming: boolean;
  readonly pushNotifications: boolean;
  readonly heartbeatMs: number;
  readonly maxStreamQueueBytes: number;
  readonly maxStreamsPerTask: number;
  readonly maxStreamsPerPrincipal: number;
  readonly maxResponseBytes: number;
  readonly streamEventIds: StreamEventIds;
  readonly maxBatchSize: number;
  readonly maxPartsPerMessage: number;
  readonly maxTaskBytes: number;
  /** The media types a client's parts may have; undefined when `enforceInputModes` is off. */
  readonly acceptedInputModes: readonly string[] | undefined;
  readonly logger: Logger;
  readonly auth: AuthOptions | undefined;
  /** The 0.3 binding's settings; undefined when it is off. */
  readonly protocol03: Required<Protocol03Options> | undefined;
  /** The 1.0 bindings' settings; undefined when they are off. */
  readonly protocol10: Required<Protocol10Options> | undefined;
  readonly extendedCard: ExtendedCardOption | undefined;
  /** Undefined when metrics are off. */
  readonly metrics: A2AMetrics | undefined;
}

/** Well within V8's longest string (2^29 - 24 characters), which one answer must fit in. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function resolveOptions(options: A2ARouterOptions): ResolvedOptions {
  const protocol03 = protocol03Of(options.protocol03 ?? true);
  const protocol10 = protocol10Of(options.protocol10 ?? true);
  if (protocol03 && protocol10 && protocol03.path === protocol10.path) {
    throw new TypeError(
      `a2aRouter: options.protocol03.path and options.protocol10.path are both ${protocol03.path}; each version needs its own`,
    );
  }
  const maxTaskBytes = positiveInteger(options.maxTaskBytes ?? 16 * 1024 * 1024, 'maxTaskBytes');
  return {
    bodyLimit: options.bodyLimit ?? '10mb',
    maxJsonDepth: positiveInteger(options.maxJsonDepth ?? 100, 'maxJsonDepth'),
    sendWaitMs: positiveInteger(options.sendWaitMs ?? 30_000, 'sendWaitMs'),
    streaming: options.streaming ?? true,
    pushNotifications: options.pushNotifications !== undefined && options.pushNotifications !== false,
    heartbeatMs: positiveInteger(options.heartbeatMs ?? 15_000, 'heartbeatMs'),
    maxStreamQueueBytes: positiveInteger(options.maxStreamQueueBytes ?? 4 * 1024 * 1024, 'maxStreamQueueBytes'),
    maxStreamsPerTask: positiveInteger(options.maxStreamsPerTask ?? 50, 'maxStreamsPerTask'),
    maxStreamsPerPrincipal: positiveInteger(options.maxStreamsPerPrincipal ?? 500, 'maxStreamsPerPrincipal'),
    streamEventIds: oneOf(options.streamEventIds ?? 'when-asked', ['when-asked', 'always'], 'streamEventIds'),
    maxBatchSize: positiveInteger(options.maxBatchSize ?? 20, 'maxBatchSize'),
    maxPartsPerMessage: positiveInteger(options.maxPartsPerMessage ?? 1_000, 'maxPartsPerMessage'),
    maxTaskBytes,
    maxResponseBytes: atMost(
      positiveInteger(options.maxResponseBytes ?? Math.min(4 * maxTaskBytes, MAX_RESPONSE_BYTES), 'maxResponseBytes'),
      MAX_RESPONSE_BYTES,
      'maxResponseBytes',
    ),
    acceptedInputModes: options.enforceInputModes === false ? undefined : inputModesOf(options.card, [protocol03?.card, protocol10?.card]),
    logger: options.logger ?? pino({ level: 'info' }),
    auth: checkedAuth(options.auth),
    protocol03,
    protocol10,
    extendedCard: checkedExtendedCard(options),
    metrics: metricsOf(options.metrics),
  };
}

/**
 * Every input mode a card of the agent lists: the card's default ones (`text/plain` when it names
 * none) and each skill's, and those the 0.3 and 1.0 cards' overrides add, so that no client is refused
 * a mode its card lists.
 */
function inputModesOf(card: AgentCardInput, overrides: readonly (AgentCard03Input | AgentCard10Input | undefined)[]): readonly string[] {
  const modes = new Set<string>(card.defaultInputModes ?? ['text/plain']);
  const skills = [...(card.skills ?? [])];
  for (const override of overrides) {
    for (const mode of override?.defaultInputModes ?? []) modes.add(mode);
    skills.push(...((override?.skills ?? []) as { inputModes?: string[] }[] as typeof skills));
  }
  for (const skill of skills) for (const mode of skill.inputModes ?? []) modes.add(mode);
  return [...modes];
}

function protocol03Of(option: boolean | Protocol03Options): Required<Protocol03Options> | undefined {
  if (option === false) return undefined;
  const { path = '/v0.3', card = {} } = option === true ? {} : option;
  if (typeof path !== 'string' || !/^(\/[\w.~-]+)+$/.test(path)) {
    throw new TypeError(`a2aRouter: options.protocol03.path must be a path below the mount such as '/v0.3', got ${JSON.stringify(path)}`);
  }
  return { path, card };
}

function protocol10Of(option: boolean | Protocol10Options): Required<Protocol10Options> | undefined {
  if (option === false) return undefined;
  const { path = '/v1', card = {} } = option === true ? {} : option;
  if (typeof path !== 'string' || !/^(\/[\w.~-]+)+$/.test(path)) {
    throw new TypeError(`a2aRouter: options.protocol10.path must be a path below the mount such as '/v1', got ${JSON.stringify(path)}`);
  }
  return { path, card };
}

function metricsOf(option: boolean | A2AMetrics | undefined): A2AMetrics | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return new A2AMetrics();
  if (!(option instanceof A2AMetrics))
    throw new TypeError('a2aRouter: options.metrics must be true, false or the metrics made with a2aMetrics()');
  return option;
}

function checkedExtendedCard(options: A2ARouterOptions): ExtendedCardOption | undefined {
  const { extendedCard } = options;
  if (extendedCard === undefined) return undefined;
  if (typeof extendedCard !== 'function' && (extendedCard === null || typeof extendedCard !== 'object')) {
    throw new TypeError('a2aRouter: options.extendedCard must be card fields or a function of the caller that gives them');
  }
  if (!options.auth) throw new TypeError('a2aRouter: options.extendedCard is for authenticated callers: it needs options.auth');
  if (options.protocol10 === false)
    throw new TypeError('a2aRouter: options.extendedCard is served over A2A 1.0, which protocol10: false turns off');
  return extendedCard;
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
