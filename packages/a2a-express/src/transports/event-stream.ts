// What every HTTP binding does the same way with an answer: builds its JSON text in one guarded
// place (a value JSON cannot carry, a rendering that throws, a text past `maxResponseBytes` become
// an internal error, never a half-written body), and streams a task's events as SSE until the
// final one. The bindings differ only in how an event and an error are framed: JSON-RPC wraps
// each in its envelope, HTTP+JSON sends them bare.
import { A2AError } from 'a2a-types';
import { headerOf, type EdgeRequest, type EdgeResponse } from '../edge/exchange.js';
import type { Logger } from 'pino';
import { SeveralEvents, type TaskEventStream } from '../core/event-feed.js';
import type { StoredEvent } from '../model/record.js';
import type { A2AMetrics } from '../telemetry/metrics.js';
import { A2A_ATTRIBUTES, startChildSpan } from '../telemetry/tracing.js';
import { EVENT_IDS_PREFERENCE, eventIdsFor, SseStream, type StreamEventIds } from './sse.js';

export interface AnswerLimits {
  readonly logger: Logger;
  readonly heartbeatMs: number;
  readonly maxStreamQueueBytes: number;
  /** Most characters of one answer or stream event; a larger one is refused (an internal error). */
  readonly maxResponseBytes: number;
  readonly streamEventIds: StreamEventIds;
  /** The version the endpoint speaks, for the streams' metrics and spans. */
  readonly protocol?: string;
  readonly metrics?: Pick<A2AMetrics, 'streamOpened' | 'streamClosed'>;
}

/** An answer as JSON text, or the internal error to send in its place. */
type Serialized = { ok: true; text: string } | { ok: false; error: A2AError };

/**
 * JSON text of one answer or event, or the error that replaces it. Building it can fail, and a
 * text past the limit is refused rather than sent; either is the agent's fault, not the client's:
 * -32603 with a reason, logged.
 */
export function serializeAnswer(build: () => unknown, { logger, maxResponseBytes }: AnswerLimits): Serialized {
  let reason: string;
  let cause: unknown;
  try {
    const text = JSON.stringify(build());
    if (text.length <= maxResponseBytes) return { ok: true, text };
    reason = `the answer is ${text.length} characters, more than this agent sends in one (maxResponseBytes ${maxResponseBytes})`;
  } catch (error) {
    reason = 'the answer could not be serialized';
    cause = error;
  }
  logger.error({ err: cause, reason }, 'answer refused');
  return { ok: false, error: A2AError.internalError(reason) };
}

/**
 * The SSE `retry:` a stream ended for its client to resubscribe elsewhere gives (a draining
 * replica's): how long an EventSource waits before it reconnects, enough for the turn's next
 * replica to have taken it over.
 */
export const RECONNECT_AFTER_MS = 500;

/** How a binding frames what a stream sends. */
interface StreamFraming {
  /** The data of one event, from the event's JSON text. */
  event(text: string): string;
  /** An event as the binding sends it, from the method's rendering, before it is serialized. */
  value?: (rendered: unknown) => unknown;
  /** The last event of a stream that cannot go on: its data, and its SSE event type if it has one. */
  failure(error: A2AError): { data: string; type?: string };
}

/**
 * Sends a stream's events as SSE until its final event, or until the client goes away. An event
 * that cannot be sent ends the stream with that error as its last event, and the stream lets go
 * of the task's feed. `finished` is called once, when the stream is over.
 */
export function writeEventStream(
  req: EdgeRequest,
  res: EdgeResponse,
  events: TaskEventStream,
  limits: AnswerLimits,
  framing: StreamFraming,
  finished: (details: Record<string, unknown>) => void,
): void {
  const { eventIds, preferred } = eventIdsFor(req, limits.streamEventIds);
  const stream = new SseStream(res, { heartbeatMs: limits.heartbeatMs, maxQueuedBytes: limits.maxStreamQueueBytes, eventIds });
  stream.open(preferred ? { 'Preference-Applied': EVENT_IDS_PREFERENCE } : {});
  const version = limits.protocol ?? 'unknown';
  limits.metrics?.streamOpened(version);
  const span = startChildSpan('a2a stream', { [A2A_ATTRIBUTES.protocolVersion]: version });
  stream.onClose((reason) => {
    events.close();
    limits.metrics?.streamClosed(version, stream.sent);
    if (span.isRecording()) {
      span.setAttribute(A2A_ATTRIBUTES.streamEvents, stream.sent);
      span.setAttribute(A2A_ATTRIBUTES.streamEnd, reason);
      span.end();
    }
    finished({ events: stream.sent, stream: reason });
  });
  const { render } = events;
  const sendEvent = (eventId: number, serialized: Serialized) => {
    if (!serialized.ok) throw new UnsendableEvent(eventId, serialized.error);
    stream.send(eventId, framing.event(serialized.text));
  };
  events.start(
    (stored) => {
      const rendered = renderSafely(render, stored, limits, framing.value);
      if (!(rendered instanceof SeveralEvents)) return sendEvent(stored.id, rendered);
      const { value: framed } = framing;
      for (const { eventId, value } of rendered.values)
        sendEvent(
          eventId,
          serializeAnswer(() => (framed ? framed(value) : value), limits),
        );
    },
    (end) => {
      // An event that could not be sent is the stream's last: its error says why the stream
      // ends, so the client is not left waiting for a final event.
      if (end?.error instanceof UnsendableEvent) {
        const { data, type } = framing.failure(end.error.error);
        stream.send(end.error.eventId, data, type);
      } else if (end?.reconnect) {
        stream.reconnectHint(RECONNECT_AFTER_MS);
      } else if (end) limits.logger.error({ err: end.error }, 'a stream failed');
      stream.end();
    },
  );
}

/**
 * A stream's event as its version renders it, serialized; or, when the version sends several
 * things for it, those (each serialized as it is sent). A render that throws is an answer that
 * cannot be sent, as in `serializeAnswer`.
 */
function renderSafely(
  render: (stored: StoredEvent) => unknown,
  stored: StoredEvent,
  limits: AnswerLimits,
  framed: ((rendered: unknown) => unknown) | undefined,
): Serialized | SeveralEvents {
  let several: SeveralEvents | undefined;
  const serialized = serializeAnswer(() => {
    const rendered = render(stored);
    if (!(rendered instanceof SeveralEvents)) return framed ? framed(rendered) : rendered;
    several = rendered;
    return null;
  }, limits);
  return several ?? serialized;
}

/** An event a stream could not send, and the error it sends in its place. */
class UnsendableEvent extends Error {
  constructor(
    readonly eventId: number,
    readonly error: A2AError,
  ) {
    super('a stream event could not be sent');
  }
}

/** A client that names `text/event-stream` in its Accept header (not one that takes anything). */
export function asksForEventStream(req: EdgeRequest): boolean {
  return /(^|[\s,])text\/event-stream\b/i.test(headerOf(req, 'accept') ?? '');
}
