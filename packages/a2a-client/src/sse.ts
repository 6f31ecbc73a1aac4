/** One server-sent event. */
export interface SseEvent {
  /** The last `id:` seen (the W3C "last event ID"), if any. */
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/**
 * Parses a text/event-stream body as the W3C algorithm does: LF, CR and CRLF line ends,
 * multi-line `data:`, `id:`, `event:`, comments (`:`), a BOM, and chunks split anywhere.
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  let first = true;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    if (first && buffer.length > 0) {
      if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      first = false;
    }
    let match: RegExpExecArray | null;
    while ((match = /\r\n|\r|\n/.exec(buffer)) !== null) {
      // A lone CR at the end may be the first half of a CRLF: wait for more.
      if (match[0] === '\r' && match.index === buffer.length - 1) break;
      const line = buffer.slice(0, match.index);
      buffer = buffer.slice(match.index + match[0].length);
      if (line === '') {
        if (data.length > 0) yield { id, event, data: data.join('\n') };
        data = [];
        event = undefined;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'id' && !value.includes('\0')) id = value;
      else if (field === 'event') event = value;
    }
  }
}
