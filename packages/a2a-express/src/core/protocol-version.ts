// The contract a protocol version fills to plug into the kit: its method table, how its errors
// look, and the body of its push notifications. A transport takes any version's table; the
// core never knows which versions there are.
import type { A2AError, AgentCard } from 'a2a-types/model';
import type { PushBody, PushFormat } from '../push/push-notifier.js';
import type { Principal } from './auth.js';
import type { Method } from './method.js';

/**
 * Where and how a version is served, relative to where the router is mounted: its JSON-RPC
 * endpoint and its card. The router mounts each the same way; a version's `index.ts` makes its
 * own from its options.
 */
export interface VersionEndpoint {
  readonly version: ProtocolVersion;
  /** The path of its JSON-RPC endpoint. */
  readonly path: string;
  /** The paths its card is served at. */
  readonly cardPaths: readonly string[];
  /**
   * The version's card, made from the agent's card as served for a request (the card the author
   * gave, completed: `url`, capabilities, authentication).
   */
  card(agentCard: AgentCard): unknown;
  /** Throws a TypeError for a card this version refuses: asked once, when the router is made. */
  checkCard?(card: unknown): void;
  /**
   * The error for a call whose `A2A-Version` (header, else query parameter; undefined when absent)
   * this endpoint does not serve; undefined to serve it. Default: the header is not read.
   */
  refusesVersion?(requested: string | undefined): A2AError | undefined;
  /**
   * The error for a body that is not `application/json` (-32600 by default, as 0.1.0 answers it),
   * for a version that names that case itself (1.0: -32005).
   */
  readonly contentTypeError?: (reason: string) => A2AError;
  /**
   * The version's extended card for an authenticated caller, made from the agent's card as served
   * for the request; absent when the agent has no extended card.
   */
  extendedCard?(agentCard: AgentCard, principal: Principal): Promise<unknown>;
  /** The version's HTTP+JSON binding, served below `path` beside its JSON-RPC endpoint. */
  readonly rest?: RestBinding;
}

/**
 * An HTTP+JSON binding: which operation each route calls (by its JSON-RPC method name in the
 * version's table, so both bindings run the same methods), and how an error is answered.
 */
export interface RestBinding {
  readonly routes: readonly RestRoute[];
  /** The HTTP status and body of an error, given in the version's words (its JSON-RPC error object). */
  errorAnswer(error: { code: number; message: string; data?: unknown }): { status: number; body: unknown };
  /** The media types a request body may have; the first is the binding's own. */
  readonly mediaTypes: readonly string[];
}

export interface RestRoute {
  readonly verb: 'GET' | 'POST' | 'DELETE';
  /** Matched against the path below the interface; its groups are the path's parameters, URL-decoded. */
  readonly path: RegExp;
  /** The method of the version's table this route calls. */
  readonly method: string;
  /** Whether the request carries a JSON body (an empty one reads as `{}`). */
  readonly hasBody?: boolean;
  /** The method's params from the path's parameters, the query and the body. */
  params(pathParams: string[], query: Readonly<Record<string, unknown>>, body: Record<string, unknown>): unknown;
}

export interface ProtocolVersion {
  /** How logs and stored push configs name the version: `'0.1.0'`, `'0.3'`. */
  readonly name: string;
  /** The JSON-RPC methods, by name. */
  readonly methods: Readonly<Record<string, Method>>;
  /** What a client of this version gets for an error a method threw. Default: the error as it is. */
  readonly wireError?: (error: A2AError) => A2AError;
  /** The -32601 for a method this version does not serve. Default: `A2AError.methodNotFound`. */
  readonly methodNotFound?: (method: string) => A2AError;
  /** The body of a push notification to a webhook set over this version. */
  readonly pushBody: PushBody;
  /** How its notifications are sent (media type, credentials); see `PushFormat`. Default: 0.1.0's way. */
  readonly pushDelivery?: Omit<PushFormat, 'body'>;
  /**
   * Answer a notification (a request without `id`) that fails, with `id: null`, where JSON-RPC
   * alone would answer nothing. For a version that defines no notification: every one of its
   * methods returns something, so a call without an id is a client's mistake it should hear of.
   * Default false: a notification is run and never answered, errors included.
   */
  readonly answersFailedNotifications?: boolean;
  /**
   * Send the error of a streaming method as a stream of one event to a client that accepts
   * `text/event-stream`, rather than as a plain JSON response: for clients that read a streaming
   * call's answer as SSE only (the official 0.3 SDKs). Default false: the error as JSON.
   */
  readonly streamsErrorsOfStreamingMethods?: boolean;
}
