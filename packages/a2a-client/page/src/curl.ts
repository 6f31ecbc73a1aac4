// A recorded request as a `curl` command that sends the same bytes: every header as it was sent,
// the body exactly (not re-serialized), and `-N` for a stream so that its events print as they
// come. Quoted for a POSIX shell.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Headers fetch adds on its own; curl adds its own equivalents. */
const LEFT_TO_CURL = new Set(['content-length', 'host', 'connection', 'accept-encoding', 'user-agent']);

export function curlOf(request: RecordedRequest): string {
  const words = ['curl'];
  const streamed = Object.entries(request.headers).some(
    ([name, value]) => name.toLowerCase() === 'accept' && value.includes('text/event-stream'),
  );
  if (streamed) words.push('-N');
  if (request.method !== 'GET' || request.body !== undefined) words.push('-X', request.method);
  words.push(shellQuote(request.url));
  for (const [name, value] of Object.entries(request.headers)) {
    if (LEFT_TO_CURL.has(name.toLowerCase())) continue;
    words.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (request.body !== undefined) words.push('--data-raw', shellQuote(request.body));
  return words.join(' ');
}

/** One shell word: single quotes, each quote inside closed, escaped and reopened. */
export function shellQuote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
