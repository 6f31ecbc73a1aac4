// The receiving side of A2A push notifications: checks that a notification really comes from
// the agent (signature against its JWKS), is the body that was signed, is fresh, is not a
// replay, and carries the token the client chose. Nothing here needs Express, so that a
// client-only project compiles without it; the Express handler is `a2a-push-receiver/express`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload } from 'jose';
import type { PushNotificationPayload } from 'a2a-types';

export interface PushVerifierOptions<P = PushNotificationPayload> {
  /** The agent's JWKS, e.g. `https://agent.example.com/.well-known/jwks.json`. */
  jwksUrl: string | URL;
  /** Oldest accepted notification, by its `iat`, in seconds. Default 300 (5 minutes). */
  maxAgeSeconds?: number;
  /** Allowed clock difference with the agent, seconds. Default 30. */
  clockToleranceSeconds?: number;
  /** Accepted JWS algorithms. Default asymmetric only: RS*, PS*, ES*, EdDSA (never `none` or HS*). */
  algorithms?: string[];
  /**
   * The `X-A2A-Notification-Token` expected: a string, or a function of the notification's body
   * (say, to look up the token you gave for its task). Undefined: the header is not checked.
   */
  expectedToken?: string | ((payload: P) => string | undefined | Promise<string | undefined>);
  /** Time allowed to fetch the JWKS, milliseconds. Default 5,000. */
  jwksTimeoutMs?: number;
  /**
   * The fetch the JWKS is read with; default the global one. Give a2a-client/tls's `tlsFetch()`
   * when the agent's keys are behind a CA of your own or mutual TLS.
   */
  fetch?: typeof fetch;
}

/** Why a notification was refused. */
export type PushRejection =
  | 'missing-authorization'
  | 'invalid-signature'
  | 'too-old'
  | 'body-mismatch'
  | 'replayed'
  | 'bad-token'
  | 'malformed-body';

export class PushVerificationError extends Error {
  constructor(
    readonly reason: PushRejection,
    message: string,
  ) {
    super(message);
    this.name = 'PushVerificationError';
  }
}

/**
 * A notification that passed every check. `P` is the type of its JSON body; it defaults to what
 * a2a-express sends. The body's shape is not checked (the signature says who sent it, not what
 * it holds): name another type when your agent sends something else.
 */
export interface VerifiedNotification<P = PushNotificationPayload> {
  /** The parsed JSON body. */
  payload: P;
  /** The JWT's claims: `iat`, `jti`, `request_body_sha256`. */
  claims: JWTPayload;
}

export interface IncomingNotification {
  /** Request headers (Node's lower-cased object, or a fetch `Headers`). */
  headers: Record<string, string | string[] | undefined> | Headers;
  /** The raw body bytes, exactly as received. */
  body: Buffer | Uint8Array | string;
}

export interface PushVerifier<P = PushNotificationPayload> {
  verify(notification: IncomingNotification): Promise<VerifiedNotification<P>>;
}

/** Where an A2A 1.0 notification's signature is (a2a-express 1.0 deliveries). */
export const SIGNATURE_HEADER = 'a2a-notification-signature';

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

export function createPushNotificationVerifier<P = PushNotificationPayload>(options: PushVerifierOptions<P>): PushVerifier<P> {
  const maxAge = options.maxAgeSeconds ?? 300;
  const keys = createRemoteJWKSet(new URL(options.jwksUrl), {
    timeoutDuration: options.jwksTimeoutMs ?? 5_000,
    ...(options.fetch && { [customFetch]: options.fetch }),
  });
  // jti → when it stops mattering (its token is too old to be accepted anyway).
  const seen = new Map<string, number>();

  return {
    async verify({ headers, body }: IncomingNotification): Promise<VerifiedNotification<P>> {
      // A2A 1.0 notifications carry the client's own credentials in Authorization (spec 1.0
      // 4.3.3), so the kit signs them in a header of their own; older ones in Authorization.
      const signature = header(headers, SIGNATURE_HEADER);
      const authorization = header(headers, 'authorization');
      const jwt = signature !== undefined ? signature.trim() : /^Bearer ([A-Za-z0-9_.-]+)$/.exec(authorization ?? '')?.[1];
      if (!jwt)
        throw new PushVerificationError('missing-authorization', `no ${SIGNATURE_HEADER} header and no Bearer token in Authorization`);
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(jwt, keys, {
          algorithms: options.algorithms ?? ASYMMETRIC,
          maxTokenAge: `${maxAge}s`,
          clockTolerance: options.clockToleranceSeconds ?? 30,
        }));
      } catch (error) {
        if (error instanceof errors.JWTExpired || (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iat')) {
          throw new PushVerificationError('too-old', `token refused: ${(error as Error).message}`);
        }
        throw new PushVerificationError('invalid-signature', `token refused: ${(error as Error).message}`);
      }
      const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
      if (claims.request_body_sha256 !== createHash('sha256').update(bytes).digest('hex')) {
        throw new PushVerificationError('body-mismatch', 'the body is not the one that was signed');
      }
      const now = Date.now();
      for (const [jti, until] of seen) if (until < now) seen.delete(jti);
      if (typeof claims.jti !== 'string') throw new PushVerificationError('invalid-signature', 'the token has no jti');
      if (seen.has(claims.jti)) throw new PushVerificationError('replayed', `jti ${claims.jti} was already used`);
      let payload: P;
      try {
        payload = JSON.parse(bytes.toString('utf8')) as P;
      } catch {
        throw new PushVerificationError('malformed-body', 'the body is not JSON');
      }
      const expected = typeof options.expectedToken === 'function' ? await options.expectedToken(payload) : options.expectedToken;
      if (expected !== undefined && !sameSecret(expected, header(headers, 'x-a2a-notification-token'))) {
        throw new PushVerificationError('bad-token', 'X-A2A-Notification-Token does not match');
      }
      seen.set(claims.jti, ((claims.iat ?? now / 1000) + maxAge + (options.clockToleranceSeconds ?? 30)) * 1000);
      return { payload, claims };
    },
  };
}

/** Constant-time comparison (hashing first makes the lengths equal). */
function sameSecret(expected: string, received: string | undefined): boolean {
  if (received === undefined) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(expected), digest(received));
}

function header(headers: IncomingNotification['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

export type { PushNotificationPayload } from 'a2a-types';
