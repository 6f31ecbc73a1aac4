// The page's calls to the inspector's server (never to the agent itself): relative URLs, so that
// the page works wherever it is mounted.

export class ApiError extends Error {}

/**
 * What every call names: the page's session (checked before the inspector reads a body), and the
 * token of the page's address when the inspector was started with one (`--allow-remote`).
 */
const identity: Record<string, string> = {};
const token = new URLSearchParams(location.search).get('token');
if (token) identity['a2a-inspector-token'] = token;

/** Names the page's session in every call from now on. */
export function useSession(session: string): void {
  identity['a2a-inspector-session'] = session;
}

/** The address of the page's event stream, with its session (and token). */
export function eventsPath(session: string): string {
  const query = new URLSearchParams({ session, ...(token ? { token } : {}) });
  return `api/events?${query}`;
}

export async function post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...identity },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
  const answer = (await response.json().catch(() => ({}))) as T & { error?: string };
  if (!response.ok) throw new ApiError(typeof answer.error === 'string' ? answer.error : `the inspector answered HTTP ${response.status}`);
  return answer;
}

export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: identity });
  if (!response.ok) throw new ApiError(`the inspector answered HTTP ${response.status}`);
  return (await response.json()) as T;
}

/** A call whose answer is a stream of JSON lines (a streamed message, a resubscription). */
export async function* lines(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<Record<string, unknown>> {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...identity },
    body: JSON.stringify(body),
    signal,
  });
  if (!response.ok || !response.body) {
    const answer = (await response.json().catch(() => ({}))) as { error?: string };
    throw new ApiError(answer.error ?? `the inspector answered HTTP ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += value;
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const line of complete) if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>;
  }
  if (pending.trim() !== '') yield JSON.parse(pending) as Record<string, unknown>;
}
