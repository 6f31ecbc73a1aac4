// OAuth 2.0 and OpenID Connect (spec 1.0 4.5, 7): bearer tokens issued by an authorization
// server, declared in the cards as `oauth2` (its flows and scopes) or `openIdConnect` (its
// discovery URL) schemes, and scopes held per operation. The tokens are JWTs checked as
// `bearerJwt` checks them; an OpenID issuer is configured from its URL alone (its discovery
// document names its keys).
import { decodeJwt, decodeProtectedHeader, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import {
  AuthenticationError,
  bearerJwt,
  bearerTokenOf,
  principalOfToken,
  ProviderHold,
  remoteKeySet,
  type AuthorizeHook,
  type AuthStrategy,
  type BearerJwtOptions,
  type OAuthFlowsOption,
} from './auth.js';
import type { OperationName } from './operations.js';

export interface OAuth2BearerOptions extends BearerJwtOptions {
  /** The flows the card offers clients to get a token (one at least). */
  flows: OAuthFlowsOption;
  /** The authorization server's metadata (RFC 8414), for the card. */
  metadataUrl?: string;
  /** The scopes the card's security requirement names (what every call needs). Default none. */
  requiredScopes?: readonly string[];
  description?: string;
}

/**
 * Bearer JWTs from an OAuth 2.0 authorization server: checked as `bearerJwt` checks them (its
 * keys, issuer, audience), declared in the cards as an `oauth2` scheme with `flows`. The
 * principal's `scopes` are the token's (`scope`, space-separated, or `scp`).
 */
export function oauth2Bearer(options: OAuth2BearerOptions): AuthStrategy {
  const { flows, metadataUrl, requiredScopes, description, ...bearer } = options;
  const named = Object.keys(flows).filter((flow) => flows[flow as keyof OAuthFlowsOption] !== undefined);
  if (named.length === 0) throw new TypeError('oauth2Bearer: give at least one flow (authorizationCode, clientCredentials, deviceCode)');
  for (const flow of named) {
    const scopes = (flows[flow as keyof OAuthFlowsOption] as { scopes?: unknown }).scopes;
    if (scopes === null || typeof scopes !== 'object')
      throw new TypeError(`oauth2Bearer: flows.${flow}.scopes must be an object of scope: description`);
  }
  return {
    ...bearer_(bearerJwt(bearer)),
    declared: { kind: 'oauth2', flows, ...(metadataUrl && { metadataUrl }), ...(description && { description }) },
    requiredScopes: [...(requiredScopes ?? [])],
  };
}

export interface OidcBearerOptions extends Omit<BearerJwtOptions, 'jwksUrl' | 'publicKey' | 'secret' | 'issuer'> {
  /** The OpenID Provider's issuer URL: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  /** The audience tokens must name (`aud`): this agent. */
  audience: string | string[];
  /** The scopes the card's security requirement names. Default none. */
  requiredScopes?: readonly string[];
  /** Time allowed to fetch the discovery document and the keys, milliseconds. Default 5,000. */
  discoveryTimeoutMs?: number;
  /**
   * After the discovery document could not be read, how long the provider is held to be down
   * (bearer calls refused at once, 401 "provider unavailable") before it is asked again,
   * milliseconds. Default 30,000, as `jwksCooldownMs`.
   */
  discoveryCooldownMs?: number;
  description?: string;
}

/**
 * Bearer JWTs from an OpenID Provider, configured from its issuer URL alone: its discovery
 * document (read on the first token that could be the provider's) names its keys (`jwks_uri`)
 * and its issuer, which must be the one given. Declared in the cards as an `openIdConnect`
 * scheme. A provider that cannot be reached refuses the call (401, saying so) and is held to be
 * down for `discoveryCooldownMs`: the calls meanwhile are refused at once, without asking it.
 */
export function oidcBearer(options: OidcBearerOptions): AuthStrategy {
  const { issuer, requiredScopes, discoveryTimeoutMs = 5_000, discoveryCooldownMs = 30_000, description, ...rest } = options;
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    throw new TypeError(`oidcBearer: issuer must be a URL, got ${JSON.stringify(issuer)}`);
  }
  const discoveryUrl = `${issuerUrl.toString().replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const response = await fetch(discoveryUrl, {
      signal: AbortSignal.timeout(discoveryTimeoutMs),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
    // OpenID Connect Discovery 1.0 §4.3: the document's issuer is the one it was asked of.
    if (document.issuer !== issuer) throw new Error(`its issuer is ${JSON.stringify(document.issuer)}, not ${JSON.stringify(issuer)}`);
    if (typeof document.jwks_uri !== 'string') throw new Error('it names no jwks_uri');
    return remoteKeySet(new URL(document.jwks_uri), { timeoutMs: discoveryTimeoutMs, cooldownMs: rest.jwksCooldownMs ?? 30_000 });
  };
  /** The keys, once the document was read. */
  let keys: JWTVerifyGetKey | undefined;
  /** The one discovery in flight: the calls that arrive meanwhile wait for it rather than asking again. */
  let discovering: Promise<JWTVerifyGetKey> | undefined;
  const hold = new ProviderHold(`the issuer's discovery document (${discoveryUrl})`, discoveryCooldownMs);
  const keysOf = (): JWTVerifyGetKey | Promise<JWTVerifyGetKey> => {
    if (keys) return keys;
    hold.refuseWhileDown();
    return (discovering ??= discover().then(
      (found) => {
        keys = found;
        discovering = undefined;
        return found;
      },
      (error: unknown) => {
        discovering = undefined;
        throw hold.failed((error as Error).message);
      },
    ));
  };
  const algorithms = rest.algorithms ?? ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
  if (algorithms.some((a) => a.toLowerCase() === 'none')) throw new TypeError('oidcBearer: alg "none" is never accepted');
  return {
    scheme: 'Bearer',
    challenge: `Bearer realm="${rest.realm ?? 'a2a'}"`,
    declared: { kind: 'openIdConnect', url: discoveryUrl, ...(description && { description }) },
    requiredScopes: [...(requiredScopes ?? [])],
    async authenticate(request) {
      const token = bearerTokenOf(request);
      if (token === undefined) return undefined;
      // Until the document is read, a token that cannot be this provider's asks it nothing.
      if (!keys) refuseUnlessFrom(token, issuer, algorithms);
      const principal = await principalOfToken(token, await keysOf(), { ...rest, issuer, algorithms });
      return { ...principal, scopes: scopesOf(principal.claims ?? {}) };
    },
  };
}

/**
 * Refuses, as verifying it would, a token that is not a JWT, whose algorithm is not accepted, or
 * that names another issuer: read without its keys, so that no such token makes the provider be
 * asked for them.
 */
function refuseUnlessFrom(token: string, issuer: string, algorithms: readonly string[]): void {
  let alg: unknown;
  let iss: unknown;
  try {
    ({ alg } = decodeProtectedHeader(token));
    ({ iss } = decodeJwt(token));
  } catch (error) {
    throw new AuthenticationError(`invalid token (${(error as { code?: string }).code ?? 'ERR_JWT_INVALID'})`);
  }
  if (typeof alg !== 'string' || !algorithms.includes(alg)) throw new AuthenticationError('invalid token (ERR_JOSE_ALG_NOT_ALLOWED)');
  if (iss !== issuer) throw new AuthenticationError('invalid token (ERR_JWT_CLAIM_VALIDATION_FAILED)');
}

/** A bearer strategy whose principals carry the token's scopes. */
function bearer_(strategy: AuthStrategy): AuthStrategy {
  return {
    ...strategy,
    async authenticate(request) {
      const principal = await strategy.authenticate(request);
      return principal && { ...principal, scopes: scopesOf(principal.claims ?? {}) };
    },
  };
}

/** A token's scopes: OAuth's `scope` (RFC 8693: space-separated), or `scp` (a list, as some servers write it). */
export function scopesOf(claims: JWTPayload): string[] {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter(Boolean);
  const { scp } = claims as { scp?: unknown };
  if (Array.isArray(scp)) return scp.filter((scope): scope is string => typeof scope === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter(Boolean);
  return [];
}

/**
 * An authorize hook that holds each operation to the scopes it needs: a principal whose token
 * lacks one is refused (403, PERMISSION_DENIED). Operations not named need `otherwise` (default:
 * none). Then `next`, if given, is asked too.
 */
export function requireScopes(
  byOperation: Partial<Record<OperationName, readonly string[]>>,
  { otherwise = [], next }: { otherwise?: readonly string[]; next?: AuthorizeHook } = {},
): AuthorizeHook {
  return async (request) => {
    const needed = byOperation[request.operation] ?? otherwise;
    const held = Array.isArray(request.principal.scopes)
      ? (request.principal.scopes as string[])
      : scopesOf(request.principal.claims ?? {});
    if (!needed.every((scope) => held.includes(scope))) return false;
    return next ? next(request) : true;
  };
}
