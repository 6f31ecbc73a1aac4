// A recorded request as a `curl` command that sends the same bytes: every header as it was sent,
// the body exactly (not re-serialized), and `-N` for a stream so that its events print as they
// come. A gRPC call as a `grpcurl` command (the agent serves reflection, so it needs no proto).
// Quoted for a POSIX shell.

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** A gRPC call: `url` is the address and the method's path. */
  grpc?: boolean;
  /** A gRPC call over TLS. */
  tls?: boolean;
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

/** Metadata grpc-js sets on every call: grpcurl sets its own. */
const LEFT_TO_GRPCURL = new Set(['user-agent', 'grpc-accept-encoding', 'grpc-encoding', 'te', 'content-type']);

/** A recorded gRPC call as grpcurl sends it: plaintext unless it went over TLS, its metadata, its request in the JSON form grpcurl reads. */
export function grpcurlOf(request: RecordedRequest): string {
  const slash = request.url.indexOf('/');
  const [address, method] = slash === -1 ? [request.url, ''] : [request.url.slice(0, slash), request.url.slice(slash + 1)];
  // Over TLS grpcurl verifies the agent with the system's roots; a CA of one's own, or a client
  // certificate, is for the reader to add (-cacert, -cert, -key): the page holds no file names.
  const words = request.tls ? ['grpcurl'] : ['grpcurl', '-plaintext'];
  for (const [name, value] of Object.entries(request.headers)) {
    if (LEFT_TO_GRPCURL.has(name.toLowerCase())) continue;
    words.push('-H', shellQuote(`${name}: ${value}`));
  }
  if (request.body !== undefined) words.push('-d', shellQuote(request.body));
  words.push(shellQuote(address), shellQuote(method));
  return words.join(' ');
}

/** One shell word: single quotes, each quote inside closed, escaped and reopened. */
export function shellQuote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
