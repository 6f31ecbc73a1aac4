// Who makes a call, as authentication established it, and who owns what it creates.
import type { JWTPayload } from 'jose';

/** Who made a call, as a strategy established it. Never carries the credentials themselves. */
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
