// JSON-RPC 2.0 with no transport in it: a parsed body in, a response, no response
// (notifications) or a stream of events out. It checks the envelope, handles batches and
// notifications, and puts each call's outcome (method-runner.ts) into a response: a result, or
// an error object. The HTTP adapter (http.ts) is one transport on top of it.
import {
  A2AError,
  validateJSONRPCRequest,
  type ErrorReason,
  type JSONRPCErrorResponse,
  type JSONRPCId,
  type JSONRPCResponse,
} from 'a2a-types';
import type { TaskEventStream } from '../core/event-feed.js';
import type { ProtocolVersion } from '../protocol/version.js';
import type { MethodRunner, RequestContext } from './method-runner.js';

export type { RequestContext } from './method-runner.js';

/** A call answered with a stream: its events, and what the transport reports when it ends. */
export interface StreamAnswer {
  readonly kind: 'stream';
  /** The request's id, for every event's envelope. */
  readonly id: JSONRPCId;
  readonly events: TaskEventStream;
  /** Logs the call, once the stream is over. */
  finished(details: Record<string, unknown>): void;
}

/** What a body dispatches to. */
export type Dispatched =
  | {
      readonly kind: 'response';
      readonly response: JSONRPCResponse;
      /** An error of a streaming method that the version sends as a stream to a client that takes one. */
      readonly streamable?: boolean;
      /** The reason of the call's error, whatever code its version gives it: what the transport's status is read from. */
      readonly reason?: ErrorReason;
    }
  | { readonly kind: 'batch'; readonly responses: JSONRPCResponse[] }
  /** Notifications only: nothing to answer. */
  | { readonly kind: 'none' }
  | StreamAnswer;

interface DispatcherSettings {
  /** Runs each call of the version's methods. */
  readonly runner: MethodRunner;
  /** How the version words its errors, and answers what JSON-RPC leaves open. */
  readonly version: Pick<ProtocolVersion, 'wireError' | 'answersFailedNotifications' | 'streamsErrorsOfStreamingMethods'>;
  readonly maxBatchSize: number;
}

export type Dispatch = (body: unknown, context: RequestContext) => Promise<Dispatched>;

type CallOutcome = Extract<Dispatched, { kind: 'response' }> | { kind: 'none' } | StreamAnswer;

export function createDispatcher(settings: DispatcherSettings): Dispatch {
  const { runner, version, maxBatchSize } = settings;
  const wireError = version.wireError ?? ((error: A2AError) => error);
  /** The error response of a call: the JSON-RPC error object of its version. */
  const errorResponseOf = (id: JSONRPCId, error: A2AError): JSONRPCErrorResponse => errorResponse(id, wireError(error));

  return async (body, context) => {
    if (!Array.isArray(body)) return call(body, false, context);
    // A batch is answered with an array of the non-notification responses, in request order.
    if (body.length === 0 || body.length > maxBatchSize) {
      const reason = body.length === 0 ? 'an empty batch' : `a batch holds at most ${maxBatchSize} requests`;
      const refusal = A2AError.invalidRequest({ reason });
      runner.refuse(refusal, context);
      return { kind: 'response', response: errorResponseOf(null, refusal) };
    }
    const outcomes = await Promise.all(body.map((item) => call(item, true, context)));
    const responses = outcomes.flatMap((o) => (o.kind === 'response' ? [o.response] : []));
    return responses.length === 0 ? { kind: 'none' } : { kind: 'batch', responses };
  };

  /** One request object: checked, run, and put into its response (none for a notification). */
  async function call(request: unknown, inBatch: boolean, context: RequestContext): Promise<CallOutcome> {
    if (!validateJSONRPCRequest(request)) {
      const refusal = A2AError.invalidRequest(validateJSONRPCRequest.issues);
      runner.refuse(refusal, context, { inBatch });
      return { kind: 'response', response: errorResponseOf(idOf(request), refusal) };
    }
    const isNotification = !('id' in request);
    const id = request.id ?? null;
    const outcome = await runner.run(request.method, request.params, context, { rpcId: request.id, inBatch });
    switch (outcome.kind) {
      case 'result':
        return isNotification ? NONE : { kind: 'response', response: { jsonrpc: '2.0', id, result: outcome.result } };
      case 'stream':
        if (!isNotification) return { kind: 'stream', id, events: outcome.events, finished: outcome.finished };
        outcome.events.close();
        outcome.finished();
        return NONE;
      case 'error': {
        if (isNotification && !version.answersFailedNotifications) return NONE;
        const response = errorResponseOf(id, outcome.error);
        const streamable = outcome.ofStreamingMethod && !inBatch && version.streamsErrorsOfStreamingMethods === true;
        return { kind: 'response', response, streamable, reason: outcome.error.reason };
      }
    }
  }
}

const NONE = { kind: 'none' } as const;

export function errorResponse(id: JSONRPCId, error: A2AError): JSONRPCErrorResponse {
  return { jsonrpc: '2.0', id, error: error.toJSON() };
}

/** The id of a request that failed the envelope check, when it has a usable one. */
export function idOf(request: unknown): JSONRPCId {
  const id = (request as { id?: unknown } | null)?.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}
