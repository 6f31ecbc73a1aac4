// What the core knows of a call beyond its operation: who makes it, what came with it, and how
// the caller's version shows what streams. Every binding makes one: Express from its request,
// another binding (gRPC, a queue, a test) from what it has, with nothing to fake.
import type { CallExtensions } from './extensions.js';
import { ownerKey, type Principal } from './principal.js';
import type { Message } from '../model/task.js';
import type { TurnRules } from './operations.js';
import { taskSnapshot, type StoredEvent, type TaskRecord } from '../model/record.js';

/** Header names in lower case, as Node's `IncomingHttpHeaders` (and gRPC metadata) have them. */
export type CallHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The value of a header (any case of its name): the first, when it came more than once. */
export function headerOf(request: { readonly headers: CallHeaders }, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : value?.[0];
}

/** How a call came: its version and binding, and the request as sent (for the authorize hook and logs). */
export interface CallOrigin {
  /** The protocol version, by the kit's name for it: `'0.1.0'`, `'0.3'`, `'1.0'`. */
  readonly protocol: string;
  /** The binding: `'jsonrpc'`, `'rest'` (HTTP+JSON), `'grpc'`, or a caller's own name. */
  readonly binding: string;
  /** The method as called (the JSON-RPC method, the HTTP+JSON operation). */
  readonly method: string;
  /** The params as the client sent them, in its version's form. */
  readonly params: unknown;
}

/**
 * What a call's request carries, as the binding that received it knows it: who calls and what
 * came with the call. The same for each call of a JSON-RPC batch.
 */
export interface CallRequest {
  /** Who is calling, when the agent authenticates calls. */
  readonly principal: Principal | undefined;
  /** The call's headers (HTTP) or metadata (gRPC). */
  readonly headers: CallHeaders;
  /** The `Last-Event-ID` a stream is resumed from (the kit's resumption, docs/streaming.md), as it came. */
  readonly lastEventId?: string;
  /** The client's address, read when asked: whose streams a call without a principal opens. */
  readonly clientAddress?: () => string | undefined;
  /** The extended agent card for this caller, in its version's form; absent when the agent has none. */
  readonly extendedCard?: () => Promise<unknown>;
  /**
   * Whether the caller is still there for the answer (a gRPC call may be cancelled, or pass its
   * deadline): once it is gone, what the core waits for on its behalf stops waiting. The task
   * itself goes on, as it does when any client goes away (another call reads, continues or
   * cancels it).
   */
  readonly caller?: CallerPresenceView;
}

/** What the core knows of a call: its request, and what the version's method makes of it. */
export interface CallContext extends CallRequest {
  readonly origin: CallOrigin;
  /** The tenant the call names (1.0's `tenant`); undefined for the default tenant. */
  readonly tenant?: string | undefined;
  /**
   * Who owns what the call creates, and whose tasks it may see: its principal, or in a tenant the
   * tenant with its principal (`tenantOwner`). Default: the principal.
   */
  readonly owner?: Principal | undefined;
  /** The extensions the client asked for (1.0's `A2A-Extensions`, 0.3's `X-A2A-Extensions`), and those the agent used. */
  readonly extensions?: CallExtensions;
  /**
   * How the caller's version continues tasks. Default 1.0's: a message names an existing task,
   * and a completed task takes no more.
   */
  readonly turnRules?: TurnRules;
  /** How streamed and listed things are shown to the caller. Default: the core's model ({@link CORE_VIEW}). */
  readonly view?: CallView;
}

/** Whether a caller is still there for its answer, as the core reads it. */
export interface CallerPresenceView {
  readonly gone: boolean;
  /** Settles once the caller is gone (asked by a blocking send only). */
  readonly whenGone: Promise<void>;
}

/**
 * Whether a caller is still there for its answer. Not an AbortSignal: this is made for every
 * unary gRPC call, and an AbortController with its listener costs several times what this does.
 */
export class CallerPresence implements CallerPresenceView {
  #gone = false;
  #whenGone: Promise<void> | undefined;
  #settle: (() => void) | undefined;

  get gone(): boolean {
    return this.#gone;
  }

  /** Settles once the caller is gone; made when first asked (most calls never ask). */
  get whenGone(): Promise<void> {
    this.#whenGone ??= this.#gone ? Promise.resolve() : new Promise<void>((resolve) => (this.#settle = resolve));
    return this.#whenGone;
  }

  /** The caller went away: its call was cancelled, or its deadline passed. */
  leave(): void {
    this.#gone = true;
    this.#settle?.();
  }
}

/** How a version shows what the core renders as it goes (a stream's events, the tasks of a page). */
export interface CallView {
  /**
   * The task, as a stream opens with it: a send's stream shows the task as the turn opened, with
   * the first update; a subscription that opens with the task (`SubscribeParams.opensWith`) the
   * task as it stands. Without it (0.1.0), a send's stream opens with the turn's own events.
   */
  readonly task?: (record: TaskRecord) => unknown;
  /** A message that is the whole answer, of the task `taskId` in `contextId`. Without it, the event that carries it. */
  readonly reply?: (message: Message, taskId: string, contextId: string) => unknown;
  /** The task's events, made from the task as the stream opened. */
  events(record: TaskRecord): (stored: StoredEvent) => unknown;
  /** A task as a page of ListTasks shows it. */
  listed?(record: TaskRecord, historyLength: number, includeArtifacts: boolean): unknown;
}

/**
 * Who holds the streams a call opens: its principal, or without authentication the client's
 * address (without a port: every binding gives it so), an IPv4 client seen by an IPv6 socket as
 * its IPv4 address. What the bound on streams per principal counts by, over SSE and gRPC alike.
 * Asked only by calls that open a stream: the address is derived on each read (Express's `trust proxy`).
 */
export function streamHolder(context: CallContext): string {
  if (context.principal) return `principal:${ownerKey(context.principal)}`;
  const address = context.clientAddress?.() ?? 'unknown';
  return `address:${address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address}`;
}

/** What a caller that gives no view sees: the core's model. */
export const CORE_VIEW: CallView = {
  task: (record) => taskSnapshot(record),
  events: () => (stored) => stored.event,
  listed: (record, historyLength, includeArtifacts) => {
    const task = taskSnapshot(record, historyLength);
    if (!includeArtifacts) delete task.artifacts;
    return task;
  },
};

/** Who owns what a call creates and may see (see `CallContext.owner`). */
export function ownerIn(context: CallContext): Principal | undefined {
  return context.owner ?? context.principal;
}

/**
 * The call a turn came with, as its handler sees it (`ctx.call`): how it came, its headers
 * without credentials, its tenant.
 */
export interface TurnCall {
  /** The protocol version: `'0.1.0'`, `'0.3'`, `'1.0'`. */
  readonly protocol: string;
  /** The binding: `'jsonrpc'`, `'rest'` (HTTP+JSON), `'grpc'`. */
  readonly binding: string;
  /** The method as called (`SendMessage`, `message/send`, `tasks/send`, ...). */
  readonly method: string;
  /**
   * The headers (HTTP) or metadata (gRPC), names in lower case, a repeated one's values joined
   * with `, `; without the credentials (`authorization`, `proxy-authorization`, `cookie`, and the
   * header each API key strategy reads).
   */
  readonly headers: Readonly<Record<string, string>>;
  /** The tenant the call names (1.0); undefined for the default tenant. */
  readonly tenant: string | undefined;
}

/** Headers that carry credentials whatever the agent's strategies. */
const CREDENTIAL_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie'];

/**
 * What a turn keeps of the call that opened it: what its handler is shown of it, and nothing of
 * the binding's (the caller's presence, the stream's view). Those hold the response, and a turn
 * that held them kept each request's objects alive past its answer: in the stream bench the
 * scavenger promoted 15 per cent more bytes to the old generation, and an event cost more CPU.
 */
export type TurnCallSource = Pick<CallContext, 'principal' | 'headers' | 'origin' | 'tenant' | 'extensions'>;

export function turnCallSourceOf(context: CallContext): TurnCallSource {
  const { principal, headers, origin, tenant, extensions } = context;
  return { principal, headers, origin, tenant, extensions };
}

/** The call as a handler is shown it: `credentialHeaders` (lower case) left out with the usual ones. */
export function turnCallOf(context: TurnCallSource, credentialHeaders: ReadonlySet<string>): TurnCall {
  const headers: Record<string, string> = {};
  for (const name in context.headers) {
    const value = context.headers[name];
    if (value === undefined || CREDENTIAL_HEADERS.includes(name) || credentialHeaders.has(name)) continue;
    headers[name] = typeof value === 'string' ? value : value.join(', ');
  }
  const { protocol, binding, method } = context.origin;
  return { protocol, binding, method, headers, tenant: context.tenant };
}
