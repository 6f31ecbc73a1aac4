// The contract a protocol version fills to plug into the kit: how it reads its own options, where
// it is served, its method table, how its errors look, its card, its bindings (routes, gRPC
// methods, error statuses) and the body of its push notifications. The versions served are one
// list (versions/index.ts) that the router, the agent core, the options and serveAgent iterate;
// a transport takes any version's table. It sits between the versions and the transports, above
// the core: the core (core/, store/, push/) never knows which versions there are, nor how a call
// travels (HTTP verbs, routes, statuses, bytes).
import type { A2AError, AgentCard } from 'a2a-types/model';
import type { PushBody, PushFormat } from '../push/push-notifier.js';
import type { AuthOptions, Principal } from '../core/auth.js';
import type { AgentExtensionOption } from '../core/extensions.js';
import type { Method } from '../core/method.js';

/**
 * A protocol version as the router serves it: what it is, and how it reads the router's options.
 * `O` is the part of the router's options the version reads (its own, such as `protocol03`).
 */
export interface ServableVersion<O = object> {
  readonly protocol: ProtocolVersion;
  /**
   * Where the router shows the version's path, relative to its mount (`router.protocol03Path`),
   * and serveAgent's listening line its URL (`url03`); neither for a version at the mount itself.
   */
  readonly shownAs?: { readonly routerPath: string; readonly listeningUrl: string };
  /**
   * Reads the version's options: undefined when it is not served. Throws a TypeError naming the
   * option, when the router is made, for one it refuses.
   */
  configure(options: O & { readonly auth?: AuthOptions }): ConfiguredVersion | undefined;
}

/** A version the router serves, with its options read. */
export interface ConfiguredVersion {
  /** Where its endpoint is, relative to the router's mount: each version has its own. */
  readonly path: string;
  /** The media types its card's fields add to the agent's card (its own input modes and skills'). */
  readonly inputModes: readonly string[];
  /** The interfaces the other versions' cards list for it (1.0's `supportedInterfaces`), at a mount's URL. */
  listedInterfaces?(mountUrl: string): readonly ListedInterface[];
  /** Its endpoint. */
  endpoint(agent: AgentSettings): VersionEndpoint;
}

/** An interface of the agent, as a card lists it. */
export interface ListedInterface {
  readonly url: string;
  readonly protocolBinding: string;
  readonly protocolVersion: string;
}

/** What a version's endpoint is made with, besides its own options. */
export interface AgentSettings {
  readonly auth: AuthOptions | undefined;
  /** The extensions the agent declares (`capabilities.extensions` of the 0.3 and 1.0 cards). */
  readonly extensions: readonly AgentExtensionOption[];
  /** The tenants the 1.0 card lists, each with every 1.0 interface again, its `tenant` set. */
  readonly listedTenants: readonly string[];
  /** The interfaces the other versions served list, at a mount's URL, and those served outside the router (gRPC). */
  otherInterfaces(mountUrl: string): readonly ListedInterface[];
}

/**
 * A card path several versions share (`/.well-known/agent-card.json`): each client gets the card
 * of the version it asks for (`A2A-Version`).
 */
export interface SharedCardPath {
  readonly path: string;
  /**
   * How well this version's card answers a client that asks for `requested` (undefined: the
   * client named none): 0 not at all; of the versions that answer, the highest rank serves.
   */
  rank(requested: string | undefined): number;
}

/**
 * Where and how a version is served, relative to where the router is mounted: its JSON-RPC
 * endpoint and its card. The router mounts each the same way; a version's `index.ts` makes its
 * own from its options.
 */
export interface VersionEndpoint {
  readonly version: ProtocolVersion;
  /** The path of its JSON-RPC endpoint. */
  readonly path: string;
  /** The paths its card is served at, its own. */
  readonly cardPaths: readonly string[];
  /** A path whose card it shares with other versions, chosen by `A2A-Version`. */
  readonly sharedCardPath?: SharedCardPath;
  /**
   * Its cards are served with the caching headers of spec 1.0 8.6.1 (`ETag`, `Last-Modified`,
   * `Cache-Control`, 304). Default false: the card alone, as 0.1.0 serves it.
   */
  readonly cardCaching?: boolean;
  /**
   * The answer, HTTP status and body, to a client that asks a shared card path for a version no
   * card there answers, in the version's words; `served` names those the path serves. Without
   * it, the highest-ranked card there is served anyway.
   */
  refusedCard?(requested: string, served: readonly string[]): { status: number; body: unknown };
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
  /**
   * The version's gRPC binding, served on a port of its own when asked (`a2a-express/grpc`);
   * loaded then, so that an agent that serves no gRPC loads no protobuf code.
   */
  readonly grpc?: () => Promise<GrpcBinding>;
}

/**
 * A gRPC binding: the service's methods, each calling a method of the version's table (by its
 * JSON-RPC name, so every binding runs the same methods), the messages read and written in the
 * version's JSON form, and how an error is answered.
 */
export interface GrpcBinding {
  /** The service's full name (`lf.a2a.v1.A2AService`): what health and reflection name. */
  readonly serviceName: string;
  /** The version as the card lists its gRPC interface (`protocolVersion`). */
  readonly protocolVersion: string;
  readonly methods: readonly GrpcMethod[];
  /**
   * An error as a gRPC status, written from its reason: the status code, its message, and the
   * `google.rpc.Status` the `grpc-status-details-bin` trailer carries.
   */
  errorStatus(error: A2AError): { code: number; message: string; details: Uint8Array };
  /** The serialized file descriptors of the service's proto and its imports, for server reflection. */
  fileDescriptors(): Buffer[];
}

export interface GrpcMethod {
  /** Its HTTP/2 path (`/lf.a2a.v1.A2AService/SendMessage`). */
  readonly path: string;
  /** Its name in the proto, and the method of the version's table it calls unless `tableMethod` names another. */
  readonly method: string;
  /** The method of the version's table it calls, where that is not named as the proto names it (0.3's `message/send`). */
  readonly tableMethod?: string;
  /** Its name in lower camel case, as grpc-js keys a service's implementation. */
  readonly localName: string;
  readonly responseStream: boolean;
  /** The method's params from the request's bytes; throws an A2AError for bytes that are not the request message. */
  params(bytes: Buffer): unknown;
  /** The bytes of an answer (or of one event of a stream) from the method's result in the version's words. */
  answer(result: unknown): Buffer;
}

/**
 * An HTTP+JSON binding: which operation each route calls (by its JSON-RPC method name in the
 * version's table, so both bindings run the same methods), and how an error is answered.
 */
export interface RestBinding {
  readonly routes: readonly RestRoute[];
  /**
   * The HTTP status and body of an error, written from its reason; `httpStatus`, the status HTTP
   * itself gives a request it refuses (405, 413, 415), in place of the reason's.
   */
  errorAnswer(error: A2AError, httpStatus?: number): { status: number; body: unknown };
  /** The media types a request body may have; the first is the binding's own. */
  readonly mediaTypes: readonly string[];
  /** One event of a stream in the binding's words, from the method's; default: as the method gives it. */
  readonly streamEvent?: (event: unknown) => unknown;
  /** Each route is also served below a tenant's segment (`/{tenant}/message:send`). */
  readonly tenantPaths?: boolean;
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
  /** The answer's body from the method's result; default: the result as it is. */
  answer?(result: unknown): unknown;
}

export interface ProtocolVersion {
  /** How logs and stored push configs name the version: `'0.1.0'`, `'0.3'`. */
  readonly name: string;
  /** The JSON-RPC methods, by name. */
  readonly methods: Readonly<Record<string, Method>>;
  /**
   * An error as this version's JSON-RPC error object (its code, message and data), its reason
   * kept: what a client of this version reads. Default: the error as it is (the kit's codes).
   */
  readonly wireError?: (error: A2AError) => A2AError;
  /**
   * The -32601 for a method this version does not serve; `servedBy`, another version the agent
   * serves that has it. Default: `A2AError.methodNotFound`.
   */
  readonly methodNotFound?: (method: string, servedBy?: ProtocolVersion) => A2AError;
  /** Where a client finds this version's endpoint, for another version's -32601 to say. */
  readonly foundAt?: string;
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
