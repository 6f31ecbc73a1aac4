import { A2AError, type Validator } from 'a2a-types';
import type { Request } from 'express';
import type { Principal } from '../auth.js';
import type { Logger } from 'pino';
import type { EventFeed } from '../event-feed.js';
import type { ResolvedOptions } from '../options.js';
import type { PushNotifier } from '../push/push-notifier.js';
import { assertOwner, type TaskEngine } from '../task-engine.js';
import type { StoredEvent, TaskRecord, TaskStore } from '../task-store.js';

/** What every method may use. */
export interface MethodEnv {
  readonly engine: TaskEngine;
  readonly store: TaskStore;
  readonly options: ResolvedOptions;
  readonly logger: Logger;
  /** Present when push notifications are on. */
  readonly push: PushNotifier | undefined;
}

/** One call of a method. */
export interface MethodCall {
  readonly req: Request;
  readonly env: MethodEnv;
  /** Who is calling, when the router authenticates requests. */
  readonly principal: Principal | undefined;
}

/** The capability a method needs; without it the method answers that capability's error. */
export type Capability = 'streaming' | 'pushNotifications';

interface MethodBase<P> {
  /** Checked before the params: a method of a disabled capability refuses every call. */
  readonly requires?: Capability;
  readonly validateParams: Validator<P>;
}

/** A method answered with one JSON-RPC response. */
export interface UnaryMethod<P> extends MethodBase<P> {
  readonly kind: 'unary';
  run(params: P, call: MethodCall): Promise<unknown>;
}

/** A method answered with an SSE stream. */
export interface StreamingMethod<P> extends MethodBase<P> {
  readonly kind: 'streaming';
  /** Prepares the stream; an error thrown here is still answered as plain JSON-RPC. */
  open(params: P, call: MethodCall): Promise<StreamPlan>;
}

/** What a stream sends: `initial` events, then the feed's live events after `coveredThrough`. */
export interface StreamPlan {
  readonly feed: EventFeed;
  readonly initial: readonly StoredEvent[];
  readonly coveredThrough: number;
}

/** The task, if it exists and the caller may see it; -32001 otherwise. */
export async function readOwnTask(env: MethodEnv, taskId: string, principal: Principal | undefined): Promise<TaskRecord> {
  const record = await env.store.get(taskId);
  if (!record) throw A2AError.taskNotFound(taskId);
  assertOwner(record, principal);
  return record;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Method = UnaryMethod<any> | StreamingMethod<any>;
