// Authentication (who is calling) and authorization (may they do this), on the call, whatever
// binding it came over (spec 1.0 7; 0.1.0 4.4): strategies turn a call's headers into a
// principal or refuse them; the authorize hook is asked about the call as a 1.0 operation.
import { createRemoteJWKSet, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { headerOf, type CallHeaders, type CallOrigin } from './call.js';
import type { OperationName, OperationParams } from './operations.js';
import type { Principal } from './principal.js';
import { readPublicKey } from './keys.js';
import { equalInConstantTime, sha256 } from './sha256.js';

export { ownerKey, type Principal } from './principal.js';

/**
 * What a strategy reads: the call's headers (HTTP) or metadata (gRPC), names in lower case. Over
 * HTTP it is the Express request itself, so a strategy written for one still works there.
 */
export interface AuthRequest {
  readonly headers: CallHeaders;
}

export { headerOf };

/** A strategy refuses credentials it recognises but cannot accept by throwing this. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/** The OAuth 2.0 flows a client may use to get a token (1.0's `OAuthFlows`, one scheme each in the 1.0 card). */
export interface OAuthFlowsOption {
  authorizationCode?: {
    authorizationUrl: string;
    tokenUrl: string;
    refreshUrl?: string;
    scopes: Record<string, string>;
    pkceRequired?: boolean;
  };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
  deviceCode?: { deviceAuthorizationUrl: string; tokenUrl: string; refreshUrl?: string; scopes: Record<string, string> };
}

/** How a strategy is declared in the cards, beyond its HTTP scheme. */
export type DeclaredScheme =
  | { readonly kind: 'oauth2'; readonly flows: OAuthFlowsOption; readonly metadataUrl?: string; readonly description?: string }
  | { readonly kind: 'openIdConnect'; readonly url: string; readonly description?: string };

/** One way of authenticating requests. */
export interface AuthStrategy {
  /** The scheme name for the card's `authentication.schemes` (`Bearer`, `ApiKey`, ...). */
  readonly scheme: string;
  /** Non-secret details for the card's `authentication.credentials` (e.g. the API key header). */
  readonly cardCredentials?: Record<string, unknown>;
  /** The `WWW-Authenticate` challenge sent with a 401. */
  readonly challenge: string;
  /** How the cards declare it beyond its HTTP scheme (an OAuth 2.0 or OpenID Connect scheme). */
  readonly declared?: DeclaredScheme;
  /** The scopes the card's security requirement for it names. */
  readonly requiredScopes?: readonly string[];
  /**
   * The principal, or `undefined` when the request carries no credentials of this kind (the
   * next strategy is tried). Throws {@link AuthenticationError} for credentials that are present
   * but not valid.
   */
  authenticate(request: AuthRequest): Promise<Principal | undefined>;
}

/**
 * A call as the authorize hook is shown it: the A2A 1.0 operation it performs and its params in
 * the kit's model, whichever version and binding it came over, so that one rule written in 1.0's
 * words holds on all of them. A 0.3 `message/send`, a 0.1.0 `tasks/send` and a 1.0 `SendMessage`
 * over HTTP+JSON are each `SendMessage`; 0.3's `tasks/pushNotificationConfig/set` and 0.1.0's
 * `tasks/pushNotification/set` are `CreateTaskPushNotificationConfig` (0.1.0's with a null config
 * is `DeleteTaskPushNotificationConfig`). The call then does exactly what was asked about.
 */
export type AuthorizeRequest = {
  [O in OperationName]: {
    readonly operation: O;
    /** The operation's params in the kit's model (`core/operations.ts`). */
    readonly params: OperationParams[O];
  };
}[OperationName] & {
  readonly principal: Principal;
  /** The task the call is about (a new task has none yet); the same id its log line names. */
  readonly taskId: string | undefined;
  /** How the call came: version, binding, the method as called and its params as sent, for logging. */
  readonly origin: CallOrigin;
  /** The call's headers (HTTP) or metadata (gRPC), names in lower case. */
  readonly headers: CallHeaders;
  /** The tenant the call names (1.0); undefined for the default tenant. */
  readonly tenant: string | undefined;
};

/** May this principal make this call? `false` refuses it: HTTP 403 on every version and binding, gRPC PERMISSION_DENIED. */
export type AuthorizeHook = (request: AuthorizeRequest) => boolean | Promise<boolean>;

/** The `auth` option of a2aRouter. */
export interface AuthOptions {
  /** Tried in order; the first that finds its kind of credentials decides. At least one. */
  strategies: AuthStrategy[];
  /** Require authentication for the agent card too. Default false: the card stays public. */
  protectCard?: boolean;
  /** Authorization, after authentication, per call. Default: every principal may call anything. */
  authorize?: AuthorizeHook;
}

/** The outcome of authenticating one request. */
export type AuthOutcome = { ok: true; principal: Principal } | { ok: false; reason: string; challenges: string[] };

/** Runs the strategies in order. */
export async function authenticate(request: AuthRequest, options: AuthOptions): Promise<AuthOutcome> {
  const challenges = options.strategies.map((s) => s.challenge);
  for (const strategy of options.strategies) {
    try {
      const principal = await strategy.authenticate(request);
      if (principal) return { ok: true, principal };
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      return { ok: false, reason: `${strategy.scheme}: ${error.message}`, challenges };
    }
  }
  return { ok: false, reason: 'no credentials', challenges };
}

/** The card's `authentication` for these strategies [5.5.3]: scheme names and non-secret details. */
export function cardAuthentication(options: AuthOptions): { schemes: string[]; credentials?: string } {
  const schemes = [...new Set(options.strategies.map((s) => s.scheme))];
  const details = options.strategies.filter((s) => s.cardCredentials);
  if (details.length === 0) return { schemes };
  const credentials =
    details.length === 1 ? details[0]!.cardCredentials : Object.fromEntries(details.map((s) => [s.scheme, s.cardCredentials]));
  return { schemes, credentials: JSON.stringify(credentials) };
}

// ---------------------------------------------------------------------------------------------
// Bearer JWT

export interface BearerJwtOptions {
  /** Verify against a JWKS URL (cached; fetched again when a token names an unknown `kid`). */
  jwksUrl?: string | URL;
  /** Or against one public key: a PEM string or a JWK. */
  publicKey?: string | JWK;
  /** Or with a shared secret (HMAC). At least 32 bytes. */
  secret?: string | Uint8Array;
  /** Required `iss`. */
  issuer?: string | string[];
  /** Required `aud`. */
  audience?: string | string[];
  /**
   * Accepted algorithms. Default: RS*, PS*, ES*, EdDSA for keys; HS* for a secret. `none` is
   * never accepted, and a key is only used with algorithms of its own kind, so an HMAC token
   * signed with a public key (algorithm confusion) fails.
   */
  algorithms?: string[];
  /** Allowed clock difference, seconds. Default 30. */
  clockToleranceSeconds?: number;
  /** Refuse tokens without `exp`. Default true. */
  requireExpiry?: boolean;
  /** The claim that names the principal. Default `sub`. */
  principalClaim?: string;
  /**
   * Minimum time between two JWKS fetches caused by unknown `kid`s, and how long a JWKS that
   * could not be read is held to be down (bearer calls refused at once), milliseconds. Default 30,000.
   */
  jwksCooldownMs?: number;
  /** Time allowed to fetch the JWKS, milliseconds. Default 5,000. */
  jwksTimeoutMs?: number;
  /** Realm in the `WWW-Authenticate` challenge. Default `a2a`. */
  realm?: string;
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const HMAC = ['HS256', 'HS384', 'HS512'];

/** Bearer JWTs verified with jose: `Authorization: Bearer <token>`. */
export function bearerJwt(options: BearerJwtOptions): AuthStrategy {
  const sources = [options.jwksUrl, options.publicKey, options.secret].filter((s) => s !== undefined);
  if (sources.length !== 1) throw new TypeError('bearerJwt: give exactly one of jwksUrl, publicKey, secret');
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[];
  if (options.jwksUrl !== undefined) {
    key = remoteKeySet(new URL(options.jwksUrl), {
      timeoutMs: options.jwksTimeoutMs ?? 5_000,
      cooldownMs: options.jwksCooldownMs ?? 30_000,
    });
    algorithms = options.algorithms ?? ASYMMETRIC;
  } else if (options.publicKey !== undefined) {
    let publicKey: (alg: string) => Promise<unknown>;
    try {
      publicKey = readPublicKey(options.publicKey);
    } catch (error) {
      throw new TypeError(`bearerJwt: the publicKey is not a usable public key (${(error as Error).message})`);
    }
    // Imported for the algorithm a token names (Web Crypto binds a key to one), once each.
    key = (header) => publicKey(header.alg) as never;
    algorithms = options.algorithms ?? ASYMMETRIC;
  } else {
    const secret = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : new Uint8Array(options.secret!);
    if (secret.length < 32) throw new TypeError('bearerJwt: the secret must be at least 32 bytes');
    key = secret;
    algorithms = options.algorithms ?? HMAC;
  }
  if (algorithms.some((a) => a.toLowerCase() === 'none')) throw new TypeError('bearerJwt: alg "none" is never accepted');
  const realm = options.realm ?? 'a2a';
  return {
    scheme: 'Bearer',
    challenge: `Bearer realm="${realm}"`,
    async authenticate(request) {
      const token = bearerTokenOf(request);
      return token === undefined ? undefined : principalOfToken(token, key as never, { ...options, algorithms });
    },
  };
}

/**
 * A JWKS fetched from `url` (jose's remote key set: cached, fetched again for an unknown `kid` at
 * most once a `cooldownMs`) that, once it could not be read, is held to be down for `cooldownMs`:
 * the calls meanwhile are refused at once ("provider unavailable") rather than each asking it
 * again, or each waiting out the timeout while it hangs.
 */
export function remoteKeySet(url: URL, { timeoutMs, cooldownMs }: { timeoutMs: number; cooldownMs: number }): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(url, { timeoutDuration: timeoutMs, cooldownDuration: cooldownMs });
  const hold = new ProviderHold(`the key set (${url})`, cooldownMs);
  return async (header, token) => {
    hold.refuseWhileDown();
    try {
      return await keySet(header, token);
    } catch (error) {
      if (!keySetUnreadable(error)) throw error;
      throw hold.failed(error instanceof errors.JWKSTimeout ? `no answer within ${timeoutMs} ms` : (error as Error).message);
    }
  };
}

/**
 * What an identity provider's document (a JWKS, an OpenID discovery document) that could not be
 * read leaves behind: the provider held to be down for `cooldownMs`, each call meanwhile refused
 * at once with the same "provider unavailable" 401.
 */
export class ProviderHold {
  #down: { until: number; refusal: AuthenticationError } | undefined;

  /** @param document what could not be read, as the refusal names it */
  constructor(
    private readonly document: string,
    private readonly cooldownMs: number,
  ) {}

  /** Throws the refusal while the provider is held down. */
  refuseWhileDown(): void {
    if (this.#down && Date.now() < this.#down.until) throw this.#down.refusal;
  }

  /** Holds the provider down from now on, for `why`; the refusal, for this call to throw. */
  failed(why: string): AuthenticationError {
    const refusal = new AuthenticationError(`provider unavailable: ${this.document} could not be read: ${why}`);
    this.#down = { until: Date.now() + this.cooldownMs, refusal };
    return refusal;
  }
}

/**
 * Whether jose's remote key set failed to read the key set (no answer, not 200, not a key set, the
 * network), as opposed to a token it cannot verify (no key of its `kid`, a key of another kind).
 */
function keySetUnreadable(error: unknown): boolean {
  if (!(error instanceof errors.JOSEError)) return true;
  return error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error.code === 'ERR_JOSE_GENERIC';
}

/** The token of an `Authorization: Bearer` header; undefined without one. */
export function bearerTokenOf(request: AuthRequest): string | undefined {
  const authorization = headerOf(request, 'authorization');
  return authorization && /^bearer\s/i.test(authorization) ? authorization.slice(7).trim() : undefined;
}

/**
 * The principal a bearer JWT stands for, once verified with `key` (its signature, algorithm,
 * issuer, audience and expiry); an AuthenticationError that says why not.
 */
export async function principalOfToken(
  token: string,
  key: Parameters<typeof jwtVerify>[1],
  options: Pick<BearerJwtOptions, 'issuer' | 'audience' | 'clockToleranceSeconds' | 'requireExpiry' | 'principalClaim'> & {
    algorithms: string[];
  },
): Promise<Principal> {
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, key as never, {
      algorithms: options.algorithms,
      issuer: options.issuer,
      audience: options.audience,
      clockTolerance: options.clockToleranceSeconds ?? 30,
      requiredClaims: options.requireExpiry === false ? [] : ['exp'],
    }));
  } catch (error) {
    if (error instanceof AuthenticationError) throw error;
    throw new AuthenticationError(`invalid token (${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'})`);
  }
  const claim = options.principalClaim ?? 'sub';
  const id = claims[claim];
  if (typeof id !== 'string' || id === '') throw new AuthenticationError(`the token has no ${claim} claim`);
  return { id, scheme: 'Bearer', claims };
}

// ---------------------------------------------------------------------------------------------
// API keys

export interface ApiKeyOptions {
  /** Each accepted key and the principal id it stands for. */
  keys: Record<string, string> | ReadonlyMap<string, string>;
  /** The header carrying the key. Default `X-API-Key`. */
  header?: string;
}

/**
 * API keys in a header, compared in constant time. Keys and principals are checked when the
 * strategy is made: `{ [process.env.KEY!]: 'me' }` with the variable unset or empty would
 * otherwise let in anyone who sends `X-API-Key: undefined`, or an empty header.
 */
export function apiKey(options: ApiKeyOptions): AuthStrategy {
  const header = options.header ?? 'X-API-Key';
  const entries = options.keys instanceof Map ? [...options.keys] : Object.entries(options.keys);
  if (entries.length === 0) throw new TypeError('apiKey: at least one key is required');
  for (const [key, principal] of entries) {
    const problem = unusable(key);
    if (problem) throw new TypeError(`apiKey: a key ${problem} (${describeKey(key)}); give each principal a real key`);
    const principalProblem = unusable(principal);
    if (principalProblem) throw new TypeError(`apiKey: the principal of key ${describeKey(key)} ${principalProblem}`);
  }
  const table = entries.map(([key, principal]) => ({ digest: sha256(key), principal }));
  return {
    scheme: 'ApiKey',
    cardCredentials: { in: 'header', name: header },
    challenge: `ApiKey header="${header}"`,
    async authenticate(request) {
      const presented = headerOf(request, header);
      if (presented === undefined) return undefined;
      const principal = matchApiKey(presented, table);
      if (principal === undefined) throw new AuthenticationError('unknown API key');
      return { id: principal, scheme: 'ApiKey' };
    },
  };
}

/**
 * Finds the principal of a presented key without revealing, by timing, how much of it matched:
 * digests have one length whatever the keys' lengths, every byte of each is compared,
 * and every key is compared, even after a match.
 */
export function matchApiKey(presented: string, table: readonly { digest: Uint8Array; principal: string }[]): string | undefined {
  const digest = sha256(presented);
  let found: string | undefined;
  for (const entry of table) {
    if (equalInConstantTime(digest, entry.digest) && found === undefined) found = entry.principal;
  }
  return found;
}

/** Why a key or principal cannot be used: what an unset or empty variable turns into. */
function unusable(value: unknown): string | undefined {
  if (typeof value !== 'string') return `is not a string`;
  if (value.trim() === '') return value === '' ? 'is empty' : 'is blank';
  if (['undefined', 'null'].includes(value.trim().toLowerCase()))
    return `is the word ${JSON.stringify(value)}, what an unset variable becomes`;
  return undefined;
}

/** A key named in an error without giving it away: its length and first two characters. */
function describeKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) return JSON.stringify(key) ?? String(key);
  return ['undefined', 'null'].includes(key.trim().toLowerCase()) || key.trim() === ''
    ? JSON.stringify(key)
    : `${key.length} characters, starting ${JSON.stringify(key.slice(0, 2))}`;
}

// ---------------------------------------------------------------------------------------------
// Anything else

/** A strategy from a function: return a principal, `undefined` for "not mine", or throw. */
export function customAuth(
  scheme: string,
  authenticate: (request: AuthRequest) => Promise<Principal | undefined> | Principal | undefined,
  challenge: string = scheme,
): AuthStrategy {
  return { scheme, challenge, authenticate: async (request) => authenticate(request) };
}
