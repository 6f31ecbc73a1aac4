// Authentication (who is calling) and authorization (may they do this), at the HTTP layer as the
// spec requires (sections 4, 4.4): strategies turn a request into a principal or refuse it.
import { createHash, createPublicKey, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Request } from 'express';
import { createRemoteJWKSet, jwtVerify, type JWK, type JWTPayload } from 'jose';

/** Who made a request, as a strategy established it. Never carries the credentials themselves. */
export interface Principal {
  /** Stable identifier: tasks belong to it. */
  id: string;
  /** The scheme that authenticated it (`Bearer`, `ApiKey`, ...). */
  scheme: string;
  /** The verified JWT claims, for a bearer token. */
  claims?: JWTPayload;
  [extra: string]: unknown;
}

/**
 * Who owns what a principal creates: its scheme, the issuer that vouched for it (a JWT's `iss`)
 * and its id, as one string that maps to one principal only. A bearer token with `sub: "alice"`
 * and the API key whose principal is `alice` are two owners, and so are two issuers' `alice`.
 */
export function ownerKey(principal: Principal): string {
  const issuer = typeof principal.claims?.iss === 'string' ? principal.claims.iss : '';
  return JSON.stringify([principal.scheme, issuer, principal.id]);
}

/** A strategy refuses credentials it recognises but cannot accept by throwing this. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/** One way of authenticating requests. */
export interface AuthStrategy {
  /** The scheme name for the card's `authentication.schemes` (`Bearer`, `ApiKey`, ...). */
  readonly scheme: string;
  /** Non-secret details for the card's `authentication.credentials` (e.g. the API key header). */
  readonly cardCredentials?: Record<string, unknown>;
  /** The `WWW-Authenticate` challenge sent with a 401. */
  readonly challenge: string;
  /**
   * The principal, or `undefined` when the request carries no credentials of this kind (the
   * next strategy is tried). Throws {@link AuthenticationError} for credentials that are present
   * but not valid.
   */
  authenticate(req: Request): Promise<Principal | undefined>;
}

/**
 * May this principal call this method with these params? `false` → HTTP 403 with -32008.
 *
 * Every call is shown in one form, 0.1.0's, whichever protocol version it came in, so that a rule
 * written for 0.1.0 means the same for every version: `method` names the 0.1.0 operation and
 * `params` are that operation's params. A 0.3 `message/send` is asked as `tasks/send` with its
 * `TaskSendParams` (the 0.3 `contextId` as `sessionId`, its push config as `pushNotification`),
 * `message/stream` as `tasks/sendSubscribe`, `tasks/pushNotificationConfig/set` as
 * `tasks/pushNotification/set` with `{ id, pushNotificationConfig }` (the config with its `id`),
 * `/delete` as that set with a null config and the `pushNotificationConfigId` it deletes, `/get`
 * and `/list` as `tasks/pushNotification/get` with `{ id }`. The call then
 * does exactly what was asked about. `rpcMethod` and `sentParams` are the call as it came, for
 * the rare rule that must tell versions apart.
 */
export type AuthorizeHook = (request: {
  principal: Principal;
  /** The 0.1.0 method whose operation the call performs. */
  method: string;
  /** The params as that 0.1.0 method takes them (see above). */
  params: unknown;
  /** The JSON-RPC method as called (`message/send` for 0.3; the same as `method` for 0.1.0). */
  rpcMethod: string;
  /** The params as the client sent them, in its version's form. */
  sentParams: unknown;
  /** Which protocol version the call came in, by the kit's name for it: `'0.1.0'`, `'0.3'`. */
  protocol: string;
  req: Request;
}) => boolean | Promise<boolean>;

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
export async function authenticate(req: Request, options: AuthOptions): Promise<AuthOutcome> {
  const challenges = options.strategies.map((s) => s.challenge);
  for (const strategy of options.strategies) {
    try {
      const principal = await strategy.authenticate(req);
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
  /** Minimum time between two JWKS fetches caused by unknown `kid`s, milliseconds. Default 30,000. */
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
  let key: KeyObject | ReturnType<typeof createRemoteJWKSet>;
  let algorithms: string[];
  if (options.jwksUrl !== undefined) {
    key = createRemoteJWKSet(new URL(options.jwksUrl), {
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: options.jwksTimeoutMs ?? 5_000,
    });
    algorithms = options.algorithms ?? ASYMMETRIC;
  } else if (options.publicKey !== undefined) {
    key =
      typeof options.publicKey === 'string'
        ? createPublicKey(options.publicKey)
        : createPublicKey({ key: options.publicKey as never, format: 'jwk' });
    algorithms = options.algorithms ?? ASYMMETRIC;
  } else {
    const secret = typeof options.secret === 'string' ? Buffer.from(options.secret) : Buffer.from(options.secret!);
    if (secret.length < 32) throw new TypeError('bearerJwt: the secret must be at least 32 bytes');
    key = createSecretKey(secret);
    algorithms = options.algorithms ?? HMAC;
  }
  if (algorithms.some((a) => a.toLowerCase() === 'none')) throw new TypeError('bearerJwt: alg "none" is never accepted');
  const realm = options.realm ?? 'a2a';
  const claim = options.principalClaim ?? 'sub';
  return {
    scheme: 'Bearer',
    challenge: `Bearer realm="${realm}"`,
    async authenticate(req) {
      const authorization = req.get('authorization');
      if (!authorization || !/^bearer\s/i.test(authorization)) return undefined;
      const token = authorization.slice(7).trim();
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, key as never, {
          algorithms,
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance: options.clockToleranceSeconds ?? 30,
          requiredClaims: options.requireExpiry === false ? [] : ['exp'],
        }));
      } catch (error) {
        throw new AuthenticationError(`invalid token (${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'})`);
      }
      const id = claims[claim];
      if (typeof id !== 'string' || id === '') throw new AuthenticationError(`the token has no ${claim} claim`);
      return { id, scheme: 'Bearer', claims };
    },
  };
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
    async authenticate(req) {
      const presented = req.get(header);
      if (presented === undefined) return undefined;
      const principal = matchApiKey(presented, table);
      if (principal === undefined) throw new AuthenticationError('unknown API key');
      return { id: principal, scheme: 'ApiKey' };
    },
  };
}

/**
 * Finds the principal of a presented key without revealing, by timing, how much of it matched:
 * digests have one length whatever the keys' lengths, `timingSafeEqual` compares every byte,
 * and every key is compared, even after a match.
 */
export function matchApiKey(presented: string, table: readonly { digest: Buffer; principal: string }[]): string | undefined {
  const digest = sha256(presented);
  let found: string | undefined;
  for (const entry of table) {
    if (timingSafeEqual(digest, entry.digest) && found === undefined) found = entry.principal;
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

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

// ---------------------------------------------------------------------------------------------
// Anything else

/** A strategy from a function: return a principal, `undefined` for "not mine", or throw. */
export function customAuth(
  scheme: string,
  authenticate: (req: Request) => Promise<Principal | undefined> | Principal | undefined,
  challenge: string = scheme,
): AuthStrategy {
  return { scheme, challenge, authenticate: async (req) => authenticate(req) };
}
