import type { A2AMethod, Validator } from 'a2a-types';
import type { Principal } from '../auth.js';
import type { TaskEventStream } from '../event-feed.js';
import type { TaskService } from '../task-service.js';

/** One call of a method. */
export interface MethodCall {
  readonly service: TaskService;
  /** Who is calling, when the router authenticates requests. */
  readonly principal: Principal | undefined;
  /** The `Last-Event-ID` the client sent (a resubscription), as it came. */
  readonly lastEventId: string | undefined;
}

/** The capability a method needs; without it the method answers that capability's error. */
export type Capability = 'streaming' | 'pushNotifications';

interface MethodBase<P> {
  /** Checked before the params: a method of a disabled capability refuses every call. */
  readonly requires?: Capability;
  /**
   * The 0.1.0 method whose operation this one performs, as the authorize hook is asked (a 0.3
   * method; see `AuthorizeHook`). Default: the method's own name.
   */
  readonly operation?: A2AMethod;
  readonly validateParams: Validator<P>;
}

/** A method answered with one JSON-RPC response. */
export interface UnaryMethod<P> extends MethodBase<P> {
  readonly kind: 'unary';
  run(params: P, call: MethodCall): Promise<unknown>;
}

/** A method answered with a stream of events. */
export interface StreamingMethod<P> extends MethodBase<P> {
  readonly kind: 'streaming';
  /** Prepares the stream; an error thrown here is still answered as plain JSON-RPC. */
  open(params: P, call: MethodCall): Promise<TaskEventStream>;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds methods of every params type; each checks its own.
export type Method = UnaryMethod<any> | StreamingMethod<any>;
