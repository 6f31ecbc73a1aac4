import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** One server-sent event. */
export interface SseEvent {
  /**
   * The stream's last event ID when this event was dispatched (the HTML standard's "last event
   * ID string"): the newest `id:` seen so far, kept across events that carry none.
   */
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Parses a text/event-stream body with eventsource-parser (the parser the ecosystem uses): LF,
 * CR and CRLF line ends, multi-line `data:`, `id:`, `event:`, comments, a BOM, and chunks split
 * anywhere, in time linear in the body.
 *
 * eventsource-parser reports an `id:` only with the event of its own block; a block holding an
 * `id:` and no `data:` is dropped without a word, although the standard records its id. So this
 * keeps the last id itself, across events. Our servers never send an id without its event.
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let lastEventId: string | undefined;
  let ready: SseEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (message.id !== undefined) lastEventId = message.id;
      ready.push({ id: lastEventId, event: message.event, data: message.data });
    },
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (ready.length === 0) continue;
    const events = ready;
    ready = [];
    yield* events;
  }
}
