// Credentials from the card: the client is given what it holds, keyed by the card's security
// scheme names, and supplies what the card asks for on every call (an API key where the scheme
// puts it, a bearer token, an OAuth 2.0 client-credentials token fetched, cached and refreshed
// before it expires, the token endpoint found by OIDC discovery). A call refused as
// unauthenticated (HTTP 401, gRPC UNAUTHENTICATED) is sent once more with fresh credentials:
// an agent whose issuer rotated its keys refuses a token it took a minute before.
//
// A card that asks for mutual TLS is met by the transport's client certificate (a2a-client/tls's
// fetch, grpcTransport's `tls.cert`); a call the card allows only with one, from a client that
// has none, is refused before it is sent, saying what to give the client.
//
// Built as an interceptor (its `before` writes, its `around` resends), so it sees every call of
// every version and binding. Nothing here may need Node: the main entry bundles it.
import { A2AClientError } from './errors.js';
import { answerOf, type InterceptedCall, type Interceptor } from './interceptors.js';

/** OAuth 2.0 client credentials (RFC 6749 4.4), for an `oauth2` or `openIdConnect` scheme. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** The scopes asked for. Default: those the card's security requirement names for the scheme. */
  scopes?: readonly string[];
}

/** What a credential function is asked for: one scheme of the card, for one call. */
export interface CredentialRequest {
  /** The scheme's name in the card. */
  readonly name: string;
  /** The scheme as this client reads it. */
  readonly scheme: CardScheme;
  /** The scopes the card's requirement names for it. */
  readonly scopes: readonly string[];
  readonly call: InterceptedCall;
  /** True on the resend after a 401 / UNAUTHENTICATED: a cached credential is stale, get a new one. */
  readonly fresh: boolean;
}

/**
 * A credential of your own making: a string (placed as the scheme says: its API key header,
 * query or cookie, else as a bearer token), headers to add, or nothing (the scheme is skipped).
 */
export type CredentialFunction = (
  request: CredentialRequest,
) => string | Record<string, string> | undefined | Promise<string | Record<string, string> | undefined>;

/**
 * The `credentials` option: by the card's scheme names, a string (an API key, or a bearer
 * token), client credentials (OAuth 2.0 / OIDC), or a function; or one function for every scheme.
 */
export type Credentials = Readonly<Record<string, string | ClientCredentials | CredentialFunction>> | CredentialFunction;

/** A security scheme of any version's card, read into one shape. */
export type CardScheme =
  | { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string }
  | { kind: 'http'; scheme: string }
  | { kind: 'oauth2'; tokenUrl: string | undefined }
  | { kind: 'openIdConnect'; url: string }
  | { kind: 'mutualTLS' }
  | { kind: 'unknown' };

/** The token endpoint refused the client's credentials, or could not be asked. */
export class OAuthTokenError extends A2AClientError {
  override name = 'OAuthTokenError';
  constructor(
    /** The token endpoint (or discovery document) asked. */
    readonly endpoint: string,
    /** Its OAuth `error` code (`invalid_client`, `invalid_scope`), when it gave one. */
    readonly error: string | undefined,
    /** Its `error_description`, when it gave one. */
    readonly errorDescription: string | undefined,
    /** Its HTTP status, when it answered. */
    readonly status: number | undefined,
    options?: { cause?: unknown },
  ) {
    const said = error ? `${error}${errorDescription ? `: ${errorDescription}` : ''}` : `HTTP ${status ?? '(no answer)'}`;
    super(`the token endpoint ${endpoint} refused the client credentials: ${said}`, options);
  }
}

/** Whether the client presents a client certificate on a binding's calls. */
export type HoldsCertificate = (binding: InterceptedCall['binding']) => boolean;

/** The card allows the call only over mutual TLS, and the client has no client certificate for its binding. */
export class MutualTlsRequiredError extends A2AClientError {
  override name = 'MutualTlsRequiredError';
  constructor(
    /** The card's mutualTLS schemes. */
    readonly schemes: readonly string[],
    readonly binding: InterceptedCall['binding'],
  ) {
    const give =
      binding === 'GRPC'
        ? "grpcTransport({ tls: { cert, key } }) from 'a2a-client/grpc'"
        : "a fetch that presents one: fetch: tlsFetch({ cert, key }) from 'a2a-client/tls'";
    super(
      `the agent card asks for mutual TLS (${schemes.map((s) => JSON.stringify(s)).join(', ')}) and this client has no client certificate for ${binding}: give it ${give}`,
    );
  }
}

/** Refuses, before they are sent, the calls the card allows only over mutual TLS when the client has no certificate for them. */
export function mutualTlsInterceptor(card: () => Promise<unknown>, holdsCertificate: HoldsCertificate): Interceptor {
  return {
    async before(call) {
      // The card is public, and is how the client learns what is asked.
      if (call.binding === 'HTTP' || holdsCertificate(call.binding)) return;
      const requirements = requirementsOf(await card());
      const mutual = (r: Requirement[]) => r.filter((s) => s.scheme.kind === 'mutualTLS').map((s) => s.name);
      if (requirements.length === 0 || !requirements.every((r) => mutual(r).length > 0)) return;
      throw new MutualTlsRequiredError([...new Set(requirements.flatMap(mutual))], call.binding);
    },
  };
}

/** A token is fetched again when less than this remains of its life. */
export const TOKEN_REFRESH_MARGIN_MS = 30_000;

interface Requirement {
  name: string;
  scheme: CardScheme;
  scopes: readonly string[];
}

/** The card's requirements (any one is enough), each the schemes it needs together. */
export function requirementsOf(card: unknown): Requirement[][] {
  const c = (card ?? {}) as {
    securitySchemes?: Record<string, unknown>;
    security?: Record<string, string[]>[];
    securityRequirements?: { schemes?: Record<string, { list?: string[] }> }[];
    authentication?: { schemes?: string[]; credentials?: string };
  };
  if (c.securitySchemes) {
    const schemes = c.securitySchemes;
    const listed: [string, readonly string[]][][] = c.securityRequirements
      ? c.securityRequirements.map((r) => Object.entries(r.schemes ?? {}).map(([n, s]) => [n, s.list ?? []]))
      : c.security
        ? c.security.map((r) => Object.entries(r))
        : Object.keys(schemes).map((n) => [[n, []]]);
    return listed.map((r) => r.map(([name, scopes]) => ({ name, scopes, scheme: readScheme(schemes[name]) })));
  }
  // 0.1.0: scheme names, and the API key's place in `credentials` (one, or one per scheme).
  let details: Record<string, unknown> = {};
  try {
    details = c.authentication?.credentials ? JSON.parse(c.authentication.credentials) : {};
  } catch {
    // A free-text `credentials` says nothing this client can read.
  }
  return (c.authentication?.schemes ?? []).map((name) => {
    const place = (typeof details.in === 'string' ? details : details[name]) as { in?: string; name?: string } | undefined;
    const scheme: CardScheme =
      place?.in && place.name
        ? { kind: 'apiKey', in: place.in as 'header', name: place.name }
        : /^apikey$/i.test(name)
          ? { kind: 'apiKey', in: 'header', name: 'X-API-Key' }
          : { kind: 'http', scheme: name };
    return [{ name, scopes: [], scheme }];
  });
}

/** The fields of a scheme this client reads, as 1.0 (one field per kind) and 0.3 (OpenAPI's `type`) spell them. */
interface RawScheme {
  type?: string;
  location?: string;
  in?: string;
  name?: string;
  scheme?: string;
  flows?: { clientCredentials?: { tokenUrl?: string } };
  openIdConnectUrl?: string;
  apiKeySecurityScheme?: RawScheme;
  httpAuthSecurityScheme?: RawScheme;
  oauth2SecurityScheme?: RawScheme;
  openIdConnectSecurityScheme?: RawScheme;
  mtlsSecurityScheme?: RawScheme;
}

function readScheme(raw: unknown): CardScheme {
  const s = (raw ?? {}) as RawScheme;
  const apiKey = s.apiKeySecurityScheme ?? (s.type === 'apiKey' ? s : undefined);
  if (apiKey?.name) return { kind: 'apiKey', in: (apiKey.location ?? apiKey.in ?? 'header').toLowerCase() as 'header', name: apiKey.name };
  const http = s.httpAuthSecurityScheme ?? (s.type === 'http' ? s : undefined);
  if (http) return { kind: 'http', scheme: String(http.scheme ?? 'bearer') };
  const oauth = s.oauth2SecurityScheme ?? (s.type === 'oauth2' ? s : undefined);
  if (oauth) return { kind: 'oauth2', tokenUrl: oauth.flows?.clientCredentials?.tokenUrl };
  const oidc = s.openIdConnectSecurityScheme ?? (s.type === 'openIdConnect' ? s : undefined);
  if (oidc?.openIdConnectUrl) return { kind: 'openIdConnect', url: oidc.openIdConnectUrl };
  if (s.mtlsSecurityScheme || s.type === 'mutualTLS') return { kind: 'mutualTLS' };
  return { kind: 'unknown' };
}

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * The credentials interceptor. `card` gives the card (the client's, fetched once); `fetchFn` is
 * the client's fetch, so that a token endpoint behind mTLS or a proxy is reached the same way.
 */
export function credentialsInterceptor(
  credentials: Credentials,
  card: () => Promise<unknown>,
  fetchFn: typeof fetch,
  timeoutMs: number,
  holdsCertificate: HoldsCertificate = () => false,
): Interceptor {
  const tokens = new Map<string, Promise<CachedToken>>();
  const endpoints = new Map<string, Promise<string>>();
  /** What each call was before credentials were put on it, to put fresh ones on the same base. */
  const bases = new WeakMap<InterceptedCall, { url: string; headers: Record<string, string> }>();

  const provided = (name: string) => {
    if (typeof credentials === 'function') return credentials;
    const lower = name.toLowerCase();
    const key = Object.keys(credentials).find((k) => k === name || k.toLowerCase() === lower);
    return key === undefined ? undefined : credentials[key];
  };

  async function token(tokenUrl: string, given: ClientCredentials, scopes: readonly string[], fresh: boolean): Promise<string> {
    const key = JSON.stringify([tokenUrl, given.clientId, scopes]);
    const cached = tokens.get(key);
    if (cached && !fresh) {
      const held = await cached.catch(() => undefined);
      if (held && Date.now() < held.expiresAt - TOKEN_REFRESH_MARGIN_MS) return held.token;
      // Another call may have started the refresh already: share it.
      if (tokens.get(key) !== cached) return (await tokens.get(key)!).token;
    }
    const fetching = requestToken(fetchFn, tokenUrl, given, scopes, timeoutMs);
    tokens.set(key, fetching);
    fetching.catch(() => tokens.get(key) === fetching && tokens.delete(key));
    return (await fetching).token;
  }

  function tokenEndpoint(discoveryUrl: string): Promise<string> {
    let found = endpoints.get(discoveryUrl);
    if (!found) {
      found = discover(fetchFn, discoveryUrl, timeoutMs);
      endpoints.set(discoveryUrl, found);
      found.catch(() => endpoints.delete(discoveryUrl));
    }
    return found;
  }

  async function valueFor(req: Requirement, call: InterceptedCall, fresh: boolean): Promise<string | Record<string, string> | undefined> {
    const given = provided(req.name);
    if (given === undefined) return undefined;
    if (typeof given === 'function') return given({ name: req.name, scheme: req.scheme, scopes: req.scopes, call, fresh });
    if (typeof given === 'string') return given;
    const scopes = given.scopes ?? req.scopes;
    if (req.scheme.kind === 'oauth2') {
      if (!req.scheme.tokenUrl)
        throw new OAuthTokenError(req.name, 'no_client_credentials_flow', 'the card offers no clientCredentials flow', undefined);
      return { authorization: `Bearer ${await token(req.scheme.tokenUrl, given, scopes, fresh)}` };
    }
    if (req.scheme.kind === 'openIdConnect')
      return { authorization: `Bearer ${await token(await tokenEndpoint(req.scheme.url), given, scopes, fresh)}` };
    throw new TypeError(`credentials.${req.name}: client credentials fit an oauth2 or openIdConnect scheme, not ${req.scheme.kind}`);
  }

  async function apply(call: InterceptedCall, fresh: boolean): Promise<void> {
    const base = bases.get(call)!;
    const requirements = requirementsOf(await card());
    // The first requirement all of whose schemes the caller has credentials for (mTLS: the transport's certificate).
    const met = (s: Requirement) => (s.scheme.kind === 'mutualTLS' ? holdsCertificate(call.binding) : provided(s.name) !== undefined);
    const usable = requirements.find((r) => r.every(met));
    if (!usable) return;
    const headers = { ...base.headers };
    let url = base.url;
    for (const req of usable) {
      if (req.scheme.kind === 'mutualTLS') continue;
      const value = await valueFor(req, call, fresh);
      if (value === undefined) continue;
      if (typeof value !== 'string') {
        Object.assign(headers, value);
        continue;
      }
      const { scheme } = req;
      if (scheme.kind === 'apiKey' && scheme.in === 'query' && call.binding !== 'GRPC') {
        const withKey = new URL(url);
        withKey.searchParams.set(scheme.name, value);
        url = withKey.toString();
      } else if (scheme.kind === 'apiKey' && scheme.in === 'cookie') {
        const cookie = `${scheme.name}=${encodeURIComponent(value)}`;
        headers.cookie = headers.cookie ? `${headers.cookie}; ${cookie}` : cookie;
      } else if (scheme.kind === 'apiKey') headers[call.binding === 'GRPC' ? scheme.name.toLowerCase() : scheme.name] = value;
      else if (scheme.kind === 'http' && /^basic$/i.test(scheme.scheme)) headers.authorization = `Basic ${btoa(value)}`;
      else headers.authorization = `Bearer ${value}`;
    }
    for (const name of Object.keys(call.headers)) delete call.headers[name];
    Object.assign(call.headers, headers);
    call.url = url;
  }

  return {
    async before(call) {
      // The card is public: asking for it with credentials would ask for the card to ask for them.
      if (call.binding === 'HTTP') return;
      bases.set(call, { url: call.url, headers: { ...call.headers } });
      await apply(call, false);
    },
    async around(call, send) {
      if (!bases.has(call)) return send();
      try {
        return await send();
      } catch (error) {
        const answer = answerOf(call);
        const status = answer?.status;
        const unauthenticated = call.binding === 'GRPC' ? status === 16 : status === 401;
        if (!unauthenticated || call.signal?.aborted) throw error;
        await apply(call, true);
        if (answer) delete answer.status;
        return send();
      }
    },
  };
}

/** Asks the token endpoint for a token with the client's id and secret (HTTP Basic, RFC 6749 2.3.1). */
async function requestToken(
  fetchFn: typeof fetch,
  tokenUrl: string,
  given: ClientCredentials,
  scopes: readonly string[],
  timeoutMs: number,
): Promise<CachedToken> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (scopes.length > 0) form.set('scope', scopes.join(' '));
  const basic = btoa(`${formEncode(given.clientId)}:${formEncode(given.clientSecret)}`);
  const asked = Date.now();
  const body = await askJson(fetchFn, tokenUrl, timeoutMs, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: form.toString(),
  });
  const { access_token: accessToken, expires_in: expiresIn } = body as { access_token?: unknown; expires_in?: unknown };
  if (typeof accessToken !== 'string' || accessToken === '')
    throw new OAuthTokenError(tokenUrl, 'invalid_response', 'the answer has no access_token', 200);
  // No expires_in: the token is held for an hour, and a 401 gets a new one sooner.
  const lifeMs = typeof expiresIn === 'number' && expiresIn > 0 ? expiresIn * 1000 : 3_600_000;
  return { token: accessToken, expiresAt: asked + lifeMs };
}

/** The token endpoint an OpenID Provider's discovery document names. */
async function discover(fetchFn: typeof fetch, url: string, timeoutMs: number): Promise<string> {
  const document = (await askJson(fetchFn, url, timeoutMs, { headers: { accept: 'application/json' } })) as { token_endpoint?: unknown };
  if (typeof document.token_endpoint !== 'string')
    throw new OAuthTokenError(url, 'invalid_discovery_document', 'it names no token_endpoint', 200);
  return document.token_endpoint;
}

async function askJson(fetchFn: typeof fetch, url: string, timeoutMs: number, init: RequestInit): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetchFn(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new OAuthTokenError(url, undefined, undefined, undefined, { cause: cause ?? error });
  }
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok || body === undefined || typeof body !== 'object' || body === null) {
    const error = typeof body?.error === 'string' ? body.error : undefined;
    const description = typeof body?.error_description === 'string' ? body.error_description : undefined;
    throw new OAuthTokenError(url, error, description ?? (response.ok ? 'the answer is not JSON' : undefined), response.status);
  }
  return body;
}

/** RFC 6749 2.3.1: the id and secret are form-encoded before they are joined for Basic. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
