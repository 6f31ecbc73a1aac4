// How the A2A 0.1.0 reference clients read an SSE body, as rules a test can apply to the bytes a
// server sent. Each follows the behaviour of the published client as read in its source (the JS
// samples' A2AClient; the Python samples' A2AClient on httpx-sse), so a stream that one of them
// would mis-read fails here too. Neither is a general SSE parser: that is the point.

/** What a reference client made of a stream: the JSON payloads it accepted, and what it lost or choked on. */
export interface ReferenceReading {
  /** Each `data` payload the client parsed, in order. */
  readonly messages: unknown[];
  /** Blocks or events the client dropped or failed on, with why (a correct stream has none). */
  readonly problems: string[];
}

/**
 * The reference JS client's rule: remove every CR, split the body on blank lines (`\n\n`), keep
 * only the blocks that begin with `data: `, trim the rest of the block and `JSON.parse` it.
 * Blocks that do not begin with `data: ` are skipped without a word; a block whose rest is not
 * JSON is logged and dropped. A trailing block with no blank line after it is never read.
 */
export function readLikeReferenceJsClient(body: string): ReferenceReading {
  const blocks = body.replace(/\r/g, '').split('\n\n');
  blocks.pop(); // unterminated: the client keeps it in its buffer and never parses it
  const messages: unknown[] = [];
  const problems: string[] = [];
  for (const block of blocks) {
    if (!block.startsWith('data: ')) {
      // Comments are meant to be skipped; anything else carrying data is an event it loses.
      if (/(^|\n)data:/.test(block))
        problems.push(`skipped a block that does not begin with "data: ": ${JSON.stringify(block.slice(0, 80))}`);
      continue;
    }
    const rest = block.substring('data: '.length).trim();
    if (!rest) continue;
    try {
      messages.push(JSON.parse(rest));
    } catch {
      problems.push(`dropped a block whose data is not JSON: ${JSON.stringify(rest.slice(0, 80))}`);
    }
  }
  return { messages, problems };
}

/**
 * The reference Python client's rule. httpx-sse splits lines on CR, LF or CRLF and, at each blank
 * line, yields an event if the event type, the data, the *last event id* or the retry is set; the
 * last event id is never reset. So once any `id:` has been seen, every later blank line yields an
 * event, even one closing a comment or an `id:`-only block, with empty data. The client then calls
 * `json.loads(sse.data)` on every event, and an empty or non-JSON data ends the stream with
 * A2AClientJSONError.
 */
export function readLikeReferencePythonClient(body: string): ReferenceReading {
  const messages: unknown[] = [];
  const problems: string[] = [];
  const lines = body.split(/\r\n|\r|\n/);
  lines.pop(); // the part after the last line end is not a line yet
  let eventType = '';
  let data: string[] = [];
  let lastEventId = '';
  let retry: number | undefined;
  for (const line of lines) {
    if (line === '') {
      if (!eventType && data.length === 0 && !lastEventId && retry === undefined) continue;
      const payload = data.join('\n');
      eventType = '';
      data = [];
      retry = undefined;
      try {
        messages.push(JSON.parse(payload));
      } catch {
        problems.push(`json.loads failed on event data ${JSON.stringify(payload.slice(0, 80))} (A2AClientJSONError: the stream ends)`);
        break;
      }
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventType = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  }
  return { messages, problems };
}

/** Reads a whole streaming response as text, giving up (and aborting it) after `timeoutMs`. */
export async function readStreamText(
  url: string,
  method: string,
  params: unknown,
  init: { headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ status: number; headers: Headers; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...init.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: `ref-${method}`, method, params }),
    signal: AbortSignal.timeout(init.timeoutMs ?? 15_000),
  });
  return { status: res.status, headers: res.headers, body: await res.text() };
}
